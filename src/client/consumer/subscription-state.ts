// What the consumer consumes and where it stands: the subscription (topics, pattern or manual
// assignment), the assigned partitions and, per partition, the position (next offset to hand to
// the application), the fetch offset (next offset to request: ahead of the position while fetched
// data waits in the buffer), pause state and pending offset resets.
//
// Every seek or reset bumps the partition's `epoch`; fetched data and in-flight fetches remember
// the epoch they were made for and are dropped when it no longer matches, so a seek can never be
// undone by a late response.
//
// Position validation (KIP-320, as Java's SubscriptionState): a position remembers the leader
// (broker and leader epoch) it was last checked against. When metadata names another leader, a
// position that carries the leader epoch of its last record waits in "awaiting validation" —
// not fetched — until OffsetsForLeaderEpoch on the new leader says the log still holds it
// (`position-validation.ts`); buffered data from the old leader is dropped. Positions from
// committed offsets and from resets are validated the same way; a seek by the application
// carries no epoch and is not.
import { IllegalStateError } from '../errors.js';
import { type TopicPartition, tpKey } from './types.js';

export type ResetStrategy = 'earliest' | 'latest' | 'none';

/** A partition leader as metadata names it: broker id and leader epoch (−1 if unknown). */
export interface LeaderAndEpoch {
  id: number;
  epoch: number;
}

export class PartitionState {
  readonly topic: string;
  readonly partition: number;
  readonly key: string;
  /** Next offset to return to the application; null until known. */
  position: bigint | null = null;
  /** Leader epoch of the last record returned, −1 if unknown. */
  positionLeaderEpoch = -1;
  /** Next offset to fetch (≥ position when data is buffered). */
  fetchOffset = 0n;
  /** Leader epoch of the batch just below fetchOffset (Fetch's LastFetchedEpoch), −1 if unknown. */
  fetchEpoch = -1;
  /** The leader the position was last checked against; null until metadata named one. */
  leader: LeaderAndEpoch | null = null;
  /** The position must be checked against the leader's log before fetching resumes. */
  awaitingValidation = false;
  /** Earliest time of the next OffsetsForLeaderEpoch for this partition. */
  validationRetryAt = 0;
  /** Bumped on every seek/reset: older fetched data is stale. */
  epoch = 0;
  paused = false;
  /** A reset to apply before fetching (seekToBeginning/End or auto.offset.reset). */
  reset: ResetStrategy | null = null;
  /** Position must come from the group's committed offsets (or the reset policy). */
  needsCommitted = false;
  /** A fetch for this partition is in flight. */
  inFlight = false;
  /** Undelivered fetched bytes for this partition. */
  bufferedBytes = 0;
  highWatermark = -1n;
  lastStableOffset = -1n;
  logStartOffset = -1n;
  /** Earliest time the next fetch for this partition may be sent (backoff after errors). */
  backoffUntil = 0;

  constructor(topic: string, partition: number) {
    this.topic = topic;
    this.partition = partition;
    this.key = tpKey(topic, partition);
  }

  get hasValidPosition(): boolean {
    return this.position !== null && this.reset === null && !this.needsCommitted && !this.awaitingValidation;
  }

  /**
   * A position that needs no check (Java's seekValidated): the application's seek (no epoch),
   * or the divergence point found by a validation. The leader it was checked against is kept.
   */
  seek(offset: bigint, leaderEpoch = -1): void {
    this.position = offset;
    this.fetchOffset = offset;
    this.positionLeaderEpoch = leaderEpoch;
    this.fetchEpoch = leaderEpoch;
    this.reset = null;
    this.needsCommitted = false;
    this.awaitingValidation = false;
    this.validationRetryAt = 0;
    this.epoch++;
  }

  /**
   * A position from elsewhere (a committed offset, a reset) with the leader epoch it was
   * recorded under: checked against the current leader before fetching, if both epochs are known.
   */
  seekUnvalidated(offset: bigint, leaderEpoch: number, leader: LeaderAndEpoch | undefined): void {
    this.seek(offset, leaderEpoch);
    this.leader = leader ?? null;
    this.awaitingValidation = leaderEpoch >= 0 && leader !== undefined && leader.epoch >= 0;
  }

  requestReset(strategy: ResetStrategy): void {
    this.reset = strategy;
    this.needsCommitted = false;
    this.awaitingValidation = false;
    this.epoch++;
  }

