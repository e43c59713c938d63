// Writes transaction markers to the partitions of a decided transaction (Kafka's marker channel,
// TransactionMarkerChannelManager). A partition led here gets the control batch in-process: a
// data partition appended as the coordinator, a __consumer_offsets partition through the group
// coordinator's runtime (which also makes that transaction's offsets visible or drops them). A
// partition led by another broker gets it through WriteTxnMarkers, one request per leader and
// round, on a link per broker; an unknown leader, a transport failure or a retriable answer
// leaves the partition to the next round.
import { ErrorCode, KafkaError } from '../../../protocol/errors.js';
import { writeTxnMarkersApi } from '../../../protocol/messages/generated/write-txn-markers.js';
import { encodeControlBatch } from '../../../protocol/record-batch/control.js';
import type { MetadataView } from '../../metadata/cluster-image.js';
import type { MinIsrOf } from '../../replica/min-isr.js';
import type { Partition } from '../../replica/partition.js';
import type { ReplicaManager } from '../../replica/replica-manager.js';
import { CONSUMER_OFFSETS_TOPIC } from '../group/broker-group-coordinator.js';
import type { GroupCoordinator } from '../group/group-coordinator.js';
import { errorCodeOf } from '../runtime/coordinator-error.js';
import { DEFAULT_COMMIT_TIMEOUT_MS, waitForCommit } from '../runtime/log-partition-writer.js';
import type { BrokerLinks } from './broker-links.js';
import type { TxnMarker, TxnMarkerWriter } from './txn-coordinator.js';
import type { TopicPartitionSet } from './txn-metadata.js';

/** Errors after which a marker is not retried: the partition is gone or the marker is stale. */
const FINAL = new Set<number>([
  ErrorCode.NONE,
  ErrorCode.UNKNOWN_TOPIC_OR_PARTITION,
  ErrorCode.INVALID_PRODUCER_EPOCH,
  ErrorCode.TRANSACTION_COORDINATOR_FENCED,
]);

/** A remote WriteTxnMarkers may wait for the leader's followers (its commit timeout) and more. */
export const REMOTE_TIMEOUT_MS = DEFAULT_COMMIT_TIMEOUT_MS + 10_000;

export interface MarkerWriterDeps {
  readonly image: MetadataView;
  readonly replicas: ReplicaManager;
  readonly groups: () => GroupCoordinator | undefined;
  /** This broker's id: partitions it leads are written in-process. */
  readonly nodeId: number;
  /** Links to the other leaders (their requests need `REMOTE_TIMEOUT_MS`). */
  readonly links: BrokerLinks;
  /** min.insync.replicas of the data topics (markers are acks=all writes); absent: 1. */
  readonly minIsrOf?: MinIsrOf;
  readonly now?: () => number;
}

interface TopicPartition {
  topic: string;
  partition: number;
}

export class BrokerMarkerWriter implements TxnMarkerWriter {
  constructor(private readonly deps: MarkerWriterDeps) {}

  async write(marker: TxnMarker, partitions: readonly TopicPartitionSet[]): Promise<TopicPartitionSet[]> {
    const local: TopicPartition[] = [];
    const remote = new Map<number, TopicPartition[]>();
    const retry: TopicPartition[] = [];
    for (const t of partitions) {
      const topic = this.deps.image.topic(t.topic);
      for (const partition of t.partitions) {
        const tp = { topic: t.topic, partition };
        // A topic or partition the cluster no longer has needs no marker (Kafka drops it too).
        if (topic === undefined || partition >= topic.partitions.length) continue;
        const leader = topic.partitions[partition]?.leader ?? -1;
        if (leader === this.deps.nodeId) local.push(tp);
        else if (leader < 0 || this.deps.image.broker(leader) === undefined) retry.push(tp);
        else remote.set(leader, [...(remote.get(leader) ?? []), tp]);
      }
    }
    const rounds = await Promise.all([
      Promise.all(
        local.map(async (tp) => (FINAL.has(await this.writeOne(marker, tp.topic, tp.partition)) ? [] : [tp])),
      ).then((r) => r.flat()),
      ...[...remote].map(([leader, tps]) => this.#writeRemote(leader, marker, tps)),
    ]);
    return group([...retry, ...rounds.flat()]);
  }

  /** Writes one marker here; resolves with the Kafka error code (WriteTxnMarkers answers it as is). */
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
      await appendMarker(p, marker, this.deps.now?.() ?? Date.now(), this.deps.minIsrOf?.(p.topic) ?? 1);
      return ErrorCode.NONE;
    } catch (err) {
      return err instanceof KafkaError ? err.code : ErrorCode.UNKNOWN_SERVER_ERROR;
    }
  }

  /** One WriteTxnMarkers to `leader`; resolves with the partitions to try again. */
  async #writeRemote(leader: number, marker: TxnMarker, tps: TopicPartition[]): Promise<TopicPartition[]> {
    const link = this.deps.links.get(leader);
    if (link === null) return tps;
    const topics = group(tps).map((t) => ({ name: t.topic, partitionIndexes: t.partitions }));
    try {
      const res = await link.request(
        writeTxnMarkersApi,
        {
          markers: [
            {
              producerId: marker.producerId,
              producerEpoch: marker.producerEpoch,
              transactionResult: marker.commit,
              topics,
              coordinatorEpoch: marker.coordinatorEpoch,
            },
          ],
        },
        { timeoutMs: REMOTE_TIMEOUT_MS },
      );
      const codes = new Map<string, number>();
      for (const m of res.markers)
        for (const t of m.topics)
          for (const p of t.partitions) codes.set(`${t.name}\u0000${p.partitionIndex}`, p.errorCode);
      return tps.filter((tp) => !FINAL.has(codes.get(`${tp.topic}\u0000${tp.partition}`) ?? -1));
    } catch {
      // The leader is unreachable or slow: the next round asks whoever leads then.
      return tps;
    }
  }
}

/** Partitions grouped by topic, in first-seen order. */
function group(tps: readonly TopicPartition[]): TopicPartitionSet[] {
  const byTopic = new Map<string, number[]>();
  for (const tp of tps) byTopic.set(tp.topic, [...(byTopic.get(tp.topic) ?? []), tp.partition]);
  return [...byTopic].map(([topic, partitions]) => ({ topic, partitions }));
}

/**
 * Appends the control batch as the coordinator and waits until the high watermark passes it
 * (Kafka's WriteTxnMarkers: acks=all within request.timeout.ms); a timeout or a lost leadership
 * answers its error code and the marker is retried.
 */
async function appendMarker(
  p: Partition,
  marker: TxnMarker,
  timestamp: number,
  minIsr: number,
): Promise<void> {
  const batch = encodeControlBatch({
    producerId: marker.producerId,
    producerEpoch: marker.producerEpoch,
    type: marker.commit ? 'COMMIT' : 'ABORT',
    coordinatorEpoch: marker.coordinatorEpoch,
    timestamp,
  });
  const r = await p.appendAsLeader(batch, -1, minIsr, 'coordinator');
  await waitForCommit(p, r.lastOffset + 1n, DEFAULT_COMMIT_TIMEOUT_MS, minIsr);
}
