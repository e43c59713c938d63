// TxnOffsetCommit (key 28), v0-5: offsets committed inside the producer's transaction. The
// transaction coordinator first checks that the producer is current and that its open
// transaction includes the group's __consumer_offsets partition (AddOffsetsToTxn; KIP-890
// verification). From v5 (transaction protocol v2, KIP-890 part 2) the client sends no
// AddOffsetsToTxn: the partition is added to the transaction here instead (v5 answers
// UNSUPPORTED_VERSION while `transaction.version` is below 2). The group coordinator then
// validates the member/generation (v3+; none = a commit from outside the group) and writes the
// offsets as a transactional batch. They stay invisible to OffsetFetch until the transaction's
// COMMIT marker (ABORT drops them). A fenced producer gets INVALID_PRODUCER_EPOCH (this API has
// no PRODUCER_FENCED). Partitions of unknown topics, or beyond a topic's partition count, are
// answered UNKNOWN_TOPIC_OR_PARTITION before anything else (commit-partitions.ts); the other
// checks and errors apply to the rest only.

import { ErrorCode } from '../../protocol/errors.js';
import {
  type TxnOffsetCommitRequest,
  type TxnOffsetCommitResponse,
  txnOffsetCommitApi,
} from '../../protocol/messages/generated/txn-offset-commit.js';
import { CONSUMER_OFFSETS_TOPIC } from '../coordinator/group/broker-group-coordinator.js';
import { producerFencedFor } from '../coordinator/txn/txn-api-errors.js';
import { defineApi, type RequestContext } from './api.js';
import { AclOp, allowed, ResType, splitDeniedTopics } from './authorize.js';
import {
  type CommitResultTopic,
  coordinatorTopics,
  mergeCommitResults,
  splitUnknownPartitions,
} from './commit-partitions.js';

/** The first TxnOffsetCommit version of transaction protocol v2. */
const FIRST_V2_VERSION = 5;

export default defineApi<TxnOffsetCommitRequest, TxnOffsetCommitResponse>({
  api: txnOffsetCommitApi,
  minVersion: 0,
  maxVersion: 5,
  async handle(ctx, req) {
    // Kafka: WRITE on the transactional id, READ on the group (each refusing every partition),
    // then READ on each topic.
    const refuseAll = (errorCode: number) => ({
      throttleTimeMs: 0,
      topics: req.topics.map((t) => ({
        name: t.name,
        partitions: t.partitions.map((p) => ({ partitionIndex: p.partitionIndex, errorCode })),
      })),
    });
    if (!allowed(ctx, AclOp.WRITE, ResType.TRANSACTIONAL_ID, req.transactionalId))
      return refuseAll(ErrorCode.TRANSACTIONAL_ID_AUTHORIZATION_FAILED);
    if (!allowed(ctx, AclOp.READ, ResType.GROUP, req.groupId))
      return refuseAll(ErrorCode.GROUP_AUTHORIZATION_FAILED);
    const { allowedTopics, refused } = splitDeniedTopics(ctx, AclOp.READ, req.topics);
    const split = splitUnknownPartitions(ctx.broker.image, allowedTopics);
    const known = split.known;
    const unknown = refused.length === 0 ? split.unknown : [...refused, ...split.unknown];
    if (known.length === 0) return { throttleTimeMs: 0, topics: [...unknown] };
    return { throttleTimeMs: 0, topics: mergeCommitResults(unknown, await commitKnown(ctx, req, known)) };
  },
});

async function commitKnown(
  ctx: RequestContext,
  req: TxnOffsetCommitRequest,
  topics: readonly TxnOffsetCommitRequest['topics'][number][],
): Promise<CommitResultTopic[]> {
  const v = ctx.version;
  const all = (errorCode: number): CommitResultTopic[] =>
    topics.map((t) => ({
      name: t.name,
      partitions: t.partitions.map((p) => ({ partitionIndex: p.partitionIndex, errorCode })),
    }));
  const { txns, groups } = ctx.broker;
  if (txns === undefined || groups === undefined) return all(ErrorCode.COORDINATOR_NOT_AVAILABLE);
  if (req.groupId === '') return all(ErrorCode.INVALID_GROUP_ID);
  const gc = groups.coordinator;
  const availability = gc.availability(req.groupId);
  if (availability !== ErrorCode.NONE) return all(availability);
  const offsetsPartition = [{ topic: CONSUMER_OFFSETS_TOPIC, partitions: [gc.partitionFor(req.groupId)] }];
  let verified: number;
  if (v >= FIRST_V2_VERSION) {
    if (txns.transactionVersion.level < 2) return all(ErrorCode.UNSUPPORTED_VERSION);
    verified = await txns.coordinator.addImplicitly(
      req.transactionalId,
      req.producerId,
      req.producerEpoch,
      offsetsPartition,
    );
  } else
    verified = await txns.coordinator.verify(
      req.transactionalId,
      req.producerId,
      req.producerEpoch,
      offsetsPartition,
    );
  if (verified !== ErrorCode.NONE) return all(producerFencedFor(verified, false));
  const results = await gc.commitTransactionalOffsets(
    {
      groupId: req.groupId,
      generationId: v >= 3 ? req.generationId : -1,
      memberId: v >= 3 ? req.memberId : '',
      groupInstanceId: v >= 3 ? req.groupInstanceId : null,
      retentionTimeMs: -1,
      topics: coordinatorTopics(topics, v >= 2),
    },
    { producerId: req.producerId, producerEpoch: req.producerEpoch },
  );
  return results.map((t) => ({
    name: t.name,
    partitions: t.partitions.map((p) => ({
      partitionIndex: p.partition,
      errorCode: producerFencedFor(p.errorCode, false),
    })),
  }));
}
