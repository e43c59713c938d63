// Fetch (key 1), v0-17, for consumers and followers. v0-9 answers are adapted as Kafka does
// (`legacy-fetch.ts`: down-conversion to magic 0/1 for v0-3, no zstd topics before v10).
// Fetch sessions (KIP-227, v7+): `fetch-session-context.ts` decides what a request reads (its
// partitions, or every partition of its incremental session) and which answers it sends (all for
// a full fetch — the Java client rejects a full response that omits one — only the changed ones
// for an incremental fetch); the sessions live in `broker.fetchSessions`. Reads stop at the high
// watermark, or at the LSO for
// read_committed (isolation level 1, the default of three of our four clients), whose answer
// carries AbortedTransactions. The first non-empty partition always gets its first batch whole,
// even above MaxBytes/PartitionMaxBytes (KIP-74). Fewer than MinBytes → park until an append
// or MaxWaitMs, then read again. v13+ names topics by id. v15+ carries ReplicaId in ReplicaState.
// A fetch with a replica id ≥ 0 is a follower's (`replica/follower-read.ts`): read up to the log
// end offset, its position recorded by the leader (HW, ISR), a diverging epoch answered at once.
// Record bytes read from files go into pooled buffers (`broker.buffers`), returned to the pool
// once the response has been written: a fresh 1 MB buffer per partition read cost page faults
// and external-memory GCs that dominated the broker's CPU while serving consumers.

import { ErrorCode, KafkaError } from '../../protocol/errors.js';
import {
  type FetchRequest,
  type FetchResponse,
  type FetchResponsePartitionData,
  fetchApi,
} from '../../protocol/messages/generated/fetch.js';
import type { PartitionLog } from '../../storage/index.js';
import { remoteWait } from '../metrics/request-stats.js';
import { type WatchedLog, waitForAppend } from '../replica/delayed-fetch.js';
import { checkDivergence, readForFollower } from '../replica/follower-read.js';
import { defineApi, type RequestContext } from './api.js';
import { deniedFetchTopics } from './authorize.js';
import {
  defaultFetchSessionCache,
  type FetchTarget,
  newFetchContext,
  respondInContext,
} from './fetch-session-context.js';
import { leaderEpochError } from './leader-epoch-check.js';
import { adaptOldFetchAnswer, needsOldFetchAdaptation } from './legacy-fetch.js';
import { notHostedError } from './partition-errors.js';
import type { BrokerServices } from './services.js';

const READ_COMMITTED = 1;

type Target = FetchTarget;
/** Sessions of handlers whose services have no cache (hand-made test services). */
let fallbackSessions: ReturnType<typeof defaultFetchSessionCache> | undefined;
function fallbackSessionCache(): ReturnType<typeof defaultFetchSessionCache> {
  fallbackSessions ??= defaultFetchSessionCache();
  return fallbackSessions;
}

// Shared by every answer that has no records / no diverging epoch…: never mutated (answers
// replace these fields, as `divergingEpoch` below), frozen so that a mutation would throw.
const NO_RECORDS = Buffer.alloc(0);
const NO_DIVERGING_EPOCH = Object.freeze({ epoch: -1, endOffset: -1n });
const NO_LEADER = Object.freeze({ leaderId: -1, leaderEpoch: -1 });
const NO_SNAPSHOT = Object.freeze({ endOffset: -1n, epoch: -1 });

function emptyPartition(index: number, errorCode: number): FetchResponsePartitionData {
  return {
    partitionIndex: index,
    errorCode,
    highWatermark: -1n,
    lastStableOffset: -1n,
    logStartOffset: -1n,
    divergingEpoch: NO_DIVERGING_EPOCH,
    currentLeader: NO_LEADER,
    snapshotId: NO_SNAPSHOT,
    abortedTransactions: null,
    preferredReadReplica: -1,
    records: NO_RECORDS,
  };
}

/** The log's current offsets, for an answer without records. */
function fillOffsets(out: FetchResponsePartitionData, log: PartitionLog): void {
  out.highWatermark = log.highWatermark;
  out.lastStableOffset = log.lastStableOffset;
  out.logStartOffset = log.logStartOffset;
}

/** The fetching follower (replica id ≥ 0); `firstPass`: its position is recorded on this pass. */
interface FollowerFetcher {
  readonly replicaId: number;
  readonly replicaEpoch: bigint;
  readonly firstPass: boolean;
}

