// Whole frames: int32 size prefix + header + body, encoded into one Writer whose chunks go
// straight to the socket (record data stays referenced, never copied). These take the API's
// descriptor and load no API table, so a process pays only for the codecs it imports;
// `frame-by-key.ts` (what `messages/index.ts` exports) also accepts a bare API key.

import { Reader } from '../primitives/reader.js';
import { Writer } from '../primitives/writer.js';
import {
  type RequestHeader,
  readRequestHeader,
  readResponseHeader,
  writeRequestHeader,
  writeResponseHeader,
} from './header.js';
import { responseHeaderVersion } from './header-versions.js';
import type { ApiDescriptor } from './runtime.js';

/** Size-prefixed request frame as chunks. */
export function encodeRequest<Req>(
  api: ApiDescriptor<Req, unknown>,
  version: number,
  correlationId: number,
  clientId: string | null,
  body: Req,
): Buffer[] {
  const w = new Writer();
  const size = w.beginSize();
  writeRequestHeader(w, { requestApiKey: api.key, requestApiVersion: version, correlationId, clientId });
  api.writeRequest(w, version, body);
  w.endSize(size);
  return w.finish();
}

/** Size-prefixed response frame as chunks, with the header version the API/version requires. */
export function encodeResponse<Res>(
  api: ApiDescriptor<unknown, Res>,
  version: number,
  correlationId: number,
  body: Res,
): Buffer[] {
  const w = new Writer();
  const size = w.beginSize();
  writeResponseHeader(w, correlationId, responseHeaderVersion(api.key, version));
  api.writeResponse(w, version, body);
  w.endSize(size);
  return w.finish();
}

export interface DecodedRequest {
  header: RequestHeader;
  /** Positioned at the first body byte; decode with `API_BY_KEY[key].readRequest`. */
  reader: Reader;
}

/** Parses the header of a request frame given without its size prefix. */
export function decodeRequestHeader(frame: Buffer): DecodedRequest {
  const reader = new Reader(frame);
  const header = readRequestHeader(reader);
  return { header, reader };
}

/** Decodes a response frame (without its size prefix) for a request of `api`/`version`. */
export function decodeResponse<Res>(
  api: ApiDescriptor<unknown, Res>,
  version: number,
  frame: Buffer,
): { correlationId: number; body: Res } {
  const r = new Reader(frame);
  const correlationId = readResponseHeader(r, responseHeaderVersion(api.key, version));
  return { correlationId, body: api.readResponse(r, version) };
}
