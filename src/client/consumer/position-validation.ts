// Validates fetch positions after a leader change (KIP-320, as Java's OffsetFetcher and
// SubscriptionState): a partition awaiting validation asks its new leader, with
// OffsetsForLeaderEpoch (v3+, CurrentLeaderEpoch = the epoch metadata knows), where the leader
// epoch of the position's last record ends in the leader's log. An end offset below the position
// means records the consumer already returned are gone from the log (an unclean leader change
// truncated them): with a reset policy the position moves back to that end offset — the first
// offset known to diverge, not the policy's earliest/latest — and without one poll() raises
// LogTruncationError. An unknown epoch/offset in the answer means the leader shares nothing
// known: reset by the policy, or LogTruncationError without a divergent offset.
//
// Leader errors (NOT_LEADER_OR_FOLLOWER, FENCED_LEADER_EPOCH: our metadata is older than the
// broker's) refresh metadata and retry after retry.backoff.ms; UNKNOWN_LEADER_EPOCH (the broker
// has not heard of the new epoch yet) just retries. A leader that does not offer v3+ is trusted
// without a check, as Java does. Answers for a partition that was seeked, reset or re-validated
// meanwhile are ignored (its `epoch` changed).
import { ErrorCode } from '../../protocol/errors.js';
import {
  type OffsetForLeaderEpochResponse,
  offsetForLeaderEpochApi,
} from '../../protocol/messages/generated/offset-for-leader-epoch.js';
import type { BrokerPool } from '../broker-pool.js';
import {
  ClientClosedError,
  KafkaClientError,
  KafkaResponseError,
  UnsupportedVersionError,
} from '../errors.js';
import type { Metadata } from '../metadata.js';
import type { ResolvedConsumerOptions } from './consumer-config.js';
import { type LogTruncation, LogTruncationError } from './consumer-errors.js';
import type { PartitionState, ResetStrategy, SubscriptionState } from './subscription-state.js';
import { tpKey } from './types.js';

/** The leader's answer for one partition: where `leaderEpoch` ends in its log (−1/−1: unknown). */
export interface EpochEndOffset {
  leaderEpoch: number;
  endOffset: bigint;
}

/** First version with the ReplicaId field: what Java requires before it validates at all. */
const MIN_VALIDATION_VERSION = 3;

/**
 * Applies a leader's end offset to a partition awaiting validation (Java's
 * maybeCompleteValidation). Returns the truncation to report when there is no reset policy.
 */
export function completeValidation(
  s: PartitionState,
  answer: EpochEndOffset,
  policy: ResetStrategy,
): LogTruncation | null {
  const position = s.position!;
  const truncation = (divergentOffset: bigint | null, divergentEpoch: number): LogTruncation => ({
    topic: s.topic,
    partition: s.partition,
    offset: position,
    offsetEpoch: s.positionLeaderEpoch,
    divergentOffset,
    divergentEpoch,
  });
  if (answer.endOffset < 0n || answer.leaderEpoch < 0) {
    if (policy === 'none') return truncation(null, -1);
    s.requestReset(policy);
    return null;
  }
  if (answer.endOffset < position) {
    if (policy === 'none') return truncation(answer.endOffset, answer.leaderEpoch);
    s.seek(answer.endOffset, answer.leaderEpoch);
    return null;
  }
  s.awaitingValidation = false;
  return null;
}

interface Asked {
  state: PartitionState;
  /** The partition's epoch when asked: a different one means the answer is stale. */
  epoch: number;
}

export class PositionValidator {
  readonly #pool: BrokerPool;
  readonly #metadata: Metadata;
  readonly #subs: SubscriptionState;
  readonly #opts: ResolvedConsumerOptions;
  readonly #done: () => void;
  readonly #asking = new Set<string>();
  #error: Error | null = null;

  constructor(
    pool: BrokerPool,
    metadata: Metadata,
    subs: SubscriptionState,
    opts: ResolvedConsumerOptions,
    done: () => void,
  ) {
    this.#pool = pool;
    this.#metadata = metadata;
    this.#subs = subs;
    this.#opts = opts;
    this.#done = done;
  }

  /** Throws (once) a LogTruncationError or a non-retriable failure of the last validation. */
  takeError(): void {
    const e = this.#error;
    if (e !== null) {
      this.#error = null;
      throw e;
    }
  }

