// Produce (key 0), v0-12 (v0-11 as Kafka 3.9, v12 as Kafka 4.0). v0-2 carry legacy message sets
// (magic 0/1), up-converted to one v2 batch per partition before the append (`legacy-produce.ts`); those versions are not
// pipelined, since the conversion awaits (decompression, zstd) before its append. (v0 in the
// range is also what librdkafka < 2.11 needs before it compresses, KAFKA-18659.) v3+: one v2
// batch per partition, acks 0/1/-1,
// `min.insync.replicas` for acks=-1, v8+ RecordErrors/ErrorMessage, v10+ CurrentLeader.
// Batches go from the request frame to the log untouched except for the offsets, epoch and
// LogAppendTime the log writes in place. Every append is started synchronously, in request
// order, before anything is awaited — that is what makes Produce pipelinable per connection.
// acks=0: no response; any partition error closes the connection instead (Kafka's behaviour).
// acks=-1: after the append, each partition's answer waits until the high watermark passes the
// batch (`Partition.waitForHighWatermark`: the request's timeout → REQUEST_TIMED_OUT, the ISR
// below min.insync.replicas by then → NOT_ENOUGH_REPLICAS_AFTER_APPEND, leadership lost →
// NOT_LEADER_OR_FOLLOWER); acks=1 answers once the leader's append is written.
// A transactional batch that would open a transaction on a partition waits for its coordinator's
// verification first (KIP-890, `produce-txn-verification.ts`), behind which later batches of the
// same producer and partition keep their order. v12 is the same request for transaction protocol
// v2 (KIP-890 part 2): the broker adds the partition to the transaction in that step.

import { ErrorCode, KafkaError } from '../../protocol/errors.js';
import {
  type ProduceRequest,
  type ProduceResponse,
  type ProduceResponsePartitionProduceResponse,
  produceApi,
} from '../../protocol/messages/generated/produce.js';
import { isTransactional } from '../../protocol/record-batch/header.js';
import type { AppendResult } from '../../storage/index.js';
import { remoteWait } from '../metrics/request-stats.js';
import { topicMinIsr } from '../replica/min-isr.js';
import { CloseConnection, defineApi, NO_RESPONSE } from './api.js';
import { AclOp, allowed, deniedNames, ResType } from './authorize.js';
import { appendLegacy } from './legacy-produce.js';
import { notHostedError } from './partition-errors.js';
import { checkNotInternalTopic, checkProducedRecords } from './produce-checks.js';
import { mixedProducers, ProduceTxnVerification } from './produce-txn-verification.js';
import type { BrokerServices } from './services.js';

/** The first version whose records are exactly one RecordBatch v2. */
const FIRST_BATCH_VERSION = 3;

function partitionResult(index: number, r: AppendResult): ProduceResponsePartitionProduceResponse {
  return {
    index,
    errorCode: ErrorCode.NONE,
    baseOffset: r.baseOffset,
    logAppendTimeMs: r.logAppendTime,
    logStartOffset: r.logStartOffset,
    recordErrors: [],
    errorMessage: null,
    currentLeader: { leaderId: -1, leaderEpoch: -1 },
  };
}

function partitionError(
  index: number,
  e: unknown,
  broker: BrokerServices | undefined,
): ProduceResponsePartitionProduceResponse {
  const err =
    e instanceof KafkaError
      ? e
      : new KafkaError(ErrorCode.UNKNOWN_SERVER_ERROR, 'Unexpected error while appending');
  if (!(e instanceof KafkaError)) broker?.logger.log('error', 'produce append failed', { error: String(e) });
  const recordErrors =
    (e as { recordErrors?: { batchIndex: number; message: string | null }[] }).recordErrors ?? [];
  return {
    index,
    errorCode: err.code,
    baseOffset: -1n,
    logAppendTimeMs: -1n,
    logStartOffset: -1n,
    recordErrors: recordErrors.map((r) => ({ batchIndex: r.batchIndex, batchIndexErrorMessage: r.message })),
    errorMessage: err.message,
    currentLeader: { leaderId: -1, leaderEpoch: -1 },
  };
}

const withoutMessage = (
  r: ProduceResponsePartitionProduceResponse,
): ProduceResponsePartitionProduceResponse => ({ ...r, errorMessage: null });

/** Whether any partition carries a transactional batch (the attributes of its first batch). */
function hasTransactionalRecords(req: ProduceRequest): boolean {
  for (const t of req.topicData)
    for (const pd of t.partitionData) {
      const r = pd.records;
      if (r !== null && r.length >= 23 && r[16] === 2 && isTransactional(r.readInt16BE(21))) return true;
    }
  return false;
}

/** Every partition failed with `code` (acks=0: the connection is closed instead, as Kafka does). */
function produceError(req: ProduceRequest, code: number, acks: number): ProduceResponse | CloseConnection {
  if (acks === 0) return new CloseConnection(`acks=0 produce refused: error ${code}`);
  const err = new KafkaError(code);
  return {
    responses: req.topicData.map((t) => ({
      name: t.name,
      partitionResponses: t.partitionData.map((pd) => ({
        ...partitionError(pd.index, err, undefined),
        errorMessage: null,
      })),
    })),
    throttleTimeMs: 0,
    nodeEndpoints: [],
  };
}

