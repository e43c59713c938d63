// Turns a request frame into an outcome for the connection: reads the fixed header prefix,
// finds the handler, checks the version, decodes, handles, encodes. Failure modes follow Kafka's
// SocketServer: an unknown API key, an unsupported version (except ApiVersions) or a body that
// does not decode closes the connection; ApiVersions with an unknown version gets the KIP-511
// answer (v0 body, UNSUPPORTED_VERSION, our key-18 range).

import { ErrorCode } from '../../protocol/errors.js';
import { decodeRequestHeader, encodeResponse } from '../../protocol/messages/frame.js';
import { apiVersionsApi } from '../../protocol/messages/generated/api-versions.js';
import { DecodeError, EncodeError } from '../../protocol/primitives/errors.js';
import type { RequestTiming } from '../metrics/request-stats.js';
import { requestMetricName } from '../metrics/request-timer.js';
import type { ConnectionContext, RequestHandler, RequestOutcome } from '../network/connection.js';
import { quotaLimited, quotaUser, RequestQuotaCheck } from '../quota/request-throttle.js';
import { RequestLog } from '../request-log.js';
import { apiVersionsResponse } from './18-api-versions.js';
import { type AnyApiHandler, CloseConnection, NO_RESPONSE, type RequestContext } from './api.js';
import type { BrokerServices } from './services.js';

const API_VERSIONS_KEY = 18;
/** ApiKey int16 + ApiVersion int16 + CorrelationId int32. */
const FIXED_HEADER_BYTES = 8;

/** A request refused for what it is (not for a broker failure): logged at warn by the connection. */
const close = (reason: string): RequestOutcome => ({ kind: 'close', reason, rejected: true });

/** Longest error message we send back; client-supplied text is echoed in messages. */
const MAX_ERROR_MESSAGE = 1024;
const MAX_STRING_BYTES = 32767;

/**
 * A copy of a response body whose `errorMessage` strings are cut to MAX_ERROR_MESSAGE characters
 * (and any other string to the protocol's limit), or null when nothing needed cutting. Messages
 * quote what the client sent (a 32,767-character topic name), so they can outgrow the limit.
 */
function withBoundedStrings(value: unknown, key = ''): { value: unknown; changed: boolean } {
  if (typeof value === 'string') {
    if (key === 'errorMessage' && value.length > MAX_ERROR_MESSAGE)
      return { value: `${value.slice(0, MAX_ERROR_MESSAGE)}... (${value.length} characters)`, changed: true };
    if (Buffer.byteLength(value) > MAX_STRING_BYTES)
      return {
        value: Buffer.from(value)
          .subarray(0, MAX_STRING_BYTES - 4)
          .toString(),
        changed: true,
      };
    return { value, changed: false };
  }
  if (Array.isArray(value)) {
    let changed = false;
    const out = value.map((v) => {
      const r = withBoundedStrings(v);
      changed ||= r.changed;
      return r.value;
    });
    return changed ? { value: out, changed } : { value, changed };
  }
  if (value !== null && typeof value === 'object' && Object.getPrototypeOf(value) === Object.prototype) {
    let changed = false;
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value)) {
      const r = withBoundedStrings(v, k);
      changed ||= r.changed;
      out[k] = r.value;
    }
    return changed ? { value: out, changed } : { value, changed };
  }
  return { value, changed: false };
}

/** Runs every callback, the first time only. */
function once(callbacks: readonly (() => void)[]): () => void {
  let done = false;
  return () => {
    if (done) return;
    done = true;
    for (const cb of callbacks) cb();
  };
}

/**
 * One request's context. A class rather than an object literal with an `onResponseSent`
 * closure: most requests (OffsetCommit, ApiVersions, Produce) never register a callback, and a
 * closure and an array per request were a measurable share of a small request's CPU
 * (bench/groups-commit-path.ts); the list exists only once a handler asks for it.
 */
