// Every API this broker implements. ApiVersions advertises exactly this list.

import apiVersions from './18-api-versions.js';
import metadata from './03-metadata.js';
import type { AnyApiHandler } from './api.js';

export const ALL_HANDLERS: readonly AnyApiHandler[] = [apiVersions, metadata];
