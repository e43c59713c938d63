// Every API this broker implements. ApiVersions advertises exactly this list.

import produce from './00-produce.js';
import fetch from './01-fetch.js';
import listOffsets from './02-list-offsets.js';
import metadata from './03-metadata.js';
import apiVersions from './18-api-versions.js';
import type { AnyApiHandler } from './api.js';

export const ALL_HANDLERS: readonly AnyApiHandler[] = [produce, fetch, listOffsets, metadata, apiVersions];
