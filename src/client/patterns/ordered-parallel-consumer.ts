// Ordered parallel consumption (the key-ordered mode of Confluent's Parallel Consumer for Java):
// one group member processes many records at once while the records of one key (or one
// partition) are still processed strictly in offset order.
//
// How it stays correct:
// - Ordering: records go into lanes (LaneScheduler); a lane runs one record at a time, in the
//   order the consumer returned them, which is offset order within a partition.
// - At-least-once: per partition a PartitionOffsetTracker knows the lowest unfinished offset,
//   and only that is ever committed, so a crash re-delivers unfinished records, never skips one.
// - Bounded memory: at most maxInFlightRecords records are handed to the scheduler; at the bound
//   every assigned partition is paused. What one poll returned beyond the bound waits in a
//   small overflow (less than one poll's worth, max.poll.records) and goes first when room frees
//   up. Seeking back instead would throw away the fetched data and wait for a new fetch behind
//   the consumer's long poll.
// - Rebalances: the consumer's rebalance listener runs inside poll(), before the partitions
//   change hands. Revoked partitions lose their queued records at once, their running handlers
//   get revokeTimeoutMs to finish, what completed is committed synchronously, and only then does
//   the revoke return. Lost partitions (fenced out of the group) cannot be committed: their
//   records are dropped and their running handlers are not waited for.
//
// The loop that calls poll() never awaits a handler, so heartbeats and max.poll.interval.ms
// are unaffected by slow handlers.
import { backoffMs } from '../../net/backoff.js';
import type { Consumer } from '../consumer/consumer.js';
import {
  type ConsumerRecord,
  type RebalanceListener,
  type TopicPartition,
  type TopicPartitionOffset,
  tpKey,
} from '../consumer/types.js';
import { IllegalStateError } from '../errors.js';
import { type FailureDecision, type LaneHooks, LaneScheduler, type LaneTask } from './lane-scheduler.js';
import { PartitionOffsetTracker } from './offset-tracker.js';
import {
  consumerFor,
  type OrderedParallelOptions,
  RecordProcessingError,
  type ResolvedOrderedParallelOptions,
  resolveOrderedParallelOptions,
} from './ordered-parallel-options.js';

/** One assigned partition, from its assignment until it is given up. */
interface PartitionWork {
  readonly tp: TopicPartition;
  readonly key: string;
  readonly tracker: PartitionOffsetTracker;
  /** Given up: completions no longer matter to the group. */
  gone: boolean;
}

interface RecordTask<K, V> extends LaneTask {
  readonly record: ConsumerRecord<K, V>;
  readonly work: PartitionWork;
}

export interface OrderedParallelStats {
  /** Records handed to processing: queued, running or waiting to retry (≤ maxInFlightRecords). */
  inFlight: number;
  /** Records polled beyond maxInFlightRecords, waiting for room (< max.poll.records). */
  waiting: number;
  /** Handler calls running. */
  running: number;
  /** The consumer's partitions are paused for back-pressure. */
  paused: boolean;
}

/** Poll timeout of the loop: also how soon close() and a halt are noticed. */
const POLL_MS = 100;

export class OrderedParallelConsumer<K = Buffer | null, V = Buffer | null> {
  readonly consumer: Consumer<K, V>;
  readonly options: ResolvedOrderedParallelOptions<K, V>;
  readonly #scheduler: LaneScheduler<RecordTask<K, V>>;
  readonly #partitions = new Map<string, PartitionWork>();
  /** Held records at or below which paused partitions resume (hysteresis against flapping). */
  readonly #resumeAt: number;
  #paused = false;
  #closing = false;
  #fatal: Error | null = null;
  /** Records polled beyond maxInFlightRecords, in poll order; partitions stay paused meanwhile. */
  #overflow: ConsumerRecord<K, V>[] = [];
  #loop: Promise<void> | null = null;
  #nextCommitAt = 0;
  #commitInFlight = false;

  constructor(options: OrderedParallelOptions<K, V>) {
    this.options = resolveOrderedParallelOptions(options);
    this.consumer = consumerFor(options.consumer);
    const max = this.options.maxInFlightRecords;
    this.#resumeAt = max - Math.max(1, Math.ceil(max / 4));
    this.#scheduler = new LaneScheduler(this.options.maxConcurrency, this.#hooks());
  }

