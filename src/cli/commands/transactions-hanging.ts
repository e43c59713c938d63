// `samsa transactions find-hanging`, Kafka's way: an open transaction on a partition (from
// DescribeProducers) that has been open longer than the longest transaction timeout allowed is a
// candidate; it hangs unless a coordinator still tracks it — its producer id belongs to a
// transactional id whose current transaction includes that partition (then the coordinator will
// write the marker itself, at the latest when the transaction times out).
import type { Admin } from '../../client/admin/admin.js';
import type { TopicPartition } from '../../client/admin/context.js';
import type { TransactionDescription } from '../../client/admin/transactions.js';
import { KafkaResponseError } from '../../client/errors.js';
import { CommandError } from './common.js';
import type { HangingTransaction } from './transactions-print.js';

/** DescribeProducers per request at most (as Kafka's tool batches). */
const BATCH = 500;

export interface HangingScope {
  brokerId?: number;
  topic?: string;
  partition?: number;
  maxTransactionTimeoutMs: number;
}

/** The topic's partitions (one if `partition` is given), checked to exist: one clear line if not. */
export async function partitionsOf(
  admin: Admin,
  topic: string,
  partition?: number,
  brokerId?: number,
): Promise<TopicPartition[]> {
  const existing = new Set(await admin.listTopics({ includeInternal: true }));
  if (!existing.has(topic))
    throw new CommandError(`topic '${topic}' does not exist (samsa topics --list shows the topics)`);
  const [d] = await admin.describeTopics([topic]);
  const parts = d?.partitions ?? [];
  if (partition !== undefined) {
    if (!parts.some((p) => p.partition === partition))
      throw new CommandError(
        `partition ${topic}-${partition} does not exist (${topic} has ${parts.length} partitions)`,
      );
    return [{ topic, partition }];
  }
  return parts
    .filter((p) => brokerId === undefined || p.replicas.includes(brokerId))
    .map((p) => ({ topic, partition: p.partition }))
    .sort((a, b) => a.partition - b.partition);
}

async function searchScope(admin: Admin, scope: HangingScope): Promise<TopicPartition[]> {
  if (scope.topic !== undefined) return partitionsOf(admin, scope.topic, scope.partition, scope.brokerId);
  const brokers = (await admin.describeCluster()).brokers.map((b) => b.nodeId);
  if (scope.brokerId !== undefined && !brokers.includes(scope.brokerId))
    throw new CommandError(
      `broker ${scope.brokerId} is not in the cluster (samsa cluster lists the brokers)`,
    );
  const topics = (await admin.listTopics({ includeInternal: true })).sort();
  const out: TopicPartition[] = [];
  for (let i = 0; i < topics.length; i += BATCH) {
    for (const d of await admin.describeTopics(topics.slice(i, i + BATCH)))
      for (const p of d.partitions)
        if (scope.brokerId === undefined || p.replicas.includes(scope.brokerId))
          out.push({ topic: d.name, partition: p.partition });
  }
  return out;
}

export async function findHanging(
  admin: Admin,
  scope: HangingScope,
  nowMs: number,
): Promise<HangingTransaction[]> {
  const partitions = await searchScope(admin, scope);
  const candidates: Omit<HangingTransaction, 'transactionalId'>[] = [];
  for (let i = 0; i < partitions.length; i += BATCH) {
    for (const p of await admin.describeProducers(partitions.slice(i, i + BATCH)))
      for (const s of p.activeProducers) {
        if (s.currentTransactionStartOffset === null) continue;
        const openMs = nowMs - Number(s.lastTimestamp);
        if (openMs <= scope.maxTransactionTimeoutMs) continue;
        candidates.push({
          topic: p.topic,
          partition: p.partition,
          producerId: s.producerId,
          producerEpoch: s.producerEpoch,
          coordinatorEpoch: s.coordinatorEpoch ?? -1,
          startOffset: s.currentTransactionStartOffset,
          lastTimestamp: s.lastTimestamp,
          durationMinutes: Math.floor(openMs / 60_000),
        });
      }
  }
  if (candidates.length === 0) return [];
  const producerIds = [...new Set(candidates.map((c) => c.producerId))];
  const owners = new Map<bigint, string>();
  for (const l of await admin.listTransactions({ producerIds }))
    if (producerIds.includes(l.producerId)) owners.set(l.producerId, l.transactionalId);
  const described = new Map<string, TransactionDescription | null>();
  for (const id of new Set(owners.values())) described.set(id, await describeOrNull(admin, id));
  return candidates
    .map((c) => ({ ...c, transactionalId: owners.get(c.producerId) ?? null }))
    .filter((c) => {
      const d = c.transactionalId === null ? null : described.get(c.transactionalId);
      if (d === null || d === undefined) return true;
      // Still the coordinator's: it will write the marker itself.
      return !(
        d.producerId === c.producerId &&
        d.partitions.some((p) => p.topic === c.topic && p.partition === c.partition)
      );
    });
}

async function describeOrNull(admin: Admin, id: string): Promise<TransactionDescription | null> {
  try {
    return (await admin.describeTransactions([id]))[0] ?? null;
  } catch (e) {
    if (e instanceof KafkaResponseError && e.code === 'TRANSACTIONAL_ID_NOT_FOUND') return null;
    throw e;
  }
}
