// Which partition of an internal topic owns a group id or transactional id. Kafka computes
// `Utils.abs(id.hashCode()) % numPartitions` (GroupMetadataManager / TransactionStateManager
// `partitionFor`); matching it keeps offsets and transaction state in the partitions that Kafka
// tools (and a later migration to or from Kafka) expect.

import { ErrorCode, KafkaError } from './errors.js';

/** Kafka's default for both `offsets.topic.num.partitions` and `transaction.state.log.num.partitions`. */
export const DEFAULT_COORDINATOR_PARTITIONS = 50;

/** Java `String.hashCode`: `31 * h + c` over UTF-16 code units with int32 overflow. */
export function javaStringHashCode(s: string): number {
  let h = 0;
  for (let i = 0; i < s.length; i++) h = (Math.imul(31, h) + s.charCodeAt(i)) | 0;
  return h;
}

/** Kafka's `Utils.abs`: `Math.abs`, except that INT32_MIN (whose absolute value overflows) gives 0. */
export function javaUtilsAbs(n: number): number {
  return n === -2147483648 ? 0 : Math.abs(n);
}

/** Partition of `__consumer_offsets` (group id) or `__transaction_state` (transactional id). */
export function coordinatorPartition(
  id: string,
  numPartitions: number = DEFAULT_COORDINATOR_PARTITIONS,
): number {
  if (!Number.isInteger(numPartitions) || numPartitions <= 0 || numPartitions > 0x7fffffff) {
    throw new KafkaError(
      ErrorCode.INVALID_PARTITIONS,
      `Internal topic partition count must be a positive int32, got ${numPartitions}.`,
    );
  }
  return javaUtilsAbs(javaStringHashCode(id)) % numPartitions;
}
