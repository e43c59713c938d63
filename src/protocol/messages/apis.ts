// The API table (every generated descriptor, codecs included) and the header-version rules.

import { GENERATED_APIS } from './generated/index.js';
import type { ApiDescriptor } from './runtime.js';

export {
  API_KEY_APIVERSIONS,
  API_KEY_CONTROLLED_SHUTDOWN,
  isFlexibleVersion,
  requestHeaderVersion,
  responseHeaderVersion,
} from './header-versions.js';

const table: (ApiDescriptor | undefined)[] = [];
for (const api of GENERATED_APIS) table[api.key] = api;

/** Descriptors indexed by API key (`undefined` for keys the schemas do not define). */
export const API_BY_KEY: readonly (ApiDescriptor | undefined)[] = table;

export function apiByKey(key: number): ApiDescriptor | undefined {
  return key >= 0 ? table[key] : undefined;
}
