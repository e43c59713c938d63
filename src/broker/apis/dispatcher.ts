// Turns a request frame into an outcome for the connection: reads the fixed header prefix,
// finds the handler, checks the version, decodes, handles, encodes. Failure modes follow Kafka's
// SocketServer: an unknown API key, an unsupported version (except ApiVersions) or a body that
// does not decode closes the connection; ApiVersions with an unknown version gets the KIP-511
// answer (v0 body, UNSUPPORTED_VERSION, our key-18 range).

import { ErrorCode } from '../../protocol/errors.js';
import { decodeRequestHeader, encodeResponse } from '../../protocol/messages/frame.js';
import { apiVersionsApi } from '../../protocol/messages/generated/api-versions.js';
import { DecodeError, EncodeError } from '../../protocol/primitives/errors.js';
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

  async #handle(frame: Buffer, conn: ConnectionContext): Promise<RequestOutcome> {
    if (frame.length < FIXED_HEADER_BYTES) return close(`truncated request header (${frame.length} bytes)`);
    const key = frame.readInt16BE(0);
    const version = frame.readInt16BE(2);
    const correlationId = frame.readInt32BE(4);
    const handler = this.services.registry.get(key);
    if (!handler) return close(`unknown API key ${key}`);
    if (version < handler.minVersion || version > handler.maxVersion) {
      if (key !== API_VERSIONS_KEY) return close(`unsupported version ${version} of API key ${key}`);
      const body = apiVersionsResponse(ErrorCode.UNSUPPORTED_VERSION, [
        { apiKey: API_VERSIONS_KEY, minVersion: handler.minVersion, maxVersion: handler.maxVersion },
      ]);
      return { kind: 'respond', chunks: encodeResponse(apiVersionsApi, 0, correlationId, body) };
    }
    let ctx: RequestContext;
    let request: unknown;
    const sent: (() => void)[] = [];
    const metered = this.services.metrics?.timer.start(frame);
    try {
      const { header, reader } = decodeRequestHeader(frame);
      request = handler.api.readRequest(reader, version);
      ctx = {
        header,
        version,
        conn,
        broker: this.services,
        onResponseSent: (cb) => sent.push(cb),
        timing: metered,
      };
    } catch (e) {
      if (e instanceof DecodeError)
        return close(`malformed ${handler.api.name} v${version} request: ${e.message}`);
      throw e;
    }
    // Quotas: one flag check unless a quota was ever configured (quota/request-throttle.ts).
    const quota =
      this.services.quotas?.enabled === true
        ? RequestQuotaCheck.begin(this.services.quotas, key, frame.length, request, {
            user: quotaUser(conn.security?.principal),
            clientId: ctx.header.clientId ?? '',
          })
        : null;
    const started = quota === null ? 0 : performance.now();
    const pending = handler.handle(ctx, request);
    if (quota !== null) quota.handlingMs += performance.now() - started;
    const result = await pending;
    const metrics = this.services.metrics;
    if (metrics) {
      metrics.timer.settled();
      const stats = metrics.requests.api(requestMetricName(handler.api.name, request));
      stats.counted(version);
      if (metered) sent.push(metered.handled(stats));
    }
    // The metrics recorder alone needs no `once` wrapper: it records the first time only.
    const onSent = sent.length === 0 ? undefined : metered && sent.length === 1 ? sent[0] : once(sent);
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
