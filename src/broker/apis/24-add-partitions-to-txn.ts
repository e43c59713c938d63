// AddPartitionsToTxn (key 24), v0-5. v0-3 (clients): one transaction, its partitions join the
// transaction (Empty/Complete* → Ongoing). Partitions of unknown topics get
// UNKNOWN_TOPIC_OR_PARTITION and the others OPERATION_NOT_ATTEMPTED, as Kafka answers; any
// coordinator error goes on every partition. v4+ (brokers): a batch of transactions, each
// either added or, with VerifyOnly (KIP-890), checked: a partition already in the producer's
// open transaction answers NONE, another INVALID_TXN_STATE. PRODUCER_FENCED only from v2.
// A v4+ add (VerifyOnly false) is a broker adding a transaction protocol v2 client's partitions
// for its Produce v12 / TxnOffsetCommit v5 (KIP-890 part 2): the transaction becomes a v2 one,
// as Kafka's transactionVersionForAddPartitionsToTxn has it.

import { ErrorCode } from '../../protocol/errors.js';
import {
  type AddPartitionsToTxnRequest,
  type AddPartitionsToTxnRequestAddPartitionsToTxnTopic,
  type AddPartitionsToTxnResponse,
  type AddPartitionsToTxnResponseAddPartitionsToTxnTopicResult,
  addPartitionsToTxnApi,
} from '../../protocol/messages/generated/add-partitions-to-txn.js';
import { producerFencedFor } from '../coordinator/txn/txn-api-errors.js';
import type { TopicPartitionSet } from '../coordinator/txn/txn-metadata.js';
import { defineApi, type RequestContext } from './api.js';
import { AclOp, allowed, clusterAllowed, deniedNames, ResType } from './authorize.js';

type Topics = readonly AddPartitionsToTxnRequestAddPartitionsToTxnTopic[];
type TopicResults = AddPartitionsToTxnResponseAddPartitionsToTxnTopicResult[];

function uniform(topics: Topics, code: (topic: string, partition: number) => number): TopicResults {
  return topics.map((t) => ({
    name: t.name,
    resultsByPartition: t.partitions.map((p) => ({ partitionIndex: p, partitionErrorCode: code(t.name, p) })),
  }));
}

async function addOne(
  ctx: RequestContext,
  id: string,
  pid: bigint,
  epoch: number,
  topics: Topics,
  verifyOnly: boolean,
): Promise<TopicResults> {
  const txns = ctx.broker.txns;
  // Clients (v0-3): WRITE on the transactional id, then on each topic; with a refused topic the
  // others are OPERATION_NOT_ATTEMPTED (Kafka leaves internal topics out of the topic check).
  if (ctx.version <= 3 && ctx.broker.authorizer !== undefined) {
    if (!allowed(ctx, AclOp.WRITE, ResType.TRANSACTIONAL_ID, id))
      return uniform(topics, () => ErrorCode.TRANSACTIONAL_ID_AUTHORIZATION_FAILED);
    const denied = deniedNames(
      ctx,
      AclOp.WRITE,
      ResType.TOPIC,
      topics.filter((t) => !t.name.startsWith('__')),
      (t) => t.name,
    );
    if (denied !== null)
      return uniform(topics, (t) =>
        denied.has(t) ? ErrorCode.TOPIC_AUTHORIZATION_FAILED : ErrorCode.OPERATION_NOT_ATTEMPTED,
      );
  }
  if (txns === undefined) return uniform(topics, () => ErrorCode.COORDINATOR_NOT_AVAILABLE);
  const image = ctx.broker.image;
  const exists = (topic: string, p: number): boolean => {
    const t = image.topic(topic);
    return t !== undefined && p >= 0 && p < t.partitions.length;
  };
  if (topics.some((t) => t.partitions.some((p) => !exists(t.name, p)))) {
    return uniform(topics, (t, p) =>
      exists(t, p) ? ErrorCode.OPERATION_NOT_ATTEMPTED : ErrorCode.UNKNOWN_TOPIC_OR_PARTITION,
    );
  }
  const fenced = (code: number) => producerFencedFor(code, ctx.version >= 2);
  if (verifyOnly) {
    const codes = new Map<string, number>();
    for (const t of topics) {
      for (const p of t.partitions)
        codes.set(
          `${t.name}:${p}`,
          fenced(await txns.coordinator.verify(id, pid, epoch, [{ topic: t.name, partitions: [p] }])),
        );
    }
    return uniform(topics, (t, p) => codes.get(`${t}:${p}`) ?? ErrorCode.UNKNOWN_SERVER_ERROR);
  }
  const parts: TopicPartitionSet[] = topics.map((t) => ({ topic: t.name, partitions: [...t.partitions] }));
  const clientTransactionVersion = ctx.version >= 4 ? 2 : 0;
  const code = fenced(await txns.coordinator.addPartitions(id, pid, epoch, parts, clientTransactionVersion));
  return uniform(topics, () => code);
}

export default defineApi<AddPartitionsToTxnRequest, AddPartitionsToTxnResponse>({
  api: addPartitionsToTxnApi,
  minVersion: 0,
  maxVersion: 5,
  async handle(ctx, req) {
    // v4+ come from brokers verifying a transaction (KIP-890): CLUSTER_ACTION, else a top-level refusal.
    if (ctx.version >= 4 && !clusterAllowed(ctx, AclOp.CLUSTER_ACTION))
      return {
        throttleTimeMs: 0,
        errorCode: ErrorCode.CLUSTER_AUTHORIZATION_FAILED,
        resultsByTransaction: [],
        resultsByTopicV3AndBelow: [],
      };
    if (ctx.version <= 3) {
      const results = await addOne(
        ctx,
        req.v3AndBelowTransactionalId,
        req.v3AndBelowProducerId,
        req.v3AndBelowProducerEpoch,
        req.v3AndBelowTopics,
        false,
      );
      return {
        throttleTimeMs: 0,
        errorCode: ErrorCode.NONE,
        resultsByTransaction: [],
        resultsByTopicV3AndBelow: results,
      };
    }
    const resultsByTransaction = await Promise.all(
      req.transactions.map(async (t) => ({
        transactionalId: t.transactionalId,
        topicResults: await addOne(
          ctx,
          t.transactionalId,
          t.producerId,
          t.producerEpoch,
          t.topics,
          t.verifyOnly,
        ),
      })),
    );
    return {
      throttleTimeMs: 0,
      errorCode: ErrorCode.NONE,
      resultsByTransaction,
      resultsByTopicV3AndBelow: [],
    };
  },
});
