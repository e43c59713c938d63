// Backlog fan-out: copies a topic into one with more partitions, exactly once, re-partitioning
// by key. `fanOut({ from, to, partitions })` checks the source, creates the target (or checks
// its partition count), fences any previous bridge of the group and returns a running FanOut.
//
// The copy is a consume-transform-produce loop over TransactionalHandOff: records polled from
// the source (read_committed) are written to the target inside a transaction that also commits
// the source positions, at least every commitIntervalMs or maxRecordsPerTransaction records. A
// crash loses at most the open transaction, which the next bridge aborts (by fencing) and copies
// again: no duplicate, no gap.
//
// Placement: a keyed record goes to toPositive(murmur2(key)) % partitions — the partition Java's
// and kafkajs's default partitioners pick for that key in the target — computed here rather than
// left to the producer, so it never depends on the producer's view of the metadata. Within a
// source partition records are written in offset order, so each key's order is kept (a key lives
// in one source partition under any hash partitioner). Keyless records are spread 'sticky' or
// 'round-robin'. Headers, timestamps, keys and values are copied as they are.
import { murmur2Partition } from '../../protocol/partitioners.js';
import { Admin } from '../admin/admin.js';
import type { ConsumerRecord, TopicPartition } from '../consumer/types.js';
import type { ProducerRecord } from '../producer/producer.js';
import { type FanOutOptions, type ResolvedFanOutOptions, resolveFanOutOptions } from './fan-out-options.js';
import { ensureTopic, existingPartitionCount, TopicSetupError } from './pattern-topics.js';
import { TransactionalHandOff } from './transactional-hand-off.js';

export interface FanOutInfo {
  from: string;
  to: string;
  group: string;
  transactionalId: string;
  sourcePartitions: number;
  targetPartitions: number;
  /** The bridge created the target topic (false: it existed with the right partition count). */
  createdTarget: boolean;
}

export interface FanOutPartitionProgress {
  partition: number;
  /** Source offset up to which the copy is committed. */
  committed: bigint;
  /** Source records not yet committed to the target: the newest last stable offset seen − committed. */
  lag: number;
}

export interface FanOutProgress {
  /** Records committed to the target by this bridge. */
  copied: number;
  /** Transactions committed. */
  transactions: number;
  /** Transactions that failed, were aborted, and whose input was read again. */
  aborted: number;
  /** Copied records per second over the last 10 s. */
  recordsPerSecond: number;
  /** Sum of the partitions' lag. */
  lag: number;
  partitions: FanOutPartitionProgress[];
  /** The loop is still copying. */
  running: boolean;
}

/** How long an idle poll waits: also how soon stop() is noticed when nothing flows. */
const IDLE_POLL_MS = 250;
const RATE_WINDOW_MS = 10_000;

export class FanOut {
  readonly info: FanOutInfo;
  /** Settles when the bridge ends: after stop(), at the end with stopAtEnd, or with its error. */
  readonly done: Promise<FanOutProgress>;
  readonly #o: ResolvedFanOutOptions;
  readonly #h: TransactionalHandOff;
  readonly #tps: readonly TopicPartition[];
  /** The source's end offsets when the bridge started: the goal with stopAtEnd, the first lag. */
  readonly #startEnds: readonly bigint[];
  /** Per source partition the newest last stable offset seen (lag = it − committed). */
  readonly #ends = new Map<number, bigint>();
  #stopping = false;
  #running = true;
  #copied = 0;
  #transactions = 0;
  #aborted = 0;
  #inTransaction = 0;
  #transactionStartedAt = 0;
  #roundRobin = 0;
  /** (time, copied) at each commit of the last RATE_WINDOW_MS. */
  #samples: [number, number][] = [];

  /** Use fanOut(): it prepares the topics and fences the previous bridge first. */
  private constructor(
    o: ResolvedFanOutOptions,
    h: TransactionalHandOff,
    tps: readonly TopicPartition[],
    ends: readonly bigint[],
    info: FanOutInfo,
  ) {
    this.#o = o;
    this.#h = h;
    this.#tps = tps;
    this.#startEnds = ends;
    tps.forEach((tp, i) => {
      this.#ends.set(tp.partition, ends[i]!);
    });
    this.info = info;
    this.#samples.push([Date.now(), 0]);
    this.done = this.#run();
    // The caller may only ever call stop(); an unobserved failure must not crash the process.
    this.done.catch(() => {});
  }

  static async start(options: FanOutOptions): Promise<FanOut> {
    const o = resolveFanOutOptions(options);
    const admin = new Admin(o.client);
    let sourcePartitions: number;
    let target: Awaited<ReturnType<typeof ensureTopic>>;
    try {
      sourcePartitions = await existingPartitionCount(admin, o.from, 'source');
      target = await ensureTopic(admin, o.to, o.partitions, o.replicationFactor, 30_000);
    } finally {
      await admin.close();
    }
    if (target.partitions !== o.partitions)
      throw new TopicSetupError(
        `target topic '${o.to}' exists with ${target.partitions} partitions, not ${o.partitions}: keys would land elsewhere than murmur2(key) % ${o.partitions}; ask for ${target.partitions} or choose another target`,
      );
    const tps = Array.from({ length: sourcePartitions }, (_, partition) => ({ topic: o.from, partition }));
    const h = await TransactionalHandOff.open({
      client: o.client,
      group: o.group,
      transactionalId: o.transactionalId,
      transactionTimeoutMs: o.transactionTimeoutMs,
      partitions: tps,
      logger: o.logger,
      consumer: { clientId: `${o.client.clientId ?? 'samsa'}-fan-out` },
    });
    let ends: bigint[];
    try {
      ends = await h.consumer.endOffsets(tps);
    } catch (err) {
      await h.close();
      throw err;
    }
    return new FanOut(o, h, tps, ends, {
      from: o.from,
      to: o.to,
      group: o.group,
      transactionalId: o.transactionalId,
      sourcePartitions,
      targetPartitions: o.partitions,
      createdTarget: target.created,
    });
  }

