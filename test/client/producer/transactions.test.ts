// TransactionManager state machine against a scripted coordinator (the broker's transaction
// coordinator does not exist yet): partitions are sent only after AddPartitionsToTxn, commit
// and abort send EndTxn, CONCURRENT_TRANSACTIONS is retried, fencing is fatal, a failed batch
// makes the transaction abortable only.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { Coordinators } from '../../../src/client/coordinator.js';
import {
  FatalProducerError,
  IllegalStateError,
  TransactionAbortableError,
} from '../../../src/client/errors.js';
import { ProducerIdentity } from '../../../src/client/producer/idempotence.js';
import { TransactionManager } from '../../../src/client/producer/transactions.js';
import { ErrorCode } from '../../../src/protocol/errors.js';

interface Call {
  api: string;
  body: Record<string, unknown>;
}

function setup(script: Partial<Record<string, number[]>> = {}) {
  const calls: Call[] = [];
  const next = (api: string): number => script[api]?.shift() ?? 0;
  const link = {
    request: async (api: { name: string }, body: Record<string, unknown>) => {
      calls.push({ api: api.name, body });
      const errorCode = next(api.name);
      if (api.name === 'AddPartitionsToTxn') {
        const topics = body['v3AndBelowTopics'] as { name: string; partitions: number[] }[];
        return {
          throttleTimeMs: 0,
          errorCode: 0,
          resultsByTransaction: [],
          resultsByTopicV3AndBelow: topics.map((t) => ({
            name: t.name,
            resultsByPartition: t.partitions.map((p) => ({
              partitionIndex: p,
              partitionErrorCode: errorCode,
            })),
          })),
        };
      }
      if (api.name === 'TxnOffsetCommit') {
        return { throttleTimeMs: 0, topics: [{ name: 't', partitions: [{ partitionIndex: 0, errorCode }] }] };
      }
      return { throttleTimeMs: 0, errorCode, producerId: 77n, producerEpoch: 3 };
    },
  };
  const coordinators = { find: async () => link, invalidate: () => {} } as unknown as Coordinators;
  const identity = new ProducerIdentity(
    async (req) => {
      calls.push({ api: 'InitProducerId', body: req as unknown as Record<string, unknown> });
      return { throttleTimeMs: 0, errorCode: next('InitProducerId'), producerId: 77n, producerEpoch: 3 };
    },
    'tx-1',
    60000,
    1,
    2000,
  );
  const aborted: Error[] = [];
  let wakes = 0;
  const tm = new TransactionManager(
    'tx-1',
    identity,
    coordinators,
    { wakeSender: () => wakes++, flush: async () => {}, abortUnsent: (e) => aborted.push(e) },
    { requestTimeoutMs: 2000, retryBackoffMs: 1, retryBackoffMaxMs: 5 },
  );
  return { tm, calls, aborted, wakes: () => wakes };
}

test('init, begin, add partitions before sending, commit with EndTxn', async () => {
  const { tm, calls } = setup({
    InitProducerId: [ErrorCode.CONCURRENT_TRANSACTIONS],
    AddPartitionsToTxn: [ErrorCode.CONCURRENT_TRANSACTIONS],
  });
  assert.throws(() => tm.beginTransaction(), IllegalStateError);
  await tm.initTransactions();
  assert.equal(tm.state, 'READY');
  assert.throws(() => tm.checkCanAppend(), IllegalStateError);
  tm.beginTransaction();
  tm.checkCanAppend();
  tm.addPartition('t', 0);
  tm.addPartition('t', 1);
  assert.equal(tm.canSend('t', 0), false, 'not before the coordinator accepted the partition');
  await tm.sendOffsetsToTransaction([{ topic: 't', partition: 0, offset: 5n }], 'g1');
  for (let i = 0; i < 100 && !tm.canSend('t', 1); i++) await new Promise((r) => setTimeout(r, 5));
  assert.ok(tm.canSend('t', 0) && tm.canSend('t', 1), 'sendable once added');
  await tm.commitTransaction();
  assert.equal(tm.state, 'READY');
  const names = calls.map((c) => c.api);
  assert.deepEqual(names.filter((n) => n === 'InitProducerId').length, 2, 'CONCURRENT_TRANSACTIONS retried');
  assert.ok(names.indexOf('AddOffsetsToTxn') < names.indexOf('TxnOffsetCommit'));
  const end = calls.find((c) => c.api === 'EndTxn')!;
  assert.equal(end.body['committed'], true);
  assert.equal(end.body['producerId'], 77n);
  const adds = calls.filter((c) => c.api === 'AddPartitionsToTxn');
  assert.ok(adds.length >= 2);
  assert.equal(tm.canSend('t', 1), false, 'a new transaction starts with no partitions');
});

test('a failed batch makes the transaction abortable; abort sends EndTxn(false)', async () => {
  const { tm, calls, aborted } = setup();
  await tm.initTransactions();
  tm.beginTransaction();
  tm.addPartition('t', 0);
  tm.onBatchFailed(new Error('boom'));
  assert.equal(tm.state, 'ABORTABLE_ERROR');
  assert.throws(() => tm.checkCanAppend(), TransactionAbortableError);
  await assert.rejects(tm.commitTransaction(), TransactionAbortableError);
  await tm.abortTransaction();
  assert.equal(tm.state, 'READY');
  assert.equal(calls.find((c) => c.api === 'EndTxn')!.body['committed'], false);
  assert.equal(aborted.length, 1, 'unsent batches failed on abort');
});

test('PRODUCER_FENCED from the coordinator is fatal', async () => {
  const { tm } = setup({ EndTxn: [ErrorCode.PRODUCER_FENCED] });
  await tm.initTransactions();
  tm.beginTransaction();
  tm.addPartition('t', 0);
  await assert.rejects(tm.commitTransaction(), FatalProducerError);
  assert.equal(tm.state, 'FATAL_ERROR');
  assert.throws(() => tm.beginTransaction(), FatalProducerError);
});

test('a fenced InitProducerId fails initTransactions with a fatal error', async () => {
  const { tm } = setup({ InitProducerId: [ErrorCode.PRODUCER_FENCED] });
  await assert.rejects(tm.initTransactions(), FatalProducerError);
});
