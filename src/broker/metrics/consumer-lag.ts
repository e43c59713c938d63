// Consumer lag, what Burrow or kafka-lag-exporter are run for, computed at scrape time on the
// broker that coordinates each group, with kafka_exporter's names and labels (the
// `consumergroup`, `topic`, `partition` labels its Grafana dashboards query):
//   kafka_consumergroup_current_offset  the group's committed offset
//   kafka_consumergroup_lag             high watermark − committed offset (records; ≥ 0)
//   kafka_consumergroup_lag_sum         the lag summed over a topic's partitions
//   kafka_consumergroup_lag_seconds     now − timestamp of the record at the committed offset
//                                       (the oldest unconsumed record's age; 0 when caught up)
//
// Only partitions with a replica on this broker are reported: the high watermark is read from the
// local log (a follower's is the one its leader last sent), never asked of another broker at
// scrape time. Bounded work: the committed offsets come from the loaded coordinator shards
// (memory); a record's timestamp is read from the local log (one batch through the offset index)
// only when a group's committed offset changed since the last scrape, at most
// MAX_TIMESTAMP_READS reads per scrape and within TIMESTAMP_BUDGET_MS; a series whose timestamp
// is not known yet is left out of lag_seconds until a later scrape reads it.

import {
  decodeRecordBatch,
  isControl,
  LOG_OVERHEAD,
  RECORD_BATCH_OVERHEAD,
  readBatchHeader,
} from '../../protocol/record-batch/index.js';
import type { PartitionLog } from '../../storage/index.js';
import type { GroupCoordinator } from '../coordinator/group/group-coordinator.js';
import type { Partition } from '../replica/partition.js';
import { labelString, TextFamily } from './text-exposition.js';

export const MAX_TIMESTAMP_READS = 1000;
export const TIMESTAMP_BUDGET_MS = 2000;
const READ_CONCURRENCY = 8;
/** Transaction-marker batches skipped at most before giving up on a timestamp. */
const MAX_CONTROL_BATCHES = 16;

export const LAG_FAMILY_NAMES: readonly string[] = [
  'kafka_consumergroup_current_offset',
  'kafka_consumergroup_lag',
  'kafka_consumergroup_lag_sum',
  'kafka_consumergroup_lag_seconds',
];

export interface CommittedOffset {
  readonly group: string;
  readonly topic: string;
  readonly partition: number;
  readonly offset: bigint;
}

/** Every committed offset of the groups this coordinator's loaded shards hold (memory only). */
export async function committedOffsets(groups: GroupCoordinator): Promise<CommittedOffset[]> {
  const { results } = await groups.runtime.readAll((s) => {
    const out: CommittedOffset[] = [];
    const store = s.offsets.store;
    for (const group of store.groupIds())
      for (const [topic, partition, v] of store.entries(group))
        out.push({ group, topic, partition, offset: v.offset });
    return out;
  });
  return results.flat();
}

interface SeriesState {
  readonly labels: string;
  offset: bigint;
  /** Timestamp (ms) of the record at `offset`; null = not read yet. */
  timestamp: number | null;
}

export interface ConsumerLagSources {
  readonly offsets: () => Promise<readonly CommittedOffset[]>;
  readonly partition: (topic: string, partition: number) => Partition | undefined;
  readonly now?: () => number;
}

export class ConsumerLag {
  /** By group\0topic\0partition; rebuilt at every scrape (series gone from the store leave). */
  #series = new Map<string, SeriesState>();
  readonly #topicLabels = new Map<string, string>();

  constructor(private readonly s: ConsumerLagSources) {}