  /**
   * Subscribes and processes records until close() (resolves) or until a record fails for
   * good with onFailure 'stop' or the consumer fails (rejects). Either way the completed work is
   * committed and the consumer closed before it settles.
   */
  run(): Promise<void> {
    if (this.#loop !== null) throw new IllegalStateError('run() was already called');
    this.#loop = this.#runLoop();
    return this.#loop;
  }

  /**
   * Stops taking records, waits up to revokeTimeoutMs for the running handlers (queued records
   * are left for the next owner), commits what completed and closes the consumer.
   */
  async close(): Promise<void> {
    this.#closing = true;
    if (this.#loop === null) {
      await this.consumer.close();
      return;
    }
    await this.#loop.catch(() => {});
  }

  stats(): OrderedParallelStats {
    return {
      inFlight: this.#scheduler.held,
      waiting: this.#overflow.length,
      running: this.#scheduler.running,
      paused: this.#paused,
    };
  }

  // ---- the poll loop ------------------------------------------------------------------------

  async #runLoop(): Promise<void> {
    const c = this.consumer;
    try {
      c.subscribe(this.options.topics, this.#listener());
      this.#nextCommitAt = Date.now() + this.options.commitIntervalMs;
      while (!this.#closing && this.#fatal === null) {
        this.#applyBackPressure();
        const records = await c.poll(POLL_MS);
        if (this.#fatal !== null) break;
        this.#take(records);
        this.#maybeCommit();
      }
    } catch (err) {
      this.#fatal ??= err as Error;
    }
    await this.#shutdown();
    if (this.#fatal !== null) throw this.#fatal;
  }

  /** Hands polled records to the scheduler, as many as there is room for; the rest waits. */
  #take(records: ConsumerRecord<K, V>[]): void {
    if (records.length > 0) {
      if (this.#overflow.length === 0) this.#overflow = records;
      else for (const r of records) this.#overflow.push(r);
    }
    this.#drainOverflow();
  }

  #drainOverflow(): void {
    const room = this.options.maxInFlightRecords - this.#scheduler.held;
    const n = Math.min(room, this.#overflow.length);
    if (n <= 0) return;
    const batch = n === this.#overflow.length ? this.#overflow : this.#overflow.slice(0, n);
    this.#overflow = n === this.#overflow.length ? [] : this.#overflow.slice(n);
    for (const r of batch) {
      const key = tpKey(r.topic, r.partition);
      const work = this.#work(r.topic, r.partition);
      try {
        work.tracker.started(r.offset);
      } catch {
        throw new IllegalStateError(
          `${r.topic}-${r.partition} went back to offset ${r.offset}: do not seek the consumer while OrderedParallelConsumer runs it`,
        );
      }
      this.#scheduler.add({ partitionKey: key, laneKey: this.#laneOf(r), attempts: 0, record: r, work });
    }
  }

  #laneOf(r: ConsumerRecord<K, V>): string | null {
    switch (this.options.ordering) {
      case 'unordered':
        return null;
      case 'partition':
        return 'p';
      case 'key': {
        const k = this.options.orderingKey(r);
        // Keyless records keep their partition's order among themselves.
        return k === null ? 'p' : `k${k}`;
      }
    }
  }

  #work(topic: string, partition: number): PartitionWork {
    const key = tpKey(topic, partition);
    let w = this.#partitions.get(key);
    if (w === undefined) {
      w = { tp: { topic, partition }, key, tracker: new PartitionOffsetTracker(), gone: false };
      this.#partitions.set(key, w);
    }
    return w;
  }

  /** Pauses every assigned partition at the bound, resumes them once enough room is free. */
  #applyBackPressure(): void {
    if (this.#closing) return;
    const held = this.#scheduler.held;
    const c = this.consumer;
    if (held >= this.options.maxInFlightRecords || this.#overflow.length > 0) {
      // Also pauses partitions assigned since the last call.
      c.pause(c.assignment());
      this.#paused = true;
    } else if (this.#paused && held <= this.#resumeAt) {
      c.resume(c.paused());
      this.#paused = false;
    }
  }

  // ---- processing ---------------------------------------------------------------------------

  #hooks(): LaneHooks<RecordTask<K, V>> {
    const o = this.options;
    return {
      execute: async (task) => {
        await o.handler(task.record);
      },
      failed: async (task, error): Promise<FailureDecision> => {
        // The partition is gone: its next owner processes the record, no retry here.
        if (task.work.gone) return { retryAfterMs: 0 };
        if (task.attempts <= o.retries)
          return { retryAfterMs: backoffMs(o.backoffMs, o.maxBackoffMs, task.attempts - 1) };
        if (o.onFailure === 'skip') {
          try {
            await o.onSkip?.(task.record, error, task.attempts);
            return 'skip';
          } catch (err) {
            this.#fatal ??= err as Error;
            return 'halt';
          }
        }
        this.#fatal ??= new RecordProcessingError(task.record, task.attempts, error);
        return 'halt';
      },
      completed: (task) => {
        task.work.tracker.finished(task.record.offset);
        if (this.#closing || this.#fatal !== null) return;
        // Refill at once rather than at the next turn of the poll loop.
        this.#drainOverflow();
        if (this.#paused) this.#applyBackPressure();
      },
    };
  }

  // ---- commits ------------------------------------------------------------------------------

  /** Commit points that moved since they were last committed. */
  #toCommit(works: Iterable<PartitionWork>): { work: PartitionWork; offset: TopicPartitionOffset }[] {
    const out: { work: PartitionWork; offset: TopicPartitionOffset }[] = [];
    for (const w of works) {
      const c = w.tracker.commitPointToSend();
      if (c !== null) out.push({ work: w, offset: { ...w.tp, offset: c } });
    }
    return out;
  }

  /** The periodic asynchronous commit, one at a time (a slow one is not piled upon). */
  #maybeCommit(): void {
    if (this.#commitInFlight || Date.now() < this.#nextCommitAt) return;
    this.#nextCommitAt = Date.now() + this.options.commitIntervalMs;
    const list = this.#toCommit(this.#partitions.values());
    if (list.length === 0) return;
    this.#commitInFlight = true;
    this.consumer
      .commitAsync(list.map((e) => e.offset))
      .then(
        () => {
          for (const e of list) e.work.tracker.markCommitted(e.offset.offset);
        },
        (err: Error) => this.#log('warn', 'periodic commit failed; the next one retries', err),
      )
      .finally(() => {
        this.#commitInFlight = false;
      });
  }

  /** Synchronous commit before partitions are given up (never throws: the group may be moving on). */
  async #commitNow(works: Iterable<PartitionWork>): Promise<void> {
    const list = this.#toCommit(works);
    if (list.length === 0) return;
    try {
      await this.consumer.commitSync(list.map((e) => e.offset));
      for (const e of list) e.work.tracker.markCommitted(e.offset.offset);
    } catch (err) {
      this.#log('warn', 'commit before giving up partitions failed; their records will be re-delivered', err);
    }
  }