/** One pass over every requested partition; returns the answers and the record bytes. */
async function readAll(
  broker: BrokerServices,
  targets: readonly Target[],
  maxBytes: number,
  readCommitted: boolean,
  logs: WatchedLog[],
  allocate: ((size: number) => Buffer) | undefined,
  follower: FollowerFetcher | null,
  /** Topics the principal may not read (ACLs); null: none. */
  denied: ReadonlySet<string> | null = null,
): Promise<{ responses: FetchResponse['responses']; bytes: number; error: boolean }> {
  let bytes = 0;
  let error = false;
  const responses: FetchResponse['responses'] = [];
  for (const t of targets) {
    const partitions: FetchResponsePartitionData[] = [];
    for (const rp of t.partitions) {
      if (denied !== null && !t.unknownId && denied.has(t.topic)) {
        error = true;
        partitions.push(emptyPartition(rp.index, ErrorCode.TOPIC_AUTHORIZATION_FAILED));
        continue;
      }
      const p = t.unknownId ? undefined : broker.replicas.get(t.topic, rp.index);
      if (!p) {
        error = true;
        partitions.push(
          emptyPartition(
            rp.index,
            t.unknownId ? ErrorCode.UNKNOWN_TOPIC_ID : notHostedError(broker, t.topic, rp.index),
          ),
        );
        continue;
      }
      logs.push({ log: p.log, highWatermark: p.log.highWatermark });
      if (follower !== null) {
        const r = await readForFollower(p, {
          replicaId: follower.replicaId,
          replicaEpoch: follower.replicaEpoch,
          fetchOffset: rp.fetchOffset,
          currentLeaderEpoch: rp.currentLeaderEpoch,
          lastFetchedEpoch: rp.lastFetchedEpoch,
          logStartOffset: rp.logStartOffset,
          maxBytes: Math.min(rp.maxBytes, Math.max(0, maxBytes - bytes)),
          minOneBatch: bytes === 0,
          allocate,
          updateFetchState: follower.firstPass,
        });
        const out = emptyPartition(rp.index, r.errorCode);
        out.highWatermark = r.highWatermark;
        out.lastStableOffset = r.lastStableOffset;
        out.logStartOffset = r.logStartOffset;
        out.records = r.records;
        if (r.divergingEpoch !== null) out.divergingEpoch = { ...r.divergingEpoch };
        // A diverging epoch is answered at once, as an error is.
        if (r.errorCode !== ErrorCode.NONE || r.divergingEpoch !== null) error = true;
        bytes += r.records.length;
        partitions.push(out);
        continue;
      }
      const log = p.log;
      const epochError = leaderEpochError(rp.currentLeaderEpoch, p.leaderEpoch);
      const base = emptyPartition(rp.index, ErrorCode.NONE);
      if (!p.isLeader || epochError !== ErrorCode.NONE) {
        error = true;
        base.errorCode = p.isLeader ? epochError : ErrorCode.NOT_LEADER_OR_FOLLOWER;
        partitions.push(base);
        continue;
      }
      // A consumer that read records of an epoch this log ended earlier (a leader change
      // truncated them) learns where the logs part, answered at once as an error is.
      const divergence = checkDivergence(p, rp.fetchOffset, rp.lastFetchedEpoch);
      if (divergence !== null) {
        error = true;
        fillOffsets(base, log);
        if (typeof divergence === 'number') base.errorCode = divergence;
        else base.divergingEpoch = { ...divergence };
        partitions.push(base);
        continue;
      }
      // Nothing new (at or past the HW/LSO, within the log): answered from the log's offsets
      // alone — no segment lookup, no promise — as `read` would answer it. Sessions and long
      // polls ask this of every partition on every pass.
      const highWatermark = log.highWatermark;
      const lastStableOffset = log.lastStableOffset;
      const logStartOffset = log.logStartOffset;
      if (
        rp.fetchOffset >= (readCommitted ? lastStableOffset : highWatermark) &&
        rp.fetchOffset >= logStartOffset &&
        rp.fetchOffset <= log.logEndOffset
      ) {
        base.highWatermark = highWatermark;
        base.lastStableOffset = lastStableOffset;
        base.logStartOffset = logStartOffset;
        if (readCommitted) base.abortedTransactions = [];
        partitions.push(base);
        continue;
      }
      try {
        const limit = Math.min(rp.maxBytes, Math.max(0, maxBytes - bytes));
        const r = await log.read(rp.fetchOffset, {
          maxBytes: limit,
          upperBound: readCommitted ? 'lso' : 'hw',
          minOneBatch: bytes === 0,
          allocate,
        });
        base.highWatermark = r.highWatermark;
        base.lastStableOffset = r.lastStableOffset;
        base.logStartOffset = r.logStartOffset;
        base.records = r.records;
        if (readCommitted) base.abortedTransactions = r.abortedTransactions ?? [];
        bytes += r.records.length;
      } catch (e) {
        if (!(e instanceof KafkaError)) throw e;
        error = true;
        base.errorCode = e.code;
        fillOffsets(base, log);
      }
      partitions.push(base);
    }
    responses.push({ topic: t.topic, topicId: t.topicId, partitions });
  }
  return { responses, bytes, error };
}

