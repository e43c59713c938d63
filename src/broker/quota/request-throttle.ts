// What the dispatcher does with quotas for one request, as Kafka's KafkaApis/RequestHandlerHelper:
// - Produce: the request's size is charged to the produce byte rate, its handling time to the
//   request quota (not with acks=0);
// - a consumer's Fetch: its max bytes are first capped to what the fetch quota allows in one
//   window; the response's size is charged to the fetch byte rate; a throttled fetch is answered
//   without data (its bytes taken back from the rate) so the client asks again after the pause;
//   a follower's Fetch is not client-quota'd;
// - every other request but the inter-broker ones: its handling time to the request quota.
// The throttle time is the larger of the two; it goes into the response's ThrottleTimeMs (for
// every response schema that has the field) and the connection is muted for that long after the
// response is written (Kafka 3.9 sends at once and mutes, whatever the request version).
//
// Handling time is the handler's synchronous part plus encoding — the time this request held
// the event loop, the single-threaded counterpart of Kafka's request-handler thread time (time
// parked in a long poll or awaiting the log is not charged, as Kafka does not charge purgatory).

import type { FetchRequest, FetchResponse } from '../../protocol/messages/generated/fetch.js';
import type { ProduceRequest } from '../../protocol/messages/generated/produce.js';
import type { BrokerQuotas } from './broker-quotas.js';
import type { QuotaIdentity } from './client-quota-manager.js';

const PRODUCE = 0;
const FETCH = 1;

/**
 * Cluster actions (LeaderAndIsr, StopReplica, UpdateMetadata, ControlledShutdown,
 * WriteTxnMarkers, AlterPartition) are exempt, as Kafka's sendResponseExemptThrottle; so are
 * the SASL exchange's requests, which Kafka answers before a request reaches its quotas.
 */
const EXEMPT = new Set([4, 5, 6, 7, 17, 27, 36, 56]);

/** Percent of one thread-second per millisecond of handling (Kafka: nanos × 100 / 1e9). */
const PERCENT_PER_MS = 100 / 1000;

/**
 * Is this request's client under a produce or request quota? Its requests are then handled one
 * at a time, as on every Kafka channel, instead of pipelined: the mute after a throttled response
 * must hold the client's next request, not find it already running (librdkafka pipelines
 * thousands). The client id is read from the request header (offset 8, a nullable string).
 */
export function quotaLimited(quotas: BrokerQuotas, frame: Buffer, principal: string | undefined): boolean {
  if (frame.length < 10) return false;
  const len = frame.readInt16BE(8);
  const clientId = len < 0 || frame.length < 10 + len ? '' : frame.toString('utf8', 10, 10 + len);
  const who = { user: quotaUser(principal), clientId };
  return (
    quotas.produce.quotaFor(who) !== Number.POSITIVE_INFINITY ||
    quotas.request.quotaFor(who) !== Number.POSITIVE_INFINITY
  );
}

/** `User:alice` → `alice`: Kafka charges quotas to the principal's name (`ANONYMOUS` without one). */
export function quotaUser(principal: string | undefined): string {
  if (principal === undefined) return 'ANONYMOUS';
  const colon = principal.indexOf(':');
  return colon < 0 ? principal : principal.slice(colon + 1);
}

export interface ThrottleDecision {
  readonly throttleMs: number;
  /** A replacement response body (throttle time set, a throttled fetch emptied); null = keep. */
  readonly body: unknown;
}

const NO_THROTTLE: ThrottleDecision = { throttleMs: 0, body: null };

export class RequestQuotaCheck {
  /** Time this request held the event loop so far (ms). */
  handlingMs = 0;

  private constructor(
    private readonly quotas: BrokerQuotas,
    private readonly key: number,
    private readonly frameBytes: number,
    private readonly request: unknown,
    private readonly who: QuotaIdentity,
  ) {}

  /**
   * The check of a decoded request, null when it is exempt; caps a consumer fetch's max bytes
   * (changing `request`) before the handler runs.
   */
  static begin(
    quotas: BrokerQuotas,
    key: number,
    frameBytes: number,
    request: unknown,
    who: QuotaIdentity,
  ): RequestQuotaCheck | null {
    if (EXEMPT.has(key)) return null;
    if (key === FETCH) {
      const fetch = request as FetchRequest;
      if (fetch.replicaId >= 0 || (fetch.replicaState?.replicaId ?? -1) >= 0) return null;
      const cap = quotas.fetch.maxValueInWindow(who);
      if (cap < fetch.maxBytes) {
        fetch.maxBytes = Math.max(0, Math.floor(cap));
        fetch.minBytes = Math.min(fetch.minBytes, fetch.maxBytes);
      }
    }
    return new RequestQuotaCheck(quotas, key, frameBytes, request, who);
  }

  /** Records the request's usage; `result` is the handler's response body (null: no response). */
  finish(result: unknown, responseBytes: number, nowMs: number): ThrottleDecision {
    const { quotas, who } = this;
    const charged = !(this.key === PRODUCE && (this.request as ProduceRequest).acks === 0);
    const requestMs = charged
      ? quotas.request.recordAndGetThrottleTimeMs(who, this.handlingMs * PERCENT_PER_MS, nowMs)
      : 0;
    let bandwidthMs = 0;
    let body: unknown = null;
    if (this.key === PRODUCE) {
      bandwidthMs = quotas.produce.recordAndGetThrottleTimeMs(who, this.frameBytes, nowMs);
    } else if (this.key === FETCH && result !== null) {
      bandwidthMs = quotas.fetch.recordAndGetThrottleTimeMs(who, responseBytes, nowMs);
      if (Math.max(bandwidthMs, requestMs) > 0) {
        quotas.fetch.unrecord(who, responseBytes, nowMs);
        body = { ...(result as FetchResponse), errorCode: 0, responses: [], nodeEndpoints: [] };
      }
    }
    const throttleMs = Math.max(bandwidthMs, requestMs);
    if (throttleMs === 0) return NO_THROTTLE;
    // As Kafka, the quota that decided the throttle records it.
    if (bandwidthMs > requestMs)
      (this.key === PRODUCE ? quotas.produce : quotas.fetch).recordThrottle(who, bandwidthMs, nowMs);
    else quotas.request.recordThrottle(who, requestMs, nowMs);
    const base = body ?? result;
    if (base !== null && typeof base === 'object' && 'throttleTimeMs' in base)
      body = { ...base, throttleTimeMs: throttleMs };
    return { throttleMs, body };
  }
}
