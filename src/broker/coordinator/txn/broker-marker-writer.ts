// Writes transaction markers into this broker's partitions (what Kafka's marker channel does
// through WriteTxnMarkers, done in-process on a single broker). A data partition gets a control
// batch appended as the coordinator; a __consumer_offsets partition gets it through the group
// coordinator's runtime, which also makes that transaction's offsets visible or drops them.
import { ErrorCode, KafkaError } from '../../../protocol/errors.js';
import { encodeControlBatch } from '../../../protocol/record-batch/control.js';
import type { MetadataView } from '../../metadata/cluster-image.js';
import type { Partition } from '../../replica/partition.js';
import type { ReplicaManager } from '../../replica/replica-manager.js';
import { CONSUMER_OFFSETS_TOPIC } from '../group/broker-group-coordinator.js';
import type { GroupCoordinator } from '../group/group-coordinator.js';
import { errorCodeOf } from '../runtime/coordinator-error.js';
import { DEFAULT_COMMIT_TIMEOUT_MS, waitForCommit } from '../runtime/log-partition-writer.js';
import type { TxnMarker, TxnMarkerWriter } from './txn-coordinator.js';
import type { TopicPartitionSet } from './txn-metadata.js';

/** Errors after which a marker is not retried: the partition is gone or the marker is stale. */
const FINAL = new Set<number>([
  ErrorCode.NONE,
  ErrorCode.UNKNOWN_TOPIC_OR_PARTITION,
  ErrorCode.INVALID_PRODUCER_EPOCH,
  ErrorCode.TRANSACTION_COORDINATOR_FENCED,
]);

export interface MarkerWriterDeps {
  readonly image: MetadataView;
  readonly replicas: ReplicaManager;
  readonly groups: () => GroupCoordinator | undefined;
  readonly now?: () => number;
}

export class BrokerMarkerWriter implements TxnMarkerWriter {
  constructor(private readonly deps: MarkerWriterDeps) {}

  async write(marker: TxnMarker, partitions: readonly TopicPartitionSet[]): Promise<TopicPartitionSet[]> {
    const results = await Promise.all(
      partitions.map(async (t) => {
        const codes = await Promise.all(t.partitions.map((p) => this.writeOne(marker, t.topic, p)));
        return { topic: t.topic, partitions: t.partitions.filter((_, i) => !FINAL.has(codes[i] as number)) };
      }),
    );
    return results.filter((t) => t.partitions.length > 0);
  }

  /** Writes one marker; resolves with the Kafka error code (WriteTxnMarkers answers it as is). */
  async writeOne(marker: TxnMarker, topic: string, partition: number): Promise<number> {
    if (topic === CONSUMER_OFFSETS_TOPIC) {
      const groups = this.deps.groups();
      if (groups === undefined) return ErrorCode.COORDINATOR_NOT_AVAILABLE;
      return groups.runtime.completeTransaction(partition, marker).then(() => ErrorCode.NONE, errorCodeOf);
    }
    const p = this.deps.replicas.get(topic, partition);
    if (p === undefined) {
      const t = this.deps.image.topic(topic);
      return t !== undefined && partition < t.partitions.length
        ? ErrorCode.NOT_LEADER_OR_FOLLOWER
        : ErrorCode.UNKNOWN_TOPIC_OR_PARTITION;
    }
    if (!p.isLeader) return ErrorCode.NOT_LEADER_OR_FOLLOWER;
    try {
      await appendMarker(p, marker, this.deps.now?.() ?? Date.now());
      return ErrorCode.NONE;
    } catch (err) {
      return err instanceof KafkaError ? err.code : ErrorCode.UNKNOWN_SERVER_ERROR;
    }
  }
}

/**
 * Appends the control batch as the coordinator and waits until the high watermark passes it
 * (Kafka's WriteTxnMarkers: acks=all within request.timeout.ms); a timeout or a lost leadership
 * answers its error code and the marker is retried.
 */
async function appendMarker(p: Partition, marker: TxnMarker, timestamp: number): Promise<void> {
  const batch = encodeControlBatch({
    producerId: marker.producerId,
    producerEpoch: marker.producerEpoch,
    type: marker.commit ? 'COMMIT' : 'ABORT',
    coordinatorEpoch: marker.coordinatorEpoch,
    timestamp,
  });
  const r = await p.appendAsLeader(batch, -1, 1, 'coordinator');
  await waitForCommit(p, r.lastOffset + 1n, DEFAULT_COMMIT_TIMEOUT_MS);
}