/**
 * Read buffers from the broker's pool for one Fetch. `allocate` is handed to the log reads;
 * every buffer goes back once nothing references it: after the response was written, or at
 * once when a long-poll pass is discarded. Only with a pool and a connection that reports when
 * the response has left (hand-made test contexts have neither).
 */
function pooledReads(ctx: RequestContext): {
  allocate: (size: number) => Buffer;
  releaseNow: () => void;
  releaseAfterResponse: () => void;
} | null {
  const pool = ctx.broker.buffers;
  const onSent = ctx.onResponseSent;
  if (pool === undefined || onSent === undefined) return null;
  let lent: Buffer[] = [];
  const take = (): Buffer[] => {
    const bufs = lent;
    lent = [];
    return bufs;
  };
  return {
    allocate(size) {
      const b = pool.acquire(size);
      lent.push(b);
      return b;
    },
    releaseNow() {
      for (const b of take()) pool.release(b);
    },
    releaseAfterResponse() {
      const bufs = take();
      if (bufs.length > 0)
        onSent(() => {
          for (const b of bufs) pool.release(b);
        });
    },
  };
}

function resolveTargets(broker: BrokerServices, req: FetchRequest, version: number): Target[] {
  return req.topics.map((t) => {
    const partitions = t.partitions.map((p) => ({
      index: p.partition,
      fetchOffset: p.fetchOffset,
      maxBytes: p.partitionMaxBytes,
      currentLeaderEpoch: p.currentLeaderEpoch,
      lastFetchedEpoch: p.lastFetchedEpoch,
      logStartOffset: p.logStartOffset,
    }));
    if (version < 13) return { topic: t.topic, topicId: t.topicId, partitions, unknownId: false };
    const img = broker.image.topicById(t.topicId);
    return { topic: img?.name ?? '', topicId: t.topicId, partitions, unknownId: !img };
  });
}

export default defineApi<FetchRequest, FetchResponse>({
  api: fetchApi,
  minVersion: 0,
  maxVersion: 17,
  async handle(ctx, req) {
    const { broker, version } = ctx;
    const replicaId = version >= 15 ? req.replicaState.replicaId : req.replicaId;
    const sessions = broker.fetchSessions ?? fallbackSessionCache();
    const context = newFetchContext(sessions, broker.image, req, version, replicaId >= 0, Date.now());
    if (context.kind === 'error') {
      const answer = respondInContext(context, sessions, [], [], Date.now());
      return { throttleTimeMs: 0, ...answer, nodeEndpoints: [] };
    }
    const targets = context.kind === 'incremental' ? context.targets : resolveTargets(broker, req, version);
    const maxBytes = Math.min(
      req.maxBytes > 0 ? req.maxBytes : broker.config.fetchMaxBytes,
      broker.config.fetchMaxBytes,
    );
    const readCommitted = req.isolationLevel === READ_COMMITTED;
    const denied = deniedFetchTopics(ctx, replicaId >= 0, targets);
    const deadline = Date.now() + Math.max(0, req.maxWaitMs);
    const reads = pooledReads(ctx);
    const replicaEpoch = version >= 15 ? req.replicaState.replicaEpoch : -1n;
    for (let pass = 0; ; pass++) {
      const logs: WatchedLog[] = [];
      const follower = replicaId >= 0 ? { replicaId, replicaEpoch, firstPass: pass === 0 } : null;
      const result = await readAll(
        broker,
        targets,
        maxBytes,
        readCommitted,
        logs,
        reads?.allocate,
        follower,
        denied,
      );
      const remaining = deadline - Date.now();
      const satisfied = result.bytes >= req.minBytes || result.error || remaining <= 0 || logs.length === 0;
      // Without an append since the read, the answer we have is still the right one.
      if (
        satisfied ||
        broker.replicas.isClosing ||
        (await remoteWait(ctx.timing, waitForAppend(logs, remaining, broker.replicas))) !== 'data'
      ) {
        // Only partitions without records are left out, so no read buffer is dropped here.
        const answer = respondInContext(context, sessions, targets, result.responses, Date.now());
        // Every partition read counts, even those a session answer leaves out (Kafka counts its
        // reads, before any down-conversion).
        if (answer.errorCode === ErrorCode.NONE)
          broker.metrics?.topics.fetchReads(result.responses, (t) => broker.image.topic(t) !== undefined);
        if (needsOldFetchAdaptation(version))
          await adaptOldFetchAnswer(broker, version, req, answer.responses, replicaId >= 0);
        reads?.releaseAfterResponse();
        broker.metrics?.topics.fetched(answer.responses, replicaId >= 0);
        return { throttleTimeMs: 0, ...answer, nodeEndpoints: [] };
      }
      // This pass's answer is dropped: nothing references its buffers any more.
      reads?.releaseNow();
    }
  },
});