export default defineApi<ProduceRequest, ProduceResponse>({
  api: produceApi,
  minVersion: 0,
  maxVersion: 12,
  pipelinable: (version) => version >= FIRST_BATCH_VERSION,
  // Every append has completed (written, or failed) before `handle` resolves (acks=-1 waits
  // for the HW only after its append completed), and the log keeps no reference to a written
  // batch (its tail cache copies small batches), so the request frame may be reused.
  releasesRequest: true,
  async handle(ctx, req) {
    const { broker, version } = ctx;
    const acks = req.acks;
    // Kafka: transactional records need WRITE on their transactional id, else the whole request
    // fails; topics need WRITE, per partition TOPIC_AUTHORIZATION_FAILED (checked before existence).
    if (broker.authorizer !== undefined && version >= FIRST_BATCH_VERSION && hasTransactionalRecords(req)) {
      const id = req.transactionalId;
      if (id === null || !allowed(ctx, AclOp.WRITE, ResType.TRANSACTIONAL_ID, id))
        return produceError(req, ErrorCode.TRANSACTIONAL_ID_AUTHORIZATION_FAILED, acks);
    }
    const denied = deniedNames(ctx, AclOp.WRITE, ResType.TOPIC, req.topicData, (t) => t.name);
    // KIP-890: transactional batches are verified with their coordinator before they open a
    // transaction on a partition (produce-txn-verification.ts).
    const txnCheck = new ProduceTxnVerification(broker, req.transactionalId, version);
    if (version >= FIRST_BATCH_VERSION && req.transactionalId !== null && txnCheck.enabled) {
      const mixed = mixedProducers(req);
      if (mixed !== ErrorCode.NONE) return produceError(req, mixed, acks);
    }
    // Every partition's answer, topic after topic: awaited together, then split by topic.
    const results: Promise<ProduceResponsePartitionProduceResponse>[] = [];
    const stats = broker.metrics?.topics;
    for (const topic of req.topicData) {
      const minIsr = acks === -1 ? topicMinIsr(broker.image, broker.configs, topic.name) : 1;
      for (const pd of topic.partitionData) {
        const fail = (e: unknown) => Promise.resolve(partitionError(pd.index, e, broker));
        if (acks !== 0 && acks !== 1 && acks !== -1) {
          results.push(
            fail(
              new KafkaError(
                ErrorCode.INVALID_REQUIRED_ACKS,
                `Invalid required acks ${acks}; must be -1, 0 or 1`,
              ),
            ),
          );
          continue;
        }
        if (denied?.has(topic.name)) {
          // Kafka answers the code alone (errorMessage null).
          results.push(fail(new KafkaError(ErrorCode.TOPIC_AUTHORIZATION_FAILED)).then(withoutMessage));
          continue;
        }
        const partition = broker.replicas.get(topic.name, pd.index);
        // Kafka counts every partition of a topic it knows, before its own checks.
        if (partition !== undefined || broker.image.topic(topic.name) !== undefined)
          stats?.produceAttempted(topic.name);
        if (!partition) {
          results.push(
            fail(
              new KafkaError(
                notHostedError(broker, topic.name, pd.index),
                `This server does not host ${topic.name}-${pd.index}`,
              ),
            ),
          );
          continue;
        }
        const failed = (e: unknown) => {
          stats?.produceFailed(topic.name, e instanceof KafkaError ? e.code : ErrorCode.UNKNOWN_SERVER_ERROR);
          return fail(e);
        };
        try {
          const legacy = version < FIRST_BATCH_VERSION;
          if (!legacy) checkProducedRecords(pd.records, version, partition.log.config.maxMessageBytes);
          checkNotInternalTopic(topic.name, ctx.header.clientId);
          const appended = legacy
            ? appendLegacy(broker, topic.name, partition, pd.records, acks, minIsr)
            : txnCheck.append(topic.name, partition, pd.records!, acks, minIsr);
          const bytes = pd.records?.length ?? 0;
          results.push(
            acks === -1
              ? appended.then(async (r) => {
                  stats?.appended(topic.name, bytes, r);
                  const code = await remoteWait(
                    ctx.timing,
                    partition.waitForHighWatermark(r.lastOffset + 1n, req.timeoutMs, minIsr),
                  );
                  return code === ErrorCode.NONE
                    ? partitionResult(pd.index, r)
                    : partitionError(pd.index, new KafkaError(code), broker);
                }, failed)
              : appended.then((r) => {
                  stats?.appended(topic.name, bytes, r);
                  return partitionResult(pd.index, r);
                }, failed),
          );
        } catch (e) {
          results.push(failed(e));
        }
      }
    }
    const answers = await Promise.all(results);
    if (acks === 0) {
      const failed = answers.find((p) => p.errorCode !== ErrorCode.NONE);
      return failed ? new CloseConnection(`acks=0 produce failed: ${failed.errorMessage}`) : NO_RESPONSE;
    }
    let next = 0;
    const responses = req.topicData.map((t) => {
      const from = next;
      next += t.partitionData.length;
      return { name: t.name, partitionResponses: answers.slice(from, next) };
    });
    return { responses, throttleTimeMs: 0, nodeEndpoints: [] };
  },
});