class DispatchContext implements RequestContext {
  #sent: (() => void)[] | null = null;
  /** Kafka's request metric name (FetchConsumer / FetchFollower split), read before handling. */
  readonly metricName: string;
  /** Set when a quota was ever configured. */
  quota: RequestQuotaCheck | null = null;
  /** When the handler was called (performance.now()), for the quota's handling time. */
  startedMs = 0;

  constructor(
    readonly header: RequestContext['header'],
    readonly version: number,
    readonly conn: ConnectionContext,
    readonly broker: BrokerServices,
    readonly timing: RequestTiming | undefined,
    readonly handler: AnyApiHandler,
    /** The decoded request until the handler has it (then dropped: the context outlives it). */
    public request: unknown,
  ) {
    this.metricName = requestMetricName(handler.api.name, request);
  }

  /** A handler takes this as a plain function (Fetch keeps it), so it is bound to this request. */
  get onResponseSent(): (cb: () => void) => void {
    return (cb) => {
      if (this.#sent === null) this.#sent = [cb];
      else this.#sent.push(cb);
    };
  }

  /**
   * What the connection runs once the response has left: nothing, the metrics recorder alone (it
   * records the first time only, so it needs no `once` wrapper), or every callback once.
   */
  afterSent(recorder: (() => void) | undefined): (() => void) | undefined {
    const sent = this.#sent;
    if (sent === null) return recorder;
    if (recorder !== undefined) sent.push(recorder);
    return once(sent);
  }
}

export class Dispatcher implements RequestHandler {
  /** Debug request lines (request-log.ts); null unless the logger writes debug. */
  readonly #requestLog: RequestLog | null;

  constructor(private readonly services: BrokerServices) {
    this.#requestLog = RequestLog.ifEnabled(services.logger, (key) => services.registry.get(key)?.api.name);
  }

  canPipeline(frame: Buffer, conn?: ConnectionContext): boolean {
    this.services.metrics?.timer.arrived(frame);
    if (frame.length < 4) return false;
    const p = this.services.registry.get(frame.readInt16BE(0))?.pipelinable;
    const pipelinable = p === true || (typeof p === 'function' && p(frame.readInt16BE(2)));
    // A client under a quota gets one request at a time, so a throttle's mute holds the next.
    const quotas = this.services.quotas;
    if (pipelinable && quotas?.enabled === true)
      return !quotaLimited(quotas, frame, conn?.security?.principal);
    return pipelinable;
  }

  releasesFrame(frame: Buffer): boolean {
    if (frame.length < 2) return false;
    return this.services.registry.get(frame.readInt16BE(0))?.releasesRequest === true;
  }

