// What a Fetch request means for fetch sessions (KIP-227, Kafka's FetchManager.newContext), and
// how its answer is shaped by them. `01-fetch.ts` reads the partitions `targets` names, then asks
// `respond` for the top-level error, the session id and the partitions to send.
//
// SessionId / SessionEpoch (absent before v7: 0 / -1):
//   epoch 0 or -1 (full): the named session, if any, is closed; epoch 0 then opens a new one
//     over the request's partitions once the answer is known (if the cache has or makes room;
//     otherwise the answer carries SessionId 0 and the fetcher stays sessionless), epoch -1
//     opens none.
//   any other epoch (incremental): the session must exist (else FETCH_SESSION_ID_NOT_FOUND),
//     expect this epoch (else INVALID_FETCH_SESSION_EPOCH) and name topics the way this version
//     does (else FETCH_SESSION_TOPIC_ID_ERROR). The request's partitions are added or update
//     the cached ones, `ForgottenTopicsData` removes partitions (unknown ones are ignored), and
//     every partition of the session is read. A session left empty is closed and the request
//     answered sessionless.
// An incremental answer holds only the partitions that must be sent (Kafka's rule): records
// were read, the HW or the log start offset differs from the one last sent for it (a partition
// the request added has none yet, so it is always sent), an error or a diverging epoch; we also
// send a changed LSO, which Kafka's rule does not name: the LSO only moves with the HW in both
// logs, so this adds nothing in practice but keeps read_committed fetchers right if that ever
// stops being true. A partition answered with an error
// forgets its HW, so it is sent again once the error is gone. A partition that returned records
// moves to the end of the session's order, so a MaxBytes-limited fetch serves the others next.

import { ErrorCode } from '../../protocol/errors.js';
import type {
  FetchRequest,
  FetchResponse,
  FetchResponseFetchableTopicResponse,
} from '../../protocol/messages/generated/fetch.js';
import type { MetadataView } from '../metadata/cluster-image.js';
import { ZERO_UUID } from '../metadata/uuid.js';
import {
  type CachedPartition,
  cachedPartitionKey,
  DEFAULT_FETCH_SESSION_CACHE_SLOTS,
  type FetchSession,
  FetchSessionCache,
} from '../replica/fetch-session-cache.js';

export const INVALID_SESSION_ID = 0;
export const INITIAL_EPOCH = 0;
export const FINAL_EPOCH = -1;
const FIRST_TOPIC_ID_VERSION = 13;

/** A cache for handlers built without one (hand-made test services): Kafka's default size. */
export function defaultFetchSessionCache(): FetchSessionCache {
  return new FetchSessionCache({ maxEntries: DEFAULT_FETCH_SESSION_CACHE_SLOTS });
}

function nextEpoch(epoch: number): number {
  if (epoch < 0) return FINAL_EPOCH;
  return epoch === 0x7fffffff ? 1 : epoch + 1;
}

/** The partitions of one topic to read, in the shape `01-fetch.ts` reads them. */
export interface FetchTarget {
  readonly topic: string;
  readonly topicId: string;
  readonly partitions: {
    readonly index: number;
    readonly fetchOffset: bigint;
    readonly maxBytes: number;
    readonly currentLeaderEpoch: number;
    readonly lastFetchedEpoch: number;
    readonly logStartOffset: bigint;
    /** The session's entry (incremental contexts): the answer is compared with it, no lookup. */
    readonly cached?: CachedPartition;
  }[];
  /** Set when the topic id is unknown (v13+). */
  readonly unknownId: boolean;
}

export type FetchContext =
  /** Read what the request names; the answer carries SessionId 0. */
  | { readonly kind: 'sessionless' }
  /** Read what the request names; open a session over it with the answer. */
  | { readonly kind: 'full'; readonly privileged: boolean; readonly usesTopicIds: boolean }
  /** Read every partition of the session; answer only what changed. */
  | {
      readonly kind: 'incremental';
      readonly session: FetchSession;
      readonly requestEpoch: number;
      readonly targets: FetchTarget[];
    }
  /** Answer the error at once, with no partitions. */
  | { readonly kind: 'error'; readonly errorCode: number };

