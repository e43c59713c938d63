// What the producer's sender is given: the cluster it sends to, the transaction gate, its options.
import type { ProduceRequest, ProduceResponse } from '../../protocol/messages/generated/produce.js';

export interface SenderCluster {
  leaderFor(topic: string, partition: number): number | undefined;
  requestMetadataUpdate(): void;
  /**
   * Sends a Produce request; resolves undefined when no response is expected (acks=0).
   * `maxVersion`: the highest Produce version the request may use (the transaction's protocol).
   */
  produce(
    nodeId: number,
    req: ProduceRequest,
    expectResponse: boolean,
    maxVersion?: number,
  ): Promise<ProduceResponse | undefined>;
  /** Writes out what `produce` queued for the node (one writev per drain). Optional. */
  flush?(nodeId: number): void;
  /**
   * Until when the broker throttles us (KIP-219, ms since the epoch): nothing is drained for it
   * before then, so batches keep filling instead of waiting in the connection. Optional.
   */
  throttledUntil?(nodeId: number): number;
}

/** What the transaction manager tells the sender. */
export interface TransactionGate {
  /** False while AddPartitionsToTxn for this partition has not succeeded yet. */
  canSend(topic: string, partition: number): boolean;
  /** A batch failed: the open transaction can only be aborted now. */
  onBatchFailed(err: Error): void;
  /**
   * The highest Produce version the open transaction may use: 11 under transaction protocol
   * v1, 12 (the broker adds the partitions) under v2. Absent: any.
   */
  produceMaxVersion?(): number;
}

export interface SenderOptions {
  acks: number;
  lingerMs: number;
  requestTimeoutMs: number;
  deliveryTimeoutMs: number;
  retries: number;
  retryBackoffMs: number;
  retryBackoffMaxMs: number;
  maxInFlight: number;
  maxRequestSize: number;
  /** Compression codec id (0 none … 4 zstd). */
  codec: number;
  idempotent: boolean;
  transactionalId: string | null;
}
