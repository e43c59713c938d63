// Drives a TransactionCoordinator over an in-memory __transaction_state with a mock clock and
// a recording marker writer whose partitions can be made to fail or hang.
import { InMemoryPartitionWriter, MockClock } from '../../../src/broker/coordinator/runtime/index.js';
import type { TxnConfig } from '../../../src/broker/coordinator/txn/txn-config.js';
import {
  TransactionCoordinator,
  type TxnMarker,
  type TxnMarkerWriter,
} from '../../../src/broker/coordinator/txn/txn-coordinator.js';
import type { TopicPartitionSet } from '../../../src/broker/coordinator/txn/txn-metadata.js';

export const settle = async (): Promise<void> => {
  for (let i = 0; i < 8; i++) await new Promise((r) => setImmediate(r));
};

export class RecordingMarkers implements TxnMarkerWriter {
  readonly written: Array<{ marker: TxnMarker; topic: string; partition: number }> = [];
  /** Partitions (`topic-p`) that fail this many more times. */
  readonly failures = new Map<string, number>();
  #hold: Promise<void> | null = null;
  #release: (() => void) | null = null;

  /** Every write waits until `release()`. */
  hold(): void {
    this.#hold = new Promise((r) => (this.#release = r));
  }

  release(): void {
    this.#release?.();
    this.#hold = null;
  }

  async write(marker: TxnMarker, partitions: readonly TopicPartitionSet[]): Promise<TopicPartitionSet[]> {
    if (this.#hold !== null) await this.#hold;
    const retry: TopicPartitionSet[] = [];
    for (const t of partitions) {
      const failed: number[] = [];
      for (const p of t.partitions) {
        const key = `${t.topic}-${p}`;
        const left = this.failures.get(key) ?? 0;
        if (left > 0) {
          this.failures.set(key, left - 1);
          failed.push(p);
        } else this.written.push({ marker, topic: t.topic, partition: p });
      }
      if (failed.length > 0) retry.push({ topic: t.topic, partitions: failed });
    }
    return retry;
  }
}

export async function txnHarness(config: Partial<TxnConfig> = {}) {
  const clock = new MockClock();
  const writer = new InMemoryPartitionWriter();
  const markers = new RecordingMarkers();
  const errors: unknown[] = [];
  let nextPid = 1000n;
  const make = () =>
    new TransactionCoordinator({
      config: { numPartitions: 3, ...config },
      writer,
      loader: writer,
      markers,
      clock,
      producerIds: async () => nextPid++,
      coordinatorEpochOf: () => 7,
      onError: (_p, e) => errors.push(e),
    });
  const h = {
    clock,
    writer,
    markers,
    errors,
    tc: make(),
    async loadAll() {
      for (let p = 0; p < h.tc.config.numPartitions; p++) await h.tc.onElection(p);
    },
    /** A new coordinator on the same log, as after a broker restart. */
    async restart() {
      h.tc.close();
      h.tc = make();
      await h.loadAll();
      await settle();
    },
    async state(id: string) {
      return (await h.tc.describe([id]))[0]!;
    },
  };
  await h.loadAll();
  return h;
}

export const tp = (topic: string, ...partitions: number[]): TopicPartitionSet => ({ topic, partitions });