/** Kafka's FetchManager.newContext. Updates the session of an incremental request. */
export function newFetchContext(
  cache: FetchSessionCache,
  image: MetadataView,
  req: FetchRequest,
  version: number,
  isFollower: boolean,
  now: number,
): FetchContext {
  const usesTopicIds = version >= FIRST_TOPIC_ID_VERSION;
  if (req.sessionEpoch === INITIAL_EPOCH || req.sessionEpoch === FINAL_EPOCH) {
    if (req.sessionId !== INVALID_SESSION_ID) cache.remove(req.sessionId);
    return req.sessionEpoch === FINAL_EPOCH
      ? { kind: 'sessionless' }
      : { kind: 'full', privileged: isFollower, usesTopicIds };
  }
  const session = cache.get(req.sessionId);
  if (session === undefined) return { kind: 'error', errorCode: ErrorCode.FETCH_SESSION_ID_NOT_FOUND };
  if (session.epoch !== req.sessionEpoch)
    return { kind: 'error', errorCode: ErrorCode.INVALID_FETCH_SESSION_EPOCH };
  if (session.usesTopicIds !== usesTopicIds)
    return { kind: 'error', errorCode: ErrorCode.FETCH_SESSION_TOPIC_ID_ERROR };
  updateSession(session, req);
  if (session.partitions.size === 0) {
    cache.remove(session.id);
    return { kind: 'sessionless' };
  }
  cache.touch(session, now);
  session.epoch = nextEpoch(session.epoch);
  return {
    kind: 'incremental',
    session,
    requestEpoch: req.sessionEpoch,
    targets: sessionTargets(session, image),
  };
}

/** Adds and updates the request's partitions, then removes the forgotten ones (Kafka's order). */
function updateSession(session: FetchSession, req: FetchRequest): void {
  const ids = session.usesTopicIds;
  for (const t of req.topics) {
    for (const p of t.partitions) {
      const k = cachedPartitionKey(ids, t.topic, t.topicId, p.partition);
      const cached = session.partitions.get(k);
      if (cached === undefined) {
        session.partitions.set(k, {
          topic: ids ? '' : t.topic,
          topicId: ids ? t.topicId : ZERO_UUID,
          partition: p.partition,
          fetchOffset: p.fetchOffset,
          maxBytes: p.partitionMaxBytes,
          currentLeaderEpoch: p.currentLeaderEpoch,
          lastFetchedEpoch: p.lastFetchedEpoch,
          fetcherLogStartOffset: p.logStartOffset,
          highWatermark: -1n,
          lastStableOffset: -1n,
          localLogStartOffset: -1n,
        });
      } else {
        cached.fetchOffset = p.fetchOffset;
        cached.maxBytes = p.partitionMaxBytes;
        cached.currentLeaderEpoch = p.currentLeaderEpoch;
        cached.lastFetchedEpoch = p.lastFetchedEpoch;
        cached.fetcherLogStartOffset = p.logStartOffset;
      }
    }
  }
  for (const t of req.forgottenTopicsData)
    for (const partition of t.partitions)
      session.partitions.delete(cachedPartitionKey(ids, t.topic, t.topicId, partition));
}

/** The session's partitions in its order, consecutive partitions of a topic sharing a target. */
function sessionTargets(session: FetchSession, image: MetadataView): FetchTarget[] {
  const out: FetchTarget[] = [];
  let last: FetchTarget | undefined;
  for (const c of session.partitions.values()) {
    if (
      last === undefined ||
      last.topicId !== c.topicId ||
      (!session.usesTopicIds && last.topic !== c.topic)
    ) {
      if (session.usesTopicIds) {
        // Resolved at each request: a topic deleted meanwhile is UNKNOWN_TOPIC_ID from now on.
        const name = image.topicById(c.topicId)?.name;
        last = { topic: name ?? '', topicId: c.topicId, partitions: [], unknownId: name === undefined };
      } else {
        last = { topic: c.topic, topicId: ZERO_UUID, partitions: [], unknownId: false };
      }
      out.push(last);
    }
    last.partitions.push({
      index: c.partition,
      fetchOffset: c.fetchOffset,
      maxBytes: c.maxBytes,
      currentLeaderEpoch: c.currentLeaderEpoch,
      lastFetchedEpoch: c.lastFetchedEpoch,
      logStartOffset: c.fetcherLogStartOffset,
      cached: c,
    });
  }
  return out;
}

/** The session-dependent fields of the answer. */
export interface SessionAnswer {
  readonly errorCode: number;
  readonly sessionId: number;
  readonly responses: FetchResponse['responses'];
}

/**
 * Shapes the answer of a request whose partitions (`targets`, in order) were read into
 * `responses` (same order): opens the session of a full context, filters an incremental one.
 */
