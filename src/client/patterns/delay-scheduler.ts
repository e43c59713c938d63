// The delay queue's scheduler: reads every partition of every level topic and hands each record,
// once it may leave its level, to its target topic or to its next level — exactly once, in a
// transaction with the level offsets it consumed (TransactionalHandOff).
//
// No busy polling: records leave a level in the order they entered it, so per partition only the
// head matters. A partition with records waiting is paused (the consumer stops fetching it;
// what it holds is one poll's worth at most), and the poll's timeout is the timer: the loop
// sleeps until the earliest head is due, new records arrive on a partition that had none, or
// IDLE_MS passes (how soon stop() is noticed). A partition is resumed once its records are all
// handed off. Nothing is re-read to find out whether it is due.
//
// A transaction failure aborts, rewinds the consumer to the committed offsets and forgets every
// record held: they are read and scheduled again. A record that cannot be delivered anywhere —
// routing headers missing or malformed (not written by DelayQueue.delayed()), or a target topic
// or partition that does not exist (delay-targets.ts) — is skipped with a warning and counted:
// retrying it would fail every transaction it is part of, forever.
import { Admin } from '../admin/admin.js';
import type { ClientOptions } from '../config.js';
import type { ConsumerLogger } from '../consumer/consumer-config.js';
import type { ConsumerRecord, TopicPartition } from '../consumer/types.js';
import { ConfigError } from '../errors.js';
import type { ProducerRecord } from '../producer/producer.js';
import { DELAY_UNTIL_HEADER, type DelayLevel, type DelayQueue, nextHop, routingOf } from './delay-queue.js';
import { DeliveryTargets } from './delay-targets.js';
import { positiveInteger } from './fan-out-options.js';
import { existingPartitionCount } from './pattern-topics.js';
import { clientOptionsOf, TransactionalHandOff } from './transactional-hand-off.js';

export interface DelaySchedulerOptions extends ClientOptions {
  /** Group of the committed level offsets; default `<name>-delay-scheduler`. One scheduler per group. */
  group?: string;
  /** Records handed off per transaction at most, default 500. */
  maxRecordsPerTransaction?: number;
  /** transaction.timeout.ms, default 60000. */
  transactionTimeoutMs?: number;
  logger?: ConsumerLogger;
}

export interface DelaySchedulerStats {
  /** Records written to their target topic. */
  delivered: number;
  /** Records moved on to another level. */
  forwarded: number;
  /** Records read and waiting to leave their level. */
  waiting: number;
  /** Level partitions paused because their head is not due yet. */
  pausedPartitions: number;
  /** Records skipped: routing headers missing or malformed, or a target that does not exist. */
  invalid: number;
  transactions: number;
  aborted: number;
  /**
   * Delivered records: commit time − due time, over the last 1024 (never negative: nothing is
   * delivered early). NaN before the first.
   */
  latenessMs: { p50: number; p99: number; max: number };
}

interface Waiting {
  readonly tp: TopicPartition;
  readonly level: DelayLevel;
  records: ConsumerRecord[];
  /** Index of the head in `records`. */
  head: number;
  paused: boolean;
}

interface HandOff {
  w: Waiting;
  record: ConsumerRecord;
  /** What to write, or why nothing can be. */
  out: ProducerRecord | string;
  /** The due time of a record written to its target; NaN for a hop or a skip. */
  deliverAt: number;
}

interface Due {
  w: Waiting;
  record: ConsumerRecord;
  info: ReturnType<typeof routingOf>;
}

const IDLE_MS = 500;
const FETCH_MAX_WAIT_MS = 100;
const LATENESS_SAMPLES = 1024;

export class DelayScheduler {
  readonly queue: DelayQueue;
  readonly group: string;
  /** Settles when the scheduler ends: after stop(), or with the error that stopped it. */
  readonly done: Promise<void>;
  readonly #h: TransactionalHandOff;
  readonly #targets: DeliveryTargets;
  readonly #waiting: Map<string, Waiting>;
  readonly #max: number;
  readonly #log: ConsumerLogger;
  #stopping = false;
  #delivered = 0;
  #forwarded = 0;
  #invalid = 0;
  #transactions = 0;
  #aborted = 0;
  readonly #lateness: number[] = [];
  #latenessNext = 0;