  /**
   * Compares the position's leader with the one metadata names now (Java's
   * maybeValidatePositionForCurrentLeader). A new leader puts a position that carries an epoch
   * into validation; data buffered or in flight from the old leader is dropped and fetching
   * restarts at the position. Returns true if validation starts now.
   */
  updateLeader(current: LeaderAndEpoch | undefined): boolean {
    if (current === undefined || this.position === null || this.reset !== null || this.needsCommitted)
      return false;
    const known = this.leader;
    if (known !== null && known.id === current.id && known.epoch === current.epoch) return false;
    this.leader = { id: current.id, epoch: current.epoch };
    if (this.positionLeaderEpoch < 0 || current.epoch < 0) {
      this.awaitingValidation = false;
      return false;
    }
    this.fetchOffset = this.position;
    this.fetchEpoch = this.positionLeaderEpoch;
    this.epoch++;
    this.awaitingValidation = true;
    this.validationRetryAt = 0;
    return true;
  }

  /** Drops buffered and in-flight data and fetches again from the position. */
  refetchFromPosition(fetchEpoch: number): void {
    if (this.position === null) return;
    this.fetchOffset = this.position;
    this.fetchEpoch = fetchEpoch;
    this.epoch++;
  }

  tp(): TopicPartition {
    return { topic: this.topic, partition: this.partition };
  }
}

export type SubscriptionMode = 'none' | 'topics' | 'pattern' | 'assigned';

export class SubscriptionState {
  mode: SubscriptionMode = 'none';
  topics = new Set<string>();
  pattern: RegExp | null = null;
  readonly #assigned = new Map<string, PartitionState>();

  subscribeTopics(topics: readonly string[]): void {
    this.#checkMode('topics');
    this.mode = topics.length === 0 ? 'none' : 'topics';
    this.topics = new Set(topics);
    this.pattern = null;
  }

  subscribePattern(pattern: RegExp): void {
    this.#checkMode('pattern');
    this.mode = 'pattern';
    this.pattern = pattern;
    this.topics = new Set();
  }

  /** Matches a pattern against the cluster's (non-internal) topic names; true if the set changed. */
  updatePatternTopics(all: readonly string[]): boolean {
    if (this.pattern === null) return false;
    const re = this.pattern;
    const next = new Set(all.filter((t) => testPattern(re, t)));
    const changed = next.size !== this.topics.size || [...next].some((t) => !this.topics.has(t));
    this.topics = next;
    return changed;
  }

  manualAssign(): void {
    this.#checkMode('assigned');
    this.mode = 'assigned';
    this.topics = new Set();
    this.pattern = null;
  }

  unsubscribe(): void {
    this.mode = 'none';
    this.topics = new Set();
    this.pattern = null;
    this.#assigned.clear();
  }

  /** Replaces the assignment, keeping the state of partitions that stay. Returns the new states. */
  setAssignment(tps: readonly TopicPartition[]): PartitionState[] {
    const keep = new Map<string, PartitionState>();
    const added: PartitionState[] = [];
    for (const tp of tps) {
      const k = tpKey(tp.topic, tp.partition);
      if (keep.has(k)) continue;
      const existing = this.#assigned.get(k);
      if (existing) keep.set(k, existing);
      else {
        const s = new PartitionState(tp.topic, tp.partition);
        keep.set(k, s);
        added.push(s);
      }
    }
    // Removed partitions: bump the epoch so in-flight data for them is recognised as stale.
    for (const [k, s] of this.#assigned) if (!keep.has(k)) s.epoch++;
    this.#assigned.clear();
    for (const [k, s] of keep) this.#assigned.set(k, s);
    return added;
  }

  get(tp: TopicPartition): PartitionState | undefined {
    return this.#assigned.get(tpKey(tp.topic, tp.partition));
  }

  getByKey(key: string): PartitionState | undefined {
    return this.#assigned.get(key);
  }

  /** Throws IllegalStateError if the partition is not assigned to this consumer. */
  require(tp: TopicPartition): PartitionState {
    const s = this.get(tp);
    if (s === undefined)
      throw new IllegalStateError(`partition ${tp.topic}-${tp.partition} is not assigned to this consumer`);
    return s;
  }

  assigned(): PartitionState[] {
    return [...this.#assigned.values()];
  }

  assignedPartitions(): TopicPartition[] {
    return this.assigned().map((s) => s.tp());
  }

  get size(): number {
    return this.#assigned.size;
  }

  #checkMode(want: SubscriptionMode): void {
    if (this.mode !== 'none' && this.mode !== want) {
      throw new IllegalStateError(
        'subscribe(topics), subscribe(pattern) and assign() are mutually exclusive; unsubscribe() first',
      );
    }
  }
}

function testPattern(re: RegExp, topic: string): boolean {
  re.lastIndex = 0; // a /g or /y pattern keeps state between test() calls
  return re.test(topic);
}