export function respondInContext(
  context: FetchContext,
  cache: FetchSessionCache,
  targets: readonly FetchTarget[],
  responses: FetchResponse['responses'],
  now: number,
): SessionAnswer {
  switch (context.kind) {
    case 'error':
      return { errorCode: context.errorCode, sessionId: INVALID_SESSION_ID, responses: [] };
    case 'sessionless':
      return { errorCode: ErrorCode.NONE, sessionId: INVALID_SESSION_ID, responses };
    case 'full': {
      const cached = fullSessionPartitions(context.usesTopicIds, targets, responses);
      const id = cache.maybeCreate(now, context.privileged, context.usesTopicIds, cached.size, () => cached);
      return { errorCode: ErrorCode.NONE, sessionId: id, responses };
    }
    case 'incremental': {
      const { session } = context;
      // Another request of this session (a duplicate) was taken while this one waited.
      if (session.epoch !== nextEpoch(context.requestEpoch))
        return { errorCode: ErrorCode.INVALID_FETCH_SESSION_EPOCH, sessionId: session.id, responses: [] };
      return {
        errorCode: ErrorCode.NONE,
        sessionId: session.id,
        responses: changedOnly(session, context.targets, responses),
      };
    }
  }
}

function fullSessionPartitions(
  ids: boolean,
  targets: readonly FetchTarget[],
  responses: FetchResponse['responses'],
): Map<string, CachedPartition> {
  const out = new Map<string, CachedPartition>();
  targets.forEach((t, i) => {
    const answered = responses[i]?.partitions;
    t.partitions.forEach((p, j) => {
      const r = answered?.[j];
      const failed = r === undefined || r.errorCode !== ErrorCode.NONE;
      out.set(cachedPartitionKey(ids, t.topic, t.topicId, p.index), {
        topic: ids ? '' : t.topic,
        topicId: ids ? t.topicId : ZERO_UUID,
        partition: p.index,
        fetchOffset: p.fetchOffset,
        maxBytes: p.maxBytes,
        currentLeaderEpoch: p.currentLeaderEpoch,
        lastFetchedEpoch: p.lastFetchedEpoch,
        fetcherLogStartOffset: p.logStartOffset,
        highWatermark: failed ? -1n : r.highWatermark,
        lastStableOffset: failed ? -1n : r.lastStableOffset,
        localLogStartOffset: r?.logStartOffset ?? -1n,
      });
    });
  });
  return out;
}

/** Kafka's CachedPartition.maybeUpdateResponseData over the whole answer (+ the LSO). */
function changedOnly(
  session: FetchSession,
  targets: readonly FetchTarget[],
  responses: FetchResponse['responses'],
): FetchResponse['responses'] {
  const out: FetchResponseFetchableTopicResponse[] = [];
  const withRecords: CachedPartition[] = [];
  for (let i = 0; i < responses.length; i++) {
    const t = responses[i]!;
    const asked = targets[i]?.partitions;
    const kept = t.partitions.filter((r, j) => {
      const c = asked?.[j]?.cached;
      if (c === undefined) return true;
      const hasRecords = r.records !== null && r.records.length > 0;
      let send = hasRecords;
      if (c.highWatermark !== r.highWatermark) {
        send = true;
        c.highWatermark = r.highWatermark;
      }
      if (c.lastStableOffset !== r.lastStableOffset) {
        send = true;
        c.lastStableOffset = r.lastStableOffset;
      }
      if (c.localLogStartOffset !== r.logStartOffset) {
        send = true;
        c.localLogStartOffset = r.logStartOffset;
      }
      if (r.preferredReadReplica >= 0 || r.divergingEpoch.epoch >= 0) send = true;
      if (r.errorCode !== ErrorCode.NONE) {
        send = true;
        c.highWatermark = -1n;
      }
      if (hasRecords) withRecords.push(c);
      return send;
    });
    if (kept.length > 0) out.push(kept.length === t.partitions.length ? t : { ...t, partitions: kept });
  }
  for (const c of withRecords) {
    const k = cachedPartitionKey(session.usesTopicIds, c.topic, c.topicId, c.partition);
    // Still the session's entry (nothing forgot it meanwhile: the epoch check above says so).
    if (session.partitions.get(k) !== c) continue;
    session.partitions.delete(k);
    session.partitions.set(k, c);
  }
  return out;
}
