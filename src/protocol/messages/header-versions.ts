// Header-version rules, from the API version facts alone (generated/api-metadata.ts). Kept apart
// from `apis.ts`, whose descriptor table imports every codec module: header parsing must not
// cost a process (the broker) the codecs of APIs it never serves.

import { API_METADATA, type ApiMetadata } from './generated/api-metadata.js';

const table: (ApiMetadata | undefined)[] = [];
for (const api of API_METADATA) table[api.key] = api;

export const API_KEY_APIVERSIONS = 18;
export const API_KEY_CONTROLLED_SHUTDOWN = 7;

/** Version facts of API `key`, `undefined` for keys the schemas do not define. */
export function apiMetadata(key: number): ApiMetadata | undefined {
  return key >= 0 ? table[key] : undefined;
}

/**
 * Whether `version` of API `key` uses the flexible (KIP-482) encoding. Versions above the
 * schema's maximum follow the open-ended `flexibleVersions` range, which is what lets a broker
 * parse the header of an ApiVersions request newer than it knows (KIP-511).
 */
export function isFlexibleVersion(key: number, version: number): boolean {
  const api = apiMetadata(key);
  return api !== undefined && version >= api.flexibleMinVersion;
}

/** Request header version: 2 for flexible API versions, else 1; ControlledShutdown v0 uses 0. */
export function requestHeaderVersion(key: number, version: number): 0 | 1 | 2 {
  if (key === API_KEY_CONTROLLED_SHUTDOWN && version === 0) return 0;
  return isFlexibleVersion(key, version) ? 2 : 1;
}

/** Response header version: 1 for flexible API versions, else 0; ApiVersions is always 0. */
export function responseHeaderVersion(key: number, version: number): 0 | 1 {
  if (key === API_KEY_APIVERSIONS) return 0;
  return isFlexibleVersion(key, version) ? 1 : 0;
}
