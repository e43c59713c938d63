// Offsets committed inside a transaction (TxnOffsetCommit) that its marker has not decided yet
// (Kafka's pendingTransactionalOffsets): producer id → group → topic → partition → value. They
// stay invisible to OffsetFetch (which answers UNSTABLE_OFFSET_COMMIT for them when asked for
// stable offsets) until a COMMIT marker moves them into the committed offsets; ABORT drops them.
import type { OffsetValue } from './group-records.js';

export interface PendingOffset {
  group: string;
  topic: string;
  partition: number;
  value: OffsetValue | null;
}

export class PendingTxnOffsets {
  readonly #byProducer = new Map<bigint, Map<string, PendingOffset>>();

  static #key(group: string, topic: string, partition: number): string {
    return `${group}\u0000${topic}\u0000${partition}`;
  }

  add(producerId: bigint, offset: PendingOffset): void {
    let m = this.#byProducer.get(producerId);
    if (m === undefined) {
      m = new Map();
      this.#byProducer.set(producerId, m);
    }
    m.set(PendingTxnOffsets.#key(offset.group, offset.topic, offset.partition), offset);
  }

  /** Removes and returns the producer's pending offsets (the caller applies them on commit). */
  take(producerId: bigint): PendingOffset[] {
    const m = this.#byProducer.get(producerId);
    this.#byProducer.delete(producerId);
    return m === undefined ? [] : [...m.values()];
  }

  has(group: string, topic: string, partition: number): boolean {
    const key = PendingTxnOffsets.#key(group, topic, partition);
    for (const m of this.#byProducer.values()) if (m.has(key)) return true;
    return false;
  }

  get size(): number {
    return this.#byProducer.size;
  }
}
