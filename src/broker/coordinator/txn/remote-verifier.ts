// KIP-890 verification against a transaction coordinator on another broker. TxnOffsetCommit
// reaches the *group* coordinator, which must check that the producer is current and that its
// open transaction includes the group's __consumer_offsets partition; when the transactional
// id's __transaction_state partition is led by another broker, that broker's coordinator is
// asked. Kafka asks with AddPartitionsToTxn v4 VerifyOnly; here the question is DescribeTransactions,
// whose answer the receiving broker always gives from its own shard (NOT_COORDINATOR when it has
// none) — a VerifyOnly request reaching a broker that no longer coordinates could be passed on
// again, and two brokers with momentarily different views would pass it back and forth. The
// verdict is computed here with the shard's own rules (`verifyTransaction`).
//
// Transaction protocol v2 (KIP-890 part 2) needs a write, not a question: the partitions of a
// Produce v12 or TxnOffsetCommit v5 are added by the coordinating broker (`addRemotely`), with
// AddPartitionsToTxn v5 VerifyOnly=false as Kafka's brokers send it. The receiving broker adds
// them on its own shard or answers NOT_COORDINATOR; it never passes the request on.

import type { BrokerLink } from '../../../net/broker-link.js';
import { ErrorCode } from '../../../protocol/errors.js';
import {
  type AddPartitionsToTxnResponse,
  addPartitionsToTxnApi,
} from '../../../protocol/messages/generated/add-partitions-to-txn.js';
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

/** The link to the broker leading `partition` of the coordinators' topic, or the error code to answer. */
function coordinatorLink(deps: RemoteVerifierDeps, partition: number): BrokerLink | number {
  const leader = deps.image.topic(deps.topic)?.partitions[partition]?.leader ?? -1;
  // Led here by the image but not loaded (yet, or any more): the client asks again.
  if (leader === deps.nodeId) return ErrorCode.NOT_COORDINATOR;
  return (leader < 0 ? null : deps.links.get(leader)) ?? ErrorCode.COORDINATOR_NOT_AVAILABLE;
}

/**
 * Adds `parts` to the transaction on the broker leading `partition` (protocol v2); resolves with
 * the first partition error or NONE. A refusal of the whole request (CLUSTER_AUTHORIZATION_FAILED:
 * this broker may not act for clients there) is INVALID_TXN_STATE, as Kafka's brokers report it.
 */
export async function addRemotely(
  deps: RemoteVerifierDeps,
  partition: number,
  transactionalId: string,
  producerId: bigint,
  epoch: number,
  parts: readonly TopicPartitionSet[],
): Promise<number> {
  const link = coordinatorLink(deps, partition);
  if (typeof link === 'number') return link;
  let res: AddPartitionsToTxnResponse;
  try {
    res = await link.request(
      addPartitionsToTxnApi,
      {
        transactions: [
          {
            transactionalId,
            producerId,
            producerEpoch: epoch,
            verifyOnly: false,
            topics: parts.map((t) => ({ name: t.topic, partitions: [...t.partitions] })),
          },
        ],
        v3AndBelowTransactionalId: '',
        v3AndBelowProducerId: -1n,
        v3AndBelowProducerEpoch: -1,
        v3AndBelowTopics: [],
      },
      { minVersion: 4 },
    );
  } catch {
    return ErrorCode.COORDINATOR_NOT_AVAILABLE;
  }
  if (res.errorCode !== ErrorCode.NONE)
    return res.errorCode === ErrorCode.CLUSTER_AUTHORIZATION_FAILED
      ? ErrorCode.INVALID_TXN_STATE
      : res.errorCode;
  const t = res.resultsByTransaction.find((x) => x.transactionalId === transactionalId);
  if (t === undefined) return ErrorCode.COORDINATOR_NOT_AVAILABLE;
  for (const topic of t.topicResults)
    for (const p of topic.resultsByPartition)
      if (p.partitionErrorCode !== ErrorCode.NONE) return p.partitionErrorCode;
  return ErrorCode.NONE;
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
  const link = coordinatorLink(deps, partition);
  if (typeof link === 'number') return link;
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
