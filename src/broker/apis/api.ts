// What an API handler is: its codecs (the generated descriptor), the version range it
// advertises, and `handle`. Each `apis/NN-name.ts` exports one of these; the registry collects
// them and ApiVersions is built from the registry, so advertised ranges never drift from what
// is implemented.

import type { RequestHeader } from '../../protocol/messages/header.js';
import type { ApiDescriptor } from '../../protocol/messages/runtime.js';
import type { RequestTiming } from '../metrics/request-stats.js';
import type { ConnectionContext } from '../network/connection.js';
import type { BrokerServices } from './services.js';

export interface RequestContext {
  readonly header: RequestHeader;
  /** Same as `header.requestApiVersion`. */
  readonly version: number;
  readonly conn: ConnectionContext;
  readonly broker: BrokerServices;
  /**
   * Registers `cb` to run once the response has left (handed to the kernel), or will never be
   * sent (no response, connection closed). Only after a normal return of `handle`: buffers the
   * response references may be reused from then on. Absent in hand-made test contexts.
   */
  readonly onResponseSent?: (cb: () => void) => void;
  /** Collects the request's remote time (`remoteWait`) when metrics are on. */
  readonly timing?: RequestTiming;
}

/** Returned by a handler that must not answer (Produce with acks=0). */
export const NO_RESPONSE: unique symbol = Symbol('no-response');

/** Returned by a handler that must close the connection instead of answering. */
export class CloseConnection {
  constructor(readonly reason: string) {}
}

export type HandlerResult<Res> = Res | typeof NO_RESPONSE | CloseConnection;

export interface ApiHandler<Req, Res> {
  readonly api: ApiDescriptor<Req, Res>;
  /** Advertised range. Versions outside it close the connection (ApiVersions: KIP-511 answer). */
  readonly minVersion: number;
  readonly maxVersion: number;
  /**
   * May run while other pipelinable requests of the same connection are in flight. Only for
   * handlers whose ordering-relevant work happens synchronously when called (Produce); a
   * function decides per request version.
   */
  readonly pipelinable?: boolean | ((version: number) => boolean);
  /**
   * Once `handle` has settled normally, nothing references the request's bytes any more (no
   * `bytes`/`records` subarray kept in state, caches or the response), so the network layer may
   * reuse the frame buffer. Only for handlers that guarantee it (Produce: the log copies or
   * forgets what it wrote).
   */
  readonly releasesRequest?: boolean;
  handle(ctx: RequestContext, req: Req): HandlerResult<Res> | Promise<HandlerResult<Res>>;
}

/** Type-erased handler, as stored in the registry. */
export interface AnyApiHandler {
  readonly api: ApiDescriptor<unknown, unknown>;
  readonly minVersion: number;
  readonly maxVersion: number;
  readonly pipelinable?: boolean | ((version: number) => boolean);
  readonly releasesRequest?: boolean;
  handle(ctx: RequestContext, req: unknown): HandlerResult<unknown> | Promise<HandlerResult<unknown>>;
}

/** Declares a handler with full typing; the result is storable in the registry. */
export function defineApi<Req, Res>(h: ApiHandler<Req, Res>): AnyApiHandler & ApiHandler<Req, Res> {
  if (h.minVersion < h.api.minVersion || h.maxVersion > h.api.maxVersion) {
    throw new Error(`${h.api.name}: range ${h.minVersion}-${h.maxVersion} outside the schema's`);
  }
  return h as unknown as AnyApiHandler & ApiHandler<Req, Res>;
}