  private constructor(
    queue: DelayQueue,
    group: string,
    h: TransactionalHandOff,
    targets: DeliveryTargets,
    max: number,
    log: ConsumerLogger,
  ) {
    this.queue = queue;
    this.group = group;
    this.#h = h;
    this.#targets = targets;
    this.#max = max;
    this.#log = log;
    this.#waiting = new Map();
    this.done = this.#run();
    this.done.catch(() => {});
  }

  /** Checks the level topics, fences any previous scheduler of the group, and starts. */
  static async start(queue: DelayQueue, options: DelaySchedulerOptions): Promise<DelayScheduler> {
    const client = clientOptionsOf(options);
    const group = options.group ?? `${queue.name}-delay-scheduler`;
    if (typeof group !== 'string' || group === '') throw new ConfigError('group must be a non-empty string');
    const max = positiveInteger('maxRecordsPerTransaction', options.maxRecordsPerTransaction, 500);
    const admin = new Admin(client);
    const tps: TopicPartition[] = [];
    try {
      for (const l of queue.levels) {
        const n = await existingPartitionCount(admin, l.topic, 'level');
        for (let partition = 0; partition < n; partition++) tps.push({ topic: l.topic, partition });
      }
    } finally {
      await admin.close();
    }
    const log = options.logger ?? (() => {});
    const h = await TransactionalHandOff.open({
      client,
      group,
      transactionalId: `${group}:scheduler`,
      transactionTimeoutMs: positiveInteger('transactionTimeoutMs', options.transactionTimeoutMs, 60_000),
      partitions: tps,
      logger: log,
      consumer: {
        clientId: `${client.clientId ?? 'samsa'}-delay-scheduler`,
        maxPollRecords: max,
        // A partition resumed while a fetch is in flight waits for that fetch to return before
        // its own records come (one fetch per broker at a time): this bounds that wait.
        fetchMaxWaitMs: FETCH_MAX_WAIT_MS,
      },
    });
    return new DelayScheduler(queue, group, h, new DeliveryTargets(client), max, log);
  }

  /** Stops after the hand-off in progress (if any) and closes the clients. */
  stop(): Promise<void> {
    this.#stopping = true;
    return this.done;
  }

  stats(): DelaySchedulerStats {
    let waiting = 0;
    let paused = 0;
    for (const w of this.#waiting.values()) {
      waiting += w.records.length - w.head;
      if (w.paused) paused++;
    }
    const sorted = [...this.#lateness].sort((a, b) => a - b);
    const at = (q: number) =>
      sorted.length === 0 ? Number.NaN : sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]!;
    return {
      delivered: this.#delivered,
      forwarded: this.#forwarded,
      waiting,
      pausedPartitions: paused,
      invalid: this.#invalid,
      transactions: this.#transactions,
      aborted: this.#aborted,
      latenessMs: { p50: at(0.5), p99: at(0.99), max: sorted.length === 0 ? Number.NaN : sorted.at(-1)! },
    };
  }

  // ---- the loop -----------------------------------------------------------------------------

