// Whole frames: int32 size prefix + header + body, encoded into one Writer whose chunks go
// straight to the socket (record data stays referenced, never copied).

import { EncodeError } from '../primitives/errors.js';
import { Reader } from '../primitives/reader.js';
import { Writer } from '../primitives/writer.js';
import { apiByKey, responseHeaderVersion } from './apis.js';
import {
  type RequestHeader,
  readRequestHeader,
  readResponseHeader,
  writeRequestHeader,
  writeResponseHeader,
} from './header.js';
import type { ApiDescriptor } from './runtime.js';

type ApiRef<Req, Res> = number | ApiDescriptor<Req, Res>;

function resolve<Req, Res>(api: ApiRef<Req, Res>): ApiDescriptor<Req, Res> {
  if (typeof api !== 'number') return api;
  const d = apiByKey(api);
  if (d === undefined) throw new EncodeError('UNSUPPORTED_VERSION', `unknown API key ${api}`);
  return d as ApiDescriptor<Req, Res>;
}

/** Size-prefixed request frame as chunks. `api` is an API key or a descriptor (typed body). */
export function encodeRequest<Req>(
  api: ApiRef<Req, unknown>,
  version: number,
  correlationId: number,
  clientId: string | null,
  body: Req,
): Buffer[] {
  const d = resolve(api);
  const w = new Writer();
  const size = w.beginSize();
  writeRequestHeader(w, { requestApiKey: d.key, requestApiVersion: version, correlationId, clientId });
  d.writeRequest(w, version, body);
  w.endSize(size);
  return w.finish();
}

/** Size-prefixed response frame as chunks, with the header version the API/version requires. */
export function encodeResponse<Res>(
  api: ApiRef<unknown, Res>,
  version: number,
  correlationId: number,
  body: Res,
): Buffer[] {
  const d = resolve(api);
  const w = new Writer();
  const size = w.beginSize();
  writeResponseHeader(w, correlationId, responseHeaderVersion(d.key, version));
  d.writeResponse(w, version, body);
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
  api: ApiRef<unknown, Res>,
  version: number,
  frame: Buffer,
): { correlationId: number; body: Res } {
  const d = resolve(api);
  const r = new Reader(frame);
  const correlationId = readResponseHeader(r, responseHeaderVersion(d.key, version));
  return { correlationId, body: d.readResponse(r, version) };
}