  /** Checks every position against the current leader and asks the leaders that need asking. */
  update(): void {
    const now = Date.now();
    const byLeader = new Map<number, PartitionState[]>();
    for (const s of this.#subs.assigned()) {
      s.updateLeader(this.#metadata.leaderAndEpoch(s.topic, s.partition));
      if (!s.awaitingValidation || s.validationRetryAt > now || this.#asking.has(s.key)) continue;
      const leader = s.leader;
      if (leader === null) continue;
      let list = byLeader.get(leader.id);
      if (list === undefined) {
        list = [];
        byLeader.set(leader.id, list);
      }
      list.push(s);
    }
    for (const [node, list] of byLeader) this.#ask(node, list);
  }

  #ask(node: number, list: PartitionState[]): void {
    const link = this.#pool.link(node);
    if (link === undefined) {
      this.#metadata.requestUpdate();
      this.#retryLater(list);
      return;
    }
    const asked = new Map<string, Asked>();
    const topics = new Map<
      string,
      { topic: string; partitions: { partition: number; currentLeaderEpoch: number; leaderEpoch: number }[] }
    >();
    for (const s of list) {
      let t = topics.get(s.topic);
      if (t === undefined) {
        t = { topic: s.topic, partitions: [] };
        topics.set(s.topic, t);
      }
      t.partitions.push({
        partition: s.partition,
        currentLeaderEpoch: s.leader!.epoch,
        leaderEpoch: s.positionLeaderEpoch,
      });
      asked.set(s.key, { state: s, epoch: s.epoch });
      this.#asking.add(s.key);
      // Java's rule: one attempt per request timeout, unless an answer says to retry sooner.
      s.validationRetryAt = Date.now() + this.#opts.requestTimeoutMs;
    }
    link
      .request(
        offsetForLeaderEpochApi,
        { replicaId: -1, topics: [...topics.values()] },
        { minVersion: MIN_VALIDATION_VERSION },
      )
      .then(
        (res) => this.#onResponse(res, asked),
        (err: unknown) => this.#onFailure(err, asked),
      )
      .finally(() => {
        for (const k of asked.keys()) this.#asking.delete(k);
        this.#done();
      });
  }

  #current(a: Asked): boolean {
    const s = a.state;
    return s.epoch === a.epoch && s.awaitingValidation && this.#subs.getByKey(s.key) === s;
  }

  #onFailure(err: unknown, asked: Map<string, Asked>): void {
    if (err instanceof UnsupportedVersionError) {
      // An old leader cannot tell: trust the position, as Java does.
      for (const a of asked.values()) if (this.#current(a)) a.state.awaitingValidation = false;
      return;
    }
    this.#opts.logger('debug', 'position validation failed, will retry', {
      error: err instanceof Error ? err.message : String(err),
    });
    this.#metadata.requestUpdate();
    this.#retryLater([...asked.values()].map((a) => a.state));
    // A closed link is one the pool dropped with its broker (a dead leader): retried like a
    // lost connection, on whichever leader metadata names next.
    const retriable = err instanceof ClientClosedError || (err instanceof KafkaClientError && err.retriable);
    if (!retriable) this.#error ??= err as Error;
  }

  #onResponse(res: OffsetForLeaderEpochResponse, asked: Map<string, Asked>): void {
    const answered = new Set<string>();
    const truncations: LogTruncation[] = [];
    for (const t of res.topics) {
      for (const p of t.partitions) {
        const key = tpKey(t.topic, p.partition);
        const a = asked.get(key);
        if (a === undefined) continue;
        answered.add(key);
        if (!this.#current(a)) continue;
        const s = a.state;
        if (p.errorCode === ErrorCode.NONE) {
          const before = s.position;
          const found = completeValidation(s, p, this.#opts.autoOffsetReset);
          if (found !== null) truncations.push(found);
          else if (s.position !== before || s.reset !== null)
            this.#opts.logger('info', 'log truncation detected, position moved', {
              topic: s.topic,
              partition: s.partition,
              offset: String(before),
              to: s.reset ?? String(s.position),
            });
          continue;
        }
        if (p.errorCode === ErrorCode.TOPIC_AUTHORIZATION_FAILED) {
          this.#error ??= new KafkaResponseError(
            p.errorCode,
            `OffsetForLeaderEpoch ${t.topic}-${p.partition}`,
          );
          continue;
        }
        // Every other error (leader moved, epoch fenced or not yet known, …) is retried.
        if (p.errorCode !== ErrorCode.UNKNOWN_LEADER_EPOCH) this.#metadata.requestUpdate();
        this.#retryLater([s]);
      }
    }
    for (const [key, a] of asked) if (!answered.has(key) && this.#current(a)) this.#retryLater([a.state]);
    if (truncations.length > 0) {
      for (const tr of truncations)
        this.#opts.logger('warn', 'log truncation detected and auto.offset.reset=none', {
          topic: tr.topic,
          partition: tr.partition,
          offset: String(tr.offset),
          divergentOffset: tr.divergentOffset === null ? 'unknown' : String(tr.divergentOffset),
        });
      this.#error = new LogTruncationError(truncations);
    }
  }

  #retryLater(list: PartitionState[]): void {
    const at = Date.now() + this.#opts.retryBackoffMs;
    for (const s of list) s.validationRetryAt = at;
  }
}
