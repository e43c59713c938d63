// Producer ids for InitProducerId, reserved from the MetadataStore in blocks (Kafka's
// ProducerIdManager, block size 1000, `/latest_producer_id_block` in ZooKeeper). A block is
// durable before any of its ids is handed out, so ids never repeat across restarts; ids of a
// block left unused at shutdown are skipped, exactly like Kafka.

import type { MetadataStore } from './store/metadata-store.js';

export const PRODUCER_ID_BLOCK_SIZE = 1000;

export class ProducerIdManager {
  private next = 0n;
  private end = 0n;
  private fetching: Promise<void> | null = null;

  constructor(
    private readonly store: Pick<MetadataStore, 'allocateProducerIdBlock'>,
    private readonly nodeId: number,
    private readonly blockSize = PRODUCER_ID_BLOCK_SIZE,
  ) {}

  async generate(): Promise<bigint> {
    while (this.next >= this.end) {
      this.fetching ??= this.store.allocateProducerIdBlock(this.nodeId, this.blockSize).then(
        (b) => {
          this.next = b.firstProducerId;
          this.end = b.firstProducerId + BigInt(b.size);
          this.fetching = null;
        },
        (e: unknown) => {
          this.fetching = null;
          throw e;
        },
      );
      await this.fetching;
    }
    return this.next++;
  }
}