  async #run(): Promise<void> {
    const c = this.#h.consumer;
    try {
      while (!this.#stopping) {
        const next = this.#nextUntil();
        const timeout = Math.max(0, Math.min(IDLE_MS, next - Date.now()));
        this.#hold(await c.poll(timeout));
        await this.#handOffDue();
      }
    } finally {
      await this.#h.close();
      await this.#targets.close();
    }
  }

  /** Queues polled records behind their partition's head and pauses those partitions. */
  #hold(records: ConsumerRecord[]): void {
    if (records.length === 0) return;
    const toPause: TopicPartition[] = [];
    for (const r of records) {
      const key = `${r.topic}\u0000${r.partition}`;
      let w = this.#waiting.get(key);
      if (w === undefined) {
        w = {
          tp: { topic: r.topic, partition: r.partition },
          level: this.queue.levelOf(r.topic)!,
          records: [],
          head: 0,
          paused: false,
        };
        this.#waiting.set(key, w);
      }
      w.records.push(r);
      if (!w.paused) {
        w.paused = true;
        toPause.push(w.tp);
      }
    }
    if (toPause.length > 0) this.#h.consumer.pause(toPause);
  }

  /** The earliest time a head may leave its level (Infinity when nothing waits). */
  #nextUntil(): number {
    let next = Number.POSITIVE_INFINITY;
    for (const w of this.#waiting.values()) {
      const r = w.records[w.head];
      if (r !== undefined) next = Math.min(next, this.#route(w, r).until);
    }
    return next;
  }

  #route(w: Waiting, r: ConsumerRecord): { until: number; info: ReturnType<typeof routingOf> } {
    const info = routingOf(r.headers, r.timestamp, w.level);
    return { until: typeof info === 'string' ? Number.NEGATIVE_INFINITY : info.until, info };
  }

  /** Hands every record that may leave its level now, in batches of one transaction each. */
  async #handOffDue(): Promise<void> {
    for (;;) {
      const now = Date.now();
      const due: Due[] = [];
      for (const w of this.#waiting.values()) {
        for (let i = w.head; i < w.records.length && due.length < this.#max; i++) {
          const record = w.records[i]!;
          const { until, info } = this.#route(w, record);
          if (until > now) break;
          due.push({ w, record, info });
        }
      }
      if (due.length === 0) return;
      const targets: string[] = [];
      for (const d of due) if (typeof d.info !== 'string') targets.push(d.info.topic);
      await this.#targets.learn(targets);
      await this.#commit(due.map((d) => this.#destination(d)));
      if (this.#stopping) return;
    }
  }

  #destination({ w, record: r, info }: Due): HandOff {
    if (typeof info === 'string') return { w, record: r, out: info, deliverAt: Number.NaN };
    const base = { key: r.key, value: r.value, timestamp: r.timestamp };
    // The planned path, never a shortcut: a record overdue after a pause of the scheduler still
    // passes through its remaining levels (each due at once), behind the records of its key that
    // entered them first. Delivering it straight away could overtake them.
    const hop = nextHop(this.queue.levels, info.deliverAt, info.until);
    if (hop === null) {
      const problem = this.#targets.problem(info.topic, info.partition);
      if (problem !== null) return { w, record: r, out: problem, deliverAt: Number.NaN };
      const out: ProducerRecord = { ...base, topic: info.topic, headers: info.headers };
      if (info.partition !== undefined) out.partition = info.partition;
      return { w, record: r, out, deliverAt: info.deliverAt };
    }
    const headers: [string, Buffer | null][] = [
      ...r.headers.map((h) => [h.key, h.value] as [string, Buffer | null]),
    ];
    const i = headers.findIndex(([k]) => k === DELAY_UNTIL_HEADER);
    const until: [string, Buffer] = [DELAY_UNTIL_HEADER, Buffer.from(String(hop.until))];
    if (i >= 0) headers[i] = until;
    else headers.push(until);
    return { w, record: r, out: { ...base, topic: hop.level.topic, headers }, deliverAt: Number.NaN };
  }

  async #commit(batch: HandOff[]): Promise<void> {
    const h = this.#h;
    h.begin();
    const offsets = new Map<Waiting, bigint>();
    for (const b of batch) {
      if (typeof b.out !== 'string' && !h.send(b.out)) await h.bufferAvailable();
      offsets.set(b.w, b.record.offset + 1n);
    }
    const ok = await h.commit([...offsets].map(([w, offset]) => ({ ...w.tp, offset })));
    if (!ok) {
      // Rewound to the committed offsets: everything held is read again.
      this.#aborted++;
      for (const w of this.#waiting.values()) if (w.paused) h.consumer.resume([w.tp]);
      this.#waiting.clear();
      return;
    }
    this.#transactions++;
    const committedAt = Date.now();
    for (const b of batch) {
      b.w.head++;
      if (typeof b.out === 'string') {
        this.#invalid++;
        this.#log('warn', 'skipped a delay-queue record that cannot be delivered', {
          topic: b.record.topic,
          partition: b.record.partition,
          offset: String(b.record.offset),
          reason: b.out,
        });
      } else if (Number.isNaN(b.deliverAt)) this.#forwarded++;
      else {
        this.#delivered++;
        this.#lateness[this.#latenessNext] = committedAt - b.deliverAt;
        this.#latenessNext = (this.#latenessNext + 1) % LATENESS_SAMPLES;
      }
    }
    const toResume: TopicPartition[] = [];
    for (const w of offsets.keys()) {
      if (w.head < w.records.length) continue;
      w.records = [];
      w.head = 0;
      w.paused = false;
      toResume.push(w.tp);
    }
    if (toResume.length > 0) h.consumer.resume(toResume);
  }
}

/**
 * Starts the scheduler of a delay queue: checks its level topics, fences the previous scheduler
 * of the group and hands records off until stop(). See docs/patterns/delay-queues.md.
 */
export function startDelayScheduler(
  queue: DelayQueue,
  options: DelaySchedulerOptions,
): Promise<DelayScheduler> {
  return DelayScheduler.start(queue, options);
}
