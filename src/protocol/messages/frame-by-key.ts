// The frame functions of `frame.ts`, also taking an API key instead of a descriptor (pass the
// descriptor, e.g. `produceApi`, to get the body type-checked). Looking a key up needs the full
// API table, which imports every codec module; `frame.ts` itself does not.

import { EncodeError } from '../primitives/errors.js';
import { apiByKey } from './apis.js';
import * as frame from './frame.js';
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
  return frame.encodeRequest(resolve(api), version, correlationId, clientId, body);
}

/** Size-prefixed response frame as chunks, with the header version the API/version requires. */
export function encodeResponse<Res>(
  api: ApiRef<unknown, Res>,
  version: number,
  correlationId: number,
  body: Res,
): Buffer[] {
  return frame.encodeResponse(resolve(api), version, correlationId, body);
}

/** Decodes a response frame (without its size prefix) for a request of `api`/`version`. */
export function decodeResponse<Res>(
  api: ApiRef<unknown, Res>,
  version: number,
  frameBytes: Buffer,
): { correlationId: number; body: Res } {
  return frame.decodeResponse(resolve(api), version, frameBytes);
}