  async text(): Promise<string> {
    const offsets = await this.s.offsets();
    const now = (this.s.now ?? Date.now)();
    const current = new TextFamily(
      'kafka_consumergroup_current_offset',
      "The group's committed offset of the partition",
      'gauge',
    );
    const lag = new TextFamily(
      'kafka_consumergroup_lag',
      'Records between the committed offset and the high watermark',
      'gauge',
    );
    const lagSum = new TextFamily(
      'kafka_consumergroup_lag_sum',
      "Lag summed over the topic's partitions",
      'gauge',
    );
    const seconds = new TextFamily(
      'kafka_consumergroup_lag_seconds',
      'Age of the oldest unconsumed record: now minus the timestamp of the record at the committed offset (0 when caught up)',
      'gauge',
    );
    const previous = this.#series;
    const next = new Map<string, SeriesState>();
    const rows: { st: SeriesState; log: PartitionLog; lag: bigint }[] = [];
    const sums = new Map<string, bigint>();
    for (const c of offsets) {
      const p = this.s.partition(c.topic, c.partition);
      if (p === undefined) continue;
      const key = `${c.group}\u0000${c.topic}\u0000${c.partition}`;
      let st = previous.get(key);
      if (st === undefined) {
        st = {
          labels: labelString([
            ['consumergroup', c.group],
            ['topic', c.topic],
            ['partition', String(c.partition)],
          ]),
          offset: c.offset,
          timestamp: null,
        };
      } else if (st.offset !== c.offset) {
        st.offset = c.offset;
        st.timestamp = null;
      }
      next.set(key, st);
      const hw = p.log.highWatermark;
      const n = hw > c.offset ? hw - c.offset : 0n;
      rows.push({ st, log: p.log, lag: n });
      const sumKey = `${c.group}\u0000${c.topic}`;
      sums.set(sumKey, (sums.get(sumKey) ?? 0n) + n);
      current.sample(st.labels, c.offset);
      lag.sample(st.labels, n);
    }
    this.#series = next;
    for (const [key, n] of sums) {
      let labels = this.#topicLabels.get(key);
      if (labels === undefined) {
        const [group, topic] = key.split('\u0000') as [string, string];
        labels = labelString([
          ['consumergroup', group],
          ['topic', topic],
        ]);
        this.#topicLabels.set(key, labels);
      }
      lagSum.sample(labels, n);
    }
    if (this.#topicLabels.size > sums.size * 2)
      for (const key of this.#topicLabels.keys()) if (!sums.has(key)) this.#topicLabels.delete(key);

    const caughtUp = await readTimestamps(rows.filter((r) => r.lag > 0n && r.st.timestamp === null));
    for (const r of rows) {
      if (r.lag === 0n || caughtUp.has(r.st)) seconds.sample(r.st.labels, 0);
      else if (r.st.timestamp !== null) seconds.sample(r.st.labels, Math.max(0, now - r.st.timestamp) / 1000);
    }
    return [current.text(), lag.text(), lagSum.text(), seconds.text()].join('\n');
  }
}

/**
 * Fills `timestamp` of as many rows as the read budget allows; returns the rows with nothing
 * but transaction markers left below the high watermark (caught up; not cached, since records
 * may follow the markers without the committed offset changing).
 */
async function readTimestamps(rows: { st: SeriesState; log: PartitionLog }[]): Promise<Set<SeriesState>> {
  const caughtUp = new Set<SeriesState>();
  const todo = rows.slice(0, MAX_TIMESTAMP_READS);
  const deadline = performance.now() + TIMESTAMP_BUDGET_MS;
  let i = 0;
  const worker = async () => {
    while (i < todo.length && performance.now() < deadline) {
      const r = todo[i++]!;
      const t = await timestampAt(r.log, r.st.offset);
      if (t === 'none') caughtUp.add(r.st);
      else r.st.timestamp = t;
    }
  };
  await Promise.all(Array.from({ length: Math.min(READ_CONCURRENCY, todo.length) }, worker));
  return caughtUp;
}

/**
 * Timestamp (ms) of the first record at or after `offset` below the high watermark (a committed
 * offset below the log start: the oldest record left), read from the local log; 'none' when only
 * transaction markers are left below it, null when it cannot be read (magic 0/1 batches, a read
 * failure).
 */
export async function timestampAt(log: PartitionLog, offset: bigint): Promise<number | 'none' | null> {
  let at = offset < log.logStartOffset ? log.logStartOffset : offset;
  try {
    for (let i = 0; i < MAX_CONTROL_BATCHES; i++) {
      if (at >= log.highWatermark) return 'none';
      const { records } = await log.read(at, { maxBytes: 1, upperBound: 'hw', minOneBatch: true });
      if (records.length < RECORD_BATCH_OVERHEAD) return null;
      const h = readBatchHeader(records, 0);
      if (h.magic < 2) return null;
      const next = h.baseOffset + BigInt(h.lastOffsetDelta) + 1n;
      if (!isControl(h.attributes)) {
        const batch = records.subarray(0, Math.min(records.length, LOG_OVERHEAD + h.length));
        const cursor = await decodeRecordBatch(batch, { verifyCrc: false });
        while (cursor.next()) if (h.baseOffset + BigInt(cursor.offsetDelta) >= at) return cursor.timestampMs;
      }
      at = next;
    }
  } catch {
    // Retention or a move raced the read: the next scrape tries again.
  }
  return null;
}