  // ---- giving partitions up -----------------------------------------------------------------

  #listener(): RebalanceListener {
    const user = () => this.options.rebalanceListener;
    return {
      onPartitionsAssigned: async (tps) => {
        for (const tp of tps) {
          const old = this.#partitions.get(tpKey(tp.topic, tp.partition));
          if (old !== undefined) old.gone = true;
          this.#partitions.delete(tpKey(tp.topic, tp.partition));
          this.#work(tp.topic, tp.partition);
        }
        await user()?.onPartitionsAssigned?.(tps);
      },
      onPartitionsRevoked: async (tps) => {
        await this.#giveUp(tps, true);
        await user()?.onPartitionsRevoked?.(tps);
      },
      onPartitionsLost: async (tps) => {
        await this.#giveUp(tps, false);
        const l = user();
        await (l?.onPartitionsLost ?? l?.onPartitionsRevoked)?.call(l, tps);
      },
    };
  }

  /**
   * Drops the partitions' queued records, waits for their running handlers (revoke only) up to
   * revokeTimeoutMs, commits what completed (revoke only) and forgets the partitions.
   */
  async #giveUp(tps: readonly TopicPartition[], revoked: boolean): Promise<void> {
    const works: PartitionWork[] = [];
    for (const tp of tps) {
      const w = this.#partitions.get(tpKey(tp.topic, tp.partition));
      if (w === undefined) continue;
      works.push(w);
      this.#scheduler.dropPartition(w.key);
      if (!revoked) w.gone = true;
    }
    const dropped = new Set(tps.map((tp) => tpKey(tp.topic, tp.partition)));
    this.#overflow = this.#overflow.filter((r) => !dropped.has(tpKey(r.topic, r.partition)));
    if (revoked && works.length > 0) {
      const idle = await this.#waitIdle(works);
      if (!idle)
        this.consumer.options.logger(
          'warn',
          'handlers of revoked partitions still running after revokeTimeoutMs: abandoned, their records go to the next owner',
          { partitions: works.map((w) => `${w.tp.topic}-${w.tp.partition}`) },
        );
      await this.#commitNow(works);
      for (const w of works) w.gone = true;
    }
    for (const w of works) if (this.#partitions.get(w.key) === w) this.#partitions.delete(w.key);
    if (this.#paused) this.#applyBackPressure();
  }

  /** True if every running handler of `works` ended within revokeTimeoutMs. */
  async #waitIdle(works: readonly PartitionWork[]): Promise<boolean> {
    const all = Promise.all(works.map((w) => this.#scheduler.whenIdle(w.key))).then(() => true);
    const limit = this.options.revokeTimeoutMs;
    if (!Number.isFinite(limit)) return all;
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<boolean>((r) => {
      timer = setTimeout(() => r(false), limit);
    });
    try {
      return await Promise.race([all, timeout]);
    } finally {
      clearTimeout(timer);
    }
  }

  /** End of run(): nothing new starts, running handlers finish (bounded), commit, close. */
  async #shutdown(): Promise<void> {
    this.#closing = true;
    this.#scheduler.halt();
    this.#overflow = [];
    const works = [...this.#partitions.values()];
    for (const w of works) this.#scheduler.dropPartition(w.key);
    const idle = await this.#waitIdle(works);
    if (!idle)
      this.consumer.options.logger(
        'warn',
        'handlers still running at close after revokeTimeoutMs: abandoned',
      );
    await this.#commitNow(works);
    for (const w of works) w.gone = true;
    // close() revokes the partitions through our listener, which finds nothing left to do.
    this.#partitions.clear();
    await this.consumer.close().catch((err: Error) => this.#log('warn', 'closing the consumer failed', err));
  }

  #log(level: 'warn' | 'error', message: string, err: unknown): void {
    this.consumer.options.logger(level, message, { error: err instanceof Error ? err.message : String(err) });
  }
}
