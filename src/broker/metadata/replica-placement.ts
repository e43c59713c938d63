// Where the replicas of new partitions go: Kafka's assignment for CreateTopics and
// CreatePartitions (AdminUtils.assignReplicasToBrokers). Partition p's first replica (its
// preferred leader) is broker (start + p) mod n, so leaders spread evenly; the other replicas
// follow at a shift that grows by one every n partitions, so followers spread too. With racks
// on every broker, brokers are interleaved rack by rack and a partition's replicas take distinct
// racks first, then distinct brokers. A random start (as Kafka) keeps topics created one after
// the other from all leading on the same broker.

import { ErrorCode, KafkaError } from '../../protocol/errors.js';

export interface PlacementBroker {
  readonly nodeId: number;
  readonly rack: string | null;
}

export interface PlacementOptions {
  /** Index (in the broker list) of partition `firstPartition`'s first replica; default random. */
  readonly startIndex?: number;
  /** Shift of the second replica; default random (Kafka uses the same fixed value as the start when given). */
  readonly replicaShift?: number;
  /** Index of the first partition being placed (CreatePartitions continues a topic). */
  readonly firstPartition?: number;
  readonly random?: (n: number) => number;
}

const randomInt = (n: number) => Math.floor(Math.random() * n);

/** Replicas for `count` partitions (`result[i]` is partition firstPartition + i). Throws KafkaError. */
export function assignReplicas(
  brokers: readonly PlacementBroker[],
  count: number,
  replicationFactor: number,
  options: PlacementOptions = {},
): number[][] {
  if (replicationFactor <= 0)
    throw new KafkaError(ErrorCode.INVALID_REPLICATION_FACTOR, 'Replication factor must be larger than 0.');
  if (replicationFactor > brokers.length)
    throw new KafkaError(
      ErrorCode.INVALID_REPLICATION_FACTOR,
      `Unable to replicate the partition ${replicationFactor} time(s): The target replication factor of ${replicationFactor} cannot be reached because only ${brokers.length} broker(s) are registered.`,
    );
  const rand = options.random ?? randomInt;
  const allRacked = brokers.length > 0 && brokers.every((b) => b.rack !== null);
  const ordered = allRacked ? rackAlternated(brokers) : [...brokers].sort((a, b) => a.nodeId - b.nodeId);
  const n = ordered.length;
  const start = options.startIndex ?? rand(n);
  let shift = options.replicaShift ?? options.startIndex ?? rand(n);
  const numRacks = allRacked ? new Set(brokers.map((b) => b.rack)).size : 1;
  const out: number[][] = [];
  const first = Math.max(0, options.firstPartition ?? 0);
  for (let p = first; p < first + count; p++) {
    if (p > 0 && p % n === 0) shift++;
    const firstIndex = (p + start) % n;
    const leader = ordered[firstIndex]!;
    const replicas = [leader.nodeId];
    if (!allRacked) {
      for (let j = 0; j < replicationFactor - 1; j++)
        replicas.push(ordered[replicaIndex(firstIndex, shift, j, n)]!.nodeId);
    } else {
      const racks = new Set([leader.rack]);
      const used = new Set([leader.nodeId]);
      let k = 0;
      while (replicas.length < replicationFactor) {
        const b = ordered[replicaIndex(firstIndex, shift * numRacks, k++, n)]!;
        // A new rack first; once every rack has a replica, any broker not yet used.
        if ((!racks.has(b.rack) || racks.size === numRacks) && (!used.has(b.nodeId) || used.size === n)) {
          replicas.push(b.nodeId);
          racks.add(b.rack);
          used.add(b.nodeId);
        }
      }
    }
    out.push(replicas);
  }
  return out;
}

function replicaIndex(firstIndex: number, shift: number, j: number, n: number): number {
  if (n === 1) return firstIndex;
  return (firstIndex + 1 + ((shift + j) % (n - 1))) % n;
}

/** Brokers interleaved rack by rack (racks and brokers in sorted order): r1b1, r2b1, r1b2, ... */
function rackAlternated(brokers: readonly PlacementBroker[]): PlacementBroker[] {
  const byRack = new Map<string, PlacementBroker[]>();
  for (const b of [...brokers].sort((x, y) => x.nodeId - y.nodeId)) {
    const list = byRack.get(b.rack!) ?? [];
    list.push(b);
    byRack.set(b.rack!, list);
  }
  const racks = [...byRack.keys()].sort();
  const out: PlacementBroker[] = [];
  for (let i = 0; out.length < brokers.length; i++) {
    for (const r of racks) {
      const b = byRack.get(r)![i];
      if (b) out.push(b);
    }
  }
  return out;
}