  handle(frame: Buffer, conn: ConnectionContext): Promise<RequestOutcome> {
    const log = this.#requestLog;
    return log === null
      ? this.#handle(frame, conn)
      : log.around(frame, conn, () => this.#handle(frame, conn));
  }

  /**
   * Not async: a handler that answers synchronously (ApiVersions, Metadata, a refused request)
   * is finished in the same run, and one that returns a promise is finished by a continuation
   * that holds the request's context alone — a suspended async frame kept every local alive
   * while the request waited (with a thousand OffsetCommits waiting for their append, what each
   * keeps alive is what every scavenge copies).
   */
  #handle(frame: Buffer, conn: ConnectionContext): Promise<RequestOutcome> {
    try {
      const ctx = this.#start(frame, conn);
      if (!(ctx instanceof DispatchContext)) return Promise.resolve(ctx);
      const pending = ctx.handler.handle(ctx, ctx.request);
      ctx.request = undefined;
      if (ctx.quota !== null) ctx.quota.handlingMs += performance.now() - ctx.startedMs;
      if (pending instanceof Promise) return pending.then((result) => this.#finish(ctx, result));
      return Promise.resolve(this.#finish(ctx, pending));
    } catch (e) {
      return Promise.reject(e);
    }
  }

  /** The request's context, ready for its handler; or the outcome when it never gets there. */
  #start(frame: Buffer, conn: ConnectionContext): DispatchContext | RequestOutcome {
    if (frame.length < FIXED_HEADER_BYTES) return close(`truncated request header (${frame.length} bytes)`);
    const key = frame.readInt16BE(0);
    const version = frame.readInt16BE(2);
    const handler = this.services.registry.get(key);
    if (!handler) return close(`unknown API key ${key}`);
    if (version < handler.minVersion || version > handler.maxVersion) {
      if (key !== API_VERSIONS_KEY) return close(`unsupported version ${version} of API key ${key}`);
      const body = apiVersionsResponse(ErrorCode.UNSUPPORTED_VERSION, [
        { apiKey: API_VERSIONS_KEY, minVersion: handler.minVersion, maxVersion: handler.maxVersion },
      ]);
      return { kind: 'respond', chunks: encodeResponse(apiVersionsApi, 0, frame.readInt32BE(4), body) };
    }
    const metered = this.services.metrics?.timer.start(frame);
    let ctx: DispatchContext;
    try {
      const { header, reader } = decodeRequestHeader(frame);
      const request = handler.api.readRequest(reader, version);
      ctx = new DispatchContext(header, version, conn, this.services, metered, handler, request);
    } catch (e) {
      if (e instanceof DecodeError)
        return close(`malformed ${handler.api.name} v${version} request: ${e.message}`);
      throw e;
    }
    // Quotas: one flag check unless a quota was ever configured (quota/request-throttle.ts).
    if (this.services.quotas?.enabled === true) {
      ctx.quota = RequestQuotaCheck.begin(this.services.quotas, key, frame.length, ctx.request, {
        user: quotaUser(conn.security?.principal),
        clientId: ctx.header.clientId ?? '',
      });
      ctx.startedMs = performance.now();
    }
    return ctx;
  }

  /** The outcome of a request whose handler returned `result`. */
  #finish(ctx: DispatchContext, result: unknown): RequestOutcome {
    const { handler, version, quota } = ctx;
    const correlationId = ctx.header.correlationId;
    const metrics = this.services.metrics;
    let recorder: (() => void) | undefined;
    if (metrics) {
      metrics.timer.settled();
      const stats = metrics.requests.api(ctx.metricName);
      stats.counted(version);
      if (typeof result === 'object' && result !== null && !(result instanceof CloseConnection))
        stats.countErrors(result, handler.api.key);
      if (ctx.timing) recorder = ctx.timing.handled(stats);
    }
    const onSent = ctx.afterSent(recorder);
    if (result === NO_RESPONSE || result instanceof CloseConnection) {
      onSent?.();
      if (result !== NO_RESPONSE) return close(result.reason);
      const throttleMs = quota?.finish(null, 0, Date.now()).throttleMs ?? 0;
      return throttleMs > 0 ? { kind: 'none', throttleMs } : { kind: 'none' };
    }
    const encodeStarted = quota === null ? 0 : performance.now();
    let chunks = this.encode(handler, version, correlationId, result);
    if (quota === null) return onSent ? { kind: 'respond', chunks, onSent } : { kind: 'respond', chunks };
    quota.handlingMs += performance.now() - encodeStarted;
    let bytes = 0;
    for (const c of chunks) bytes += c.length;
    const { throttleMs, body } = quota.finish(result, bytes, Date.now());
    if (body !== null) chunks = this.encode(handler, version, correlationId, body);
    return {
      kind: 'respond',
      chunks,
      ...(onSent ? { onSent } : {}),
      ...(throttleMs > 0 ? { throttleMs } : {}),
    };
  }

  private encode(handler: AnyApiHandler, version: number, correlationId: number, result: unknown): Buffer[] {
    try {
      return encodeResponse(handler.api, version, correlationId, result);
    } catch (e) {
      const bounded =
        e instanceof EncodeError && e.code === 'STRING_TOO_LONG' ? withBoundedStrings(result) : null;
      if (!bounded?.changed) throw e;
      return encodeResponse(handler.api, version, correlationId, bounded.value as typeof result);
    }
  }
}
