// KIP-890 verification against a transaction coordinator on another broker. TxnOffsetCommit
// reaches the *group* coordinator, which must check that the producer is current and that its
// open transaction includes the group's __consumer_offsets partition; when the transactional
// id's __transaction_state partition is led by another broker, that broker's coordinator is
// asked. Kafka asks with AddPartitionsToTxn v4 VerifyOnly; here the question is DescribeTransactions,
// whose answer the receiving broker always gives from its own shard (NOT_COORDINATOR when it has
// none) — a VerifyOnly request reaching a broker that no longer coordinates could be passed on
// again, and two brokers with momentarily different views would pass it back and forth. The
// verdict is computed here with the shard's own rules (`verifyTransaction`).
import { ErrorCode } from '../../../protocol/errors.js';
import {
  type DescribeTransactionsResponse,
  describeTransactionsApi,
} from '../../../protocol/messages/generated/describe-transactions.js';
import type { MetadataView } from '../../metadata/cluster-image.js';
import type { BrokerLinks } from './broker-links.js';
import { verifyTransaction } from './txn-coordinator-shard.js';
import type { TopicPartitionSet, TxnState } from './txn-metadata.js';

export interface RemoteVerifierDeps {
  readonly image: MetadataView;
  readonly links: BrokerLinks;
  readonly nodeId: number;
  /** The internal topic the coordinators live on (`__transaction_state`). */
  readonly topic: string;
}

/** Verifies on the broker leading `partition`; resolves with the Kafka error code. */
export async function verifyRemotely(
  deps: RemoteVerifierDeps,
  partition: number,
  transactionalId: string,
  producerId: bigint,
  epoch: number,
  parts: readonly TopicPartitionSet[],
): Promise<number> {
  const leader = deps.image.topic(deps.topic)?.partitions[partition]?.leader ?? -1;
  // Led here by the image but not loaded (yet, or any more): the client asks again.
  if (leader === deps.nodeId) return ErrorCode.NOT_COORDINATOR;
  const link = leader < 0 ? null : deps.links.get(leader);
  if (link === null) return ErrorCode.COORDINATOR_NOT_AVAILABLE;
  let res: DescribeTransactionsResponse;
  try {
    res = await link.request(describeTransactionsApi, { transactionalIds: [transactionalId] });
  } catch {
    return ErrorCode.COORDINATOR_NOT_AVAILABLE;
  }
  const s = res.transactionStates.find((t) => t.transactionalId === transactionalId);
  if (s === undefined) return ErrorCode.COORDINATOR_NOT_AVAILABLE;
  if (s.errorCode === ErrorCode.TRANSACTIONAL_ID_NOT_FOUND)
    return verifyTransaction(undefined, producerId, epoch, parts);
  if (s.errorCode !== ErrorCode.NONE) return s.errorCode;
  return verifyTransaction(
    {
      producerId: s.producerId,
      producerEpoch: s.producerEpoch,
      state: s.transactionState as TxnState,
      partitions: s.topics.map((t) => ({ topic: t.topic, partitions: [...t.partitions] })),
    },
    producerId,
    epoch,
    parts,
  );
}
