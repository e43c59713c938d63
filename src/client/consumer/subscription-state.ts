// What the consumer consumes and where it stands: the subscription (topics, pattern or manual
// assignment), the assigned partitions and, per partition, the position (next offset to hand to
// the application), the fetch offset (next offset to request: ahead of the position while fetched
// data waits in the buffer), pause state and pending offset resets.
//
// Every seek or reset bumps the partition's `epoch`; fetched data and in-flight fetches remember
// the epoch they were made for and are dropped when it no longer matches, so a seek can never be
// undone by a late response.
import { IllegalStateError } from '../errors.js';
import { type TopicPartition, tpKey } from './types.js';

export type ResetStrategy = 'earliest' | 'latest' | 'none';

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
    return this.position !== null && this.reset === null && !this.needsCommitted;
  }

  seek(offset: bigint, leaderEpoch = -1): void {
    this.position = offset;
    this.fetchOffset = offset;
    this.positionLeaderEpoch = leaderEpoch;
    this.reset = null;
    this.needsCommitted = false;
    this.epoch++;
  }

  requestReset(strategy: ResetStrategy): void {
    this.reset = strategy;
    this.needsCommitted = false;
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
