// Request and response headers. The request header's version is not on the wire: it follows
// from the API key and version, which are its first two fields, so `readRequestHeader` peeks at
// them first. ClientId is a classic int16 string in every header version (the schema overrides
// flexibleVersions for it), and a null ClientId is returned as null.

import type { Reader } from '../primitives/reader.js';
import type { Writer } from '../primitives/writer.js';
import {
  type RequestHeader,
  readRequestHeader as readHeaderV,
  writeRequestHeader as writeHeaderV,
} from './generated/request-header.js';
import { requestHeaderVersion } from './header-versions.js';

export type { RequestHeader };

export function readRequestHeader(r: Reader): RequestHeader {
  const start = r.pos;
  const key = r.int16();
  const version = r.int16();
  r.pos = start;
  return readHeaderV(r, requestHeaderVersion(key, version));
}

export function writeRequestHeader(w: Writer, h: RequestHeader): void {
  writeHeaderV(w, requestHeaderVersion(h.requestApiKey, h.requestApiVersion), h);
}

/** Reads a response header of version 0 or 1 and returns its correlation id. */
export function readResponseHeader(r: Reader, headerVersion: number): number {
  const correlationId = r.int32();
  if (headerVersion >= 1) r.skipTaggedFields();
  return correlationId;
}

export function writeResponseHeader(w: Writer, correlationId: number, headerVersion: number): void {
  w.int32(correlationId);
  if (headerVersion >= 1) w.int8(0); // empty tagged-field section
}
