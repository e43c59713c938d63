// Admin.listConsumerGroupOffsets and a transaction's pending offsets (TxnOffsetCommit sent, no
// EndTxn yet — here a transactional producer that went away mid-transaction). By default, as
// Kafka's admin (requireStable false), the group's committed offsets come back and the pending
// one stays hidden; with requireStable the coordinator answers UNSTABLE_OFFSET_COMMIT, which is
// retried until the transaction ends (then the stable offsets come back) or the call's timeout
// passes (then it is thrown).
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { Admin, KafkaResponseError, Producer } from '../../../src/client/index.js';
import { ErrorCode } from '../../../src/protocol/errors.js';
import { scaled } from '../../support/timeouts.js';
import { type TestBroker, testBroker } from './helpers.js';

const TOPIC = 'stable-offsets';

let tb: TestBroker;
let admin: Admin;
before(async () => {
  tb = await testBroker({ 'transaction.state.log.num.partitions': 3, 'offsets.topic.num.partitions': 3 });
  admin = new Admin({ bootstrapServers: tb.broker.bootstrap });
  await admin.createTopics([{ name: TOPIC, numPartitions: 2, replicationFactor: 1 }]);
});
after(async () => {
  await admin?.close();
  await tb?.stop();
});

const text = (offsets: readonly { topic: string; partition: number; offset: bigint }[]): string[] =>
  offsets.map((o) => `${o.topic}-${o.partition}@${o.offset}`).sort();

/**
 * Commits offsets 3 and 4 for the group, then leaves a transaction open holding offset 8 for
 * partition 0: the producer sends its offsets to the transaction and is closed without commit
 * or abort, as a killed one (the broker's transaction timeout is far away).
 */
async function pendingTransactionalOffset(group: string, transactionalId: string): Promise<void> {
  await admin.alterConsumerGroupOffsets(group, [
    { topic: TOPIC, partition: 0, offset: 3n },
    { topic: TOPIC, partition: 1, offset: 4n },
  ]);
  const p = new Producer({ bootstrapServers: tb.broker.bootstrap, transactionalId });
  await p.initTransactions();
  p.beginTransaction();
  await p.sendOffsetsToTransaction([{ topic: TOPIC, partition: 0, offset: 8n }], group);
  await p.close();
}

function isUnstable(err: unknown): boolean {
  return err instanceof KafkaResponseError && err.errorCode === ErrorCode.UNSTABLE_OFFSET_COMMIT;
}

test('default (requireStable false): the committed offsets, the pending one hidden', async () => {
  await pendingTransactionalOffset('stable-default', 'stable-default-txn');
  assert.deepEqual(text(await admin.listConsumerGroupOffsets('stable-default')), [
    `${TOPIC}-0@3`,
    `${TOPIC}-1@4`,
  ]);
  assert.deepEqual(
    text(await admin.listConsumerGroupOffsets('stable-default', [{ topic: TOPIC, partition: 0 }])),
    [`${TOPIC}-0@3`],
  );
  assert.deepEqual(
    text(await admin.listConsumerGroupOffsets('stable-default', undefined, { requireStable: false })),
    [`${TOPIC}-0@3`, `${TOPIC}-1@4`],
  );
});

test('requireStable: UNSTABLE_OFFSET_COMMIT is retried until the transaction ends, thrown at the timeout', async () => {
  await pendingTransactionalOffset('stable-required', 'stable-required-txn');
  await assert.rejects(
    admin.listConsumerGroupOffsets('stable-required', undefined, { requireStable: true, timeoutMs: 1500 }),
    isUnstable,
  );
  // The unaffected partition alone is stable.
  assert.deepEqual(
    text(
      await admin.listConsumerGroupOffsets('stable-required', [{ topic: TOPIC, partition: 1 }], {
        requireStable: true,
      }),
    ),
    [`${TOPIC}-1@4`],
  );
  // A retrying call gets the stable offsets once the transaction ends: the next producer with the
  // same transactional.id aborts it, so the pending offset is dropped.
  const waiting = admin.listConsumerGroupOffsets('stable-required', undefined, {
    requireStable: true,
    timeoutMs: scaled(60_000),
  });
  let settled = false;
  void waiting.then(
    () => {
      settled = true;
    },
    () => {
      settled = true;
    },
  );
  await new Promise((r) => setTimeout(r, 500));
  assert.equal(settled, false, 'the call waits while the offset is pending');
  const next = new Producer({
    bootstrapServers: tb.broker.bootstrap,
    transactionalId: 'stable-required-txn',
  });
  try {
    await next.initTransactions();
  } finally {
    await next.close();
  }
  assert.deepEqual(text(await waiting), [`${TOPIC}-0@3`, `${TOPIC}-1@4`]);
});

test('requireStable after the transaction commits: the transaction’s offset', async () => {
  await admin.alterConsumerGroupOffsets('stable-committed', [{ topic: TOPIC, partition: 0, offset: 3n }]);
  const p = new Producer({ bootstrapServers: tb.broker.bootstrap, transactionalId: 'stable-committed-txn' });
  try {
    await p.initTransactions();
    p.beginTransaction();
    await p.sendOffsetsToTransaction([{ topic: TOPIC, partition: 0, offset: 8n }], 'stable-committed');
    assert.deepEqual(text(await admin.listConsumerGroupOffsets('stable-committed')), [`${TOPIC}-0@3`]);
    await p.commitTransaction();
  } finally {
    await p.close();
  }
  for (const requireStable of [false, true])
    assert.deepEqual(
      text(await admin.listConsumerGroupOffsets('stable-committed', undefined, { requireStable })),
      [`${TOPIC}-0@8`],
    );
});