  /** Commits what was copied so far, closes the clients; resolves with the final progress. */
  stop(): Promise<FanOutProgress> {
    this.#stopping = true;
    return this.done;
  }

  progress(): FanOutProgress {
    const now = Date.now();
    if (this.#running) this.#learnEnds();
    const ends = this.#ends;
    const partitions = this.#tps.map((tp) => {
      const committed = this.#h.committed(tp);
      const end = ends.get(tp.partition);
      return {
        partition: tp.partition,
        committed,
        lag: Math.max(0, Number((end ?? committed) - committed)),
      };
    });
    const [t0, c0] = this.#samples.find(([t]) => t >= now - RATE_WINDOW_MS) ?? [now, this.#copied];
    const span = Math.max(now - t0, 1000);
    return {
      copied: this.#copied,
      transactions: this.#transactions,
      aborted: this.#aborted,
      recordsPerSecond: ((this.#copied - c0) * 1000) / span,
      lag: partitions.reduce((s, p) => s + p.lag, 0),
      partitions,
      running: this.#running,
    };
  }

  /** The consumer's last fetch knows a newer last stable offset than the one taken at start. */
  #learnEnds(): void {
    for (const p of this.#h.consumer.metrics().partitions)
      if (p['log-end'] !== null && p['log-end'] > (this.#ends.get(p.partition) ?? -1n))
        this.#ends.set(p.partition, p['log-end']);
  }

  // ---- the loop -----------------------------------------------------------------------------

  async #run(): Promise<FanOutProgress> {
    const h = this.#h;
    try {
      while (!this.#stopping && !(this.#o.stopAtEnd && this.#caughtUp())) {
        // Within a transaction too the wait is at most IDLE_POLL_MS: a send of the open
        // transaction can fail (this bridge fenced) after the copy loop handed its records over
        // — the producer sends them after it — and `failing` must be seen without new input.
        const timeout = h.inTransaction
          ? Math.max(
              0,
              Math.min(IDLE_POLL_MS, this.#transactionStartedAt + this.#o.commitIntervalMs - Date.now()),
            )
          : IDLE_POLL_MS;
        const records = await h.consumer.poll(timeout);
        if (records.length > 0) await this.#copy(records);
        if (h.inTransaction) {
          if (
            this.#inTransaction >= this.#o.maxRecordsPerTransaction ||
            Date.now() - this.#transactionStartedAt >= this.#o.commitIntervalMs ||
            h.failing
          )
            await this.#commit();
        } else if (await this.#positionsMoved()) {
          // Only control records (transaction markers) or aborted data were passed: commit the
          // positions alone, so the group's offsets (and stopAtEnd) reach the end.
          h.begin();
          await this.#commit();
        }
      }
      if (h.inTransaction) await this.#commit();
    } finally {
      this.#learnEnds();
      this.#running = false;
      await h.close();
    }
    return this.progress();
  }

  async #copy(records: ConsumerRecord[]): Promise<void> {
    const h = this.#h;
    if (!h.inTransaction) {
      h.begin();
      this.#transactionStartedAt = Date.now();
      this.#inTransaction = 0;
    }
    for (const r of records) if (!h.send(this.#toTarget(r))) await h.bufferAvailable();
    this.#inTransaction += records.length;
  }

  #toTarget(r: ConsumerRecord): ProducerRecord {
    const out: ProducerRecord = {
      topic: this.#o.to,
      key: r.key,
      value: r.value,
      headers: r.headers.map((x) => [x.key, x.value] as const),
    };
    if (r.timestamp >= 0) out.timestamp = r.timestamp;
    const n = this.#o.partitions;
    if (r.key !== null) out.partition = murmur2Partition(r.key, n)!;
    else if (this.#o.keyless === 'round-robin') out.partition = this.#roundRobin++ % n;
    return out;
  }

  async #commit(): Promise<void> {
    const c = this.#h.consumer;
    const offsets = [];
    for (const tp of this.#tps) offsets.push({ ...tp, offset: await c.position(tp) });
    const records = this.#inTransaction;
    this.#inTransaction = 0;
    if (await this.#h.commit(offsets)) {
      this.#copied += records;
      this.#transactions++;
      const now = Date.now();
      this.#samples.push([now, this.#copied]);
      while (this.#samples.length > 2 && this.#samples[1]![0] < now - RATE_WINDOW_MS) this.#samples.shift();
    } else this.#aborted++;
  }

  async #positionsMoved(): Promise<boolean> {
    for (const tp of this.#tps)
      if ((await this.#h.consumer.position(tp)) !== this.#h.committed(tp)) return true;
    return false;
  }

  #caughtUp(): boolean {
    return this.#tps.every((tp, i) => this.#h.committed(tp) >= this.#startEnds[i]!);
  }
}

/**
 * Starts copying `from` into `to` (created with `partitions` partitions if missing), exactly
 * once; see docs/patterns/fan-out.md. Rejects if the source is missing, the target has another
 * partition count, or the transactional producer cannot be initialized.
 */
export function fanOut(options: FanOutOptions): Promise<FanOut> {
  return FanOut.start(options);
}
