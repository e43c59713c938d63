// Transaction protocol v2 (KIP-890 part 2) on the wire, against one broker at its default
// `transaction.version` (2, Kafka 4.0's for a new cluster): ApiVersions finalizes the feature;
// Produce v12 adds its partitions to the transaction (no AddPartitionsToTxn); EndTxn v5 bumps
// the epoch, the markers carry the new one and the answer hands it over; a late Produce at the
// old epoch is fenced on the transaction's partitions and elsewhere; read_committed readers
// (kcat) see exactly the committed records; TxnOffsetCommit v5 adds the offsets partition; bad
// input (stale and future epochs, unknown ids, mixed producers, a truncated frame) gets Kafka's
// errors and the broker keeps serving.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { ErrorCode } from '../../../src/protocol/errors.js';
import { encodeRequest } from '../../../src/protocol/messages/frame.js';
import { apiVersionsApi } from '../../../src/protocol/messages/generated/api-versions.js';
import { describeTransactionsApi } from '../../../src/protocol/messages/generated/describe-transactions.js';
import { endTxnApi } from '../../../src/protocol/messages/generated/end-txn.js';
import { offsetFetchApi } from '../../../src/protocol/messages/generated/offset-fetch.js';
import { produceApi } from '../../../src/protocol/messages/generated/produce.js';
import { startTestBroker, type TestBroker } from '../../../src/testkit/index.js';
import { scaled } from '../../support/timeouts.js';
import { RawClient } from '../support/raw-client.js';
import { createTopic } from '../support/wire.js';
import { kcatRead } from './interop-support.js';
import {
  addPartitions,
  batchesOf,
  coordinatorOf,
  endTxn,
  GROUP,
  initPid,
  type Pid,
  produceTo,
  txnBatch,
  txnOffsetCommit,
  waitForTxnCoordinator,
} from './txn-v2-wire-support.js';

const TOPIC = 'v2-wire';
const T = { timeout: scaled(120_000) };

let broker: TestBroker;
let c: RawClient;

before(async () => {
  broker = await startTestBroker();
  c = await RawClient.connect(broker.port);
  assert.equal(await createTopic(c, TOPIC, 6), ErrorCode.NONE);
  await waitForTxnCoordinator(c);
});

after(async () => {
  c?.close();
  await broker?.close();
});

const describe = async (id: string) =>
  (await c.request(describeTransactionsApi, 0, { transactionalIds: [id] })).transactionStates[0]!;

const committedValues = async (isolation: 'read_committed' | 'read_uncommitted', key: string) =>
  (await kcatRead(broker.bootstrap, TOPIC, isolation))
    .filter((r) => r.key === key)
    .map((r) => r.value)
    .sort();

test(
  'ApiVersions: transaction.version finalized at 2; Produce v12, EndTxn v5, TxnOffsetCommit v5 offered',
  T,
  async () => {
    for (const version of [3, 4]) {
      const r = await c.request(apiVersionsApi, version, {
        clientSoftwareName: 'test',
        clientSoftwareVersion: '1',
      });
      assert.equal(r.errorCode, ErrorCode.NONE);
      assert.deepEqual(r.finalizedFeatures, [
        { name: 'transaction.version', maxVersionLevel: 2, minVersionLevel: 2 },
      ]);
      assert.ok(r.finalizedFeaturesEpoch > 0n, 'a finalized features epoch');
      // A supported range starting at 0 only from v4 (KAFKA-17492).
      assert.deepEqual(
        r.supportedFeatures,
        version >= 4 ? [{ name: 'transaction.version', minVersion: 0, maxVersion: 2 }] : [],
      );
      const max = (key: number) => r.apiKeys.find((k) => k.apiKey === key)?.maxVersion;
      assert.deepEqual([max(0), max(26), max(28)], [12, 5, 5]);
    }
  },
);

test(
  'Produce v12 adds the partitions; EndTxn v5 commits with epoch + 1 on the markers and in the answer',
  T,
  async () => {
    const p = await initPid(c, 'v2-commit');
    for (const partition of [0, 1]) {
      const r = await produceTo(c, 12, p.id, TOPIC, partition, txnBatch(p, 0, [`commit-${partition}`]));
      assert.equal(r.errorCode, ErrorCode.NONE, r.errorMessage ?? '');
    }
    const open = await describe(p.id);
    assert.equal(open.transactionState, 'Ongoing');
    assert.deepEqual(open.topics, [{ topic: TOPIC, partitions: [0, 1] }]);
    assert.deepEqual(await committedValues('read_committed', p.id), [], 'nothing visible before the commit');
    const end = await endTxn(c, 5, p, true);
    assert.deepEqual(
      [end.errorCode, end.producerId, end.producerEpoch],
      [ErrorCode.NONE, p.producerId, p.producerEpoch + 1],
    );
    for (const partition of [0, 1]) {
      const marker = (await batchesOf(c, TOPIC, partition))
        .filter((b) => b.producerId === p.producerId)
        .at(-1)!;
      assert.deepEqual(
        [marker.control, marker.producerEpoch],
        [true, p.producerEpoch + 1],
        'the marker epoch',
      );
    }
    assert.deepEqual(await committedValues('read_committed', p.id), ['commit-0', 'commit-1']);
    // A retry of the same EndTxn (its answer lost) gets the same answer.
    const again = await endTxn(c, 5, p, true);
    assert.deepEqual([again.errorCode, again.producerEpoch], [ErrorCode.NONE, p.producerEpoch + 1]);
  },
);

test(
  'a late Produce at the old epoch is fenced everywhere; the next transaction runs at the new one',
  T,
  async () => {
    const p = await initPid(c, 'v2-fence');
    assert.equal(
      (await produceTo(c, 12, p.id, TOPIC, 2, txnBatch(p, 0, ['first']))).errorCode,
      ErrorCode.NONE,
    );
    const end = await endTxn(c, 5, p, true);
    assert.equal(end.errorCode, ErrorCode.NONE);
    const next: Pid = { ...p, producerEpoch: end.producerEpoch };
    const leo = async (partition: number) => (await batchesOf(c, TOPIC, partition)).length;
    const before2 = await leo(2);
    const before3 = await leo(3);
    // The retry of a batch of the committed transaction: on its partition (the marker's epoch is
    // newer), and on a partition that transaction never touched (the coordinator's epoch is).
    const late = await produceTo(c, 12, p.id, TOPIC, 2, txnBatch(p, 1, ['late']));
    assert.equal(late.errorCode, ErrorCode.INVALID_PRODUCER_EPOCH);
    const elsewhere = await produceTo(c, 12, p.id, TOPIC, 3, txnBatch(p, 1, ['late-elsewhere']));
    assert.equal(elsewhere.errorCode, ErrorCode.INVALID_PRODUCER_EPOCH);
    assert.deepEqual([await leo(2), await leo(3)], [before2, before3], 'nothing appended');
    assert.equal((await describe(p.id)).transactionState, 'CompleteCommit', 'no transaction was opened');
    // The producer's next transaction: the new epoch, sequences from 0 again; aborted.
    assert.equal(
      (await produceTo(c, 12, p.id, TOPIC, 3, txnBatch(next, 0, ['aborted']))).errorCode,
      ErrorCode.NONE,
    );
    const abort = await endTxn(c, 5, next, false);
    assert.deepEqual([abort.errorCode, abort.producerEpoch], [ErrorCode.NONE, next.producerEpoch + 1]);
    assert.deepEqual(await committedValues('read_committed', p.id), ['first']);
    assert.deepEqual(await committedValues('read_uncommitted', p.id), ['aborted', 'first']);
  },
);

test('EndTxn v5 with a stale or future epoch, an unknown id or an empty id', T, async () => {
  const p = await initPid(c, 'v2-bad-end');
  assert.equal((await produceTo(c, 12, p.id, TOPIC, 4, txnBatch(p, 0, ['x']))).errorCode, ErrorCode.NONE);
  assert.equal((await endTxn(c, 5, p, true, p.producerEpoch + 1)).errorCode, ErrorCode.PRODUCER_FENCED);
  const fresh = await initPid(c, 'v2-bad-end'); // fences p and aborts its transaction
  assert.equal((await endTxn(c, 5, p, true)).errorCode, ErrorCode.PRODUCER_FENCED, 'the fenced epoch');
  assert.equal((await endTxn(c, 5, fresh, true)).errorCode, ErrorCode.INVALID_TXN_STATE, 'nothing to commit');
  const unknown = await endTxn(c, 5, { ...p, id: 'v2-never-seen' }, true);
  assert.deepEqual(
    [unknown.errorCode, unknown.producerId, unknown.producerEpoch],
    [ErrorCode.INVALID_PRODUCER_ID_MAPPING, -1n, -1],
  );
  assert.equal((await endTxn(c, 5, { ...p, id: '' }, true)).errorCode, ErrorCode.INVALID_REQUEST);
  assert.deepEqual(await committedValues('read_committed', p.id), []);
});

test('Produce v12 with a wrong epoch, without a transactional id, or from two producers', T, async () => {
  const p = await initPid(c, 'v2-bad-produce');
  const other = await initPid(c, 'v2-bad-produce-other');
  const before = (await batchesOf(c, TOPIC, 5)).length;
  const future = await produceTo(c, 12, p.id, TOPIC, 5, txnBatch(p, 0, ['future'], p.producerEpoch + 3));
  assert.equal(future.errorCode, ErrorCode.INVALID_PRODUCER_EPOCH);
  const anonymous = await produceTo(c, 12, null, TOPIC, 5, txnBatch(p, 0, ['anonymous']));
  assert.equal(anonymous.errorCode, ErrorCode.INVALID_TXN_STATE);
  const mixed = await c.request(produceApi, 12, {
    transactionalId: p.id,
    acks: -1,
    timeoutMs: 5000,
    topicData: [
      {
        name: TOPIC,
        partitionData: [
          { index: 5, records: txnBatch(p, 0, ['mine']) },
          { index: 4, records: txnBatch(other, 0, ['theirs']) },
        ],
      },
    ],
  });
  for (const r of mixed.responses[0]!.partitionResponses)
    assert.equal(r.errorCode, ErrorCode.INVALID_PRODUCER_ID_MAPPING);
  assert.equal((await batchesOf(c, TOPIC, 5)).length, before, 'nothing appended');
  assert.equal((await describe(p.id)).transactionState, 'Empty', 'no partition was added');
});

test(
  'TxnOffsetCommit v5 adds the offsets partition: the offsets follow the commit, not an abort',
  T,
  async () => {
    await coordinatorOf(c, GROUP, 'v2-group');
    const fetchOffset = async () =>
      (
        await c.request(offsetFetchApi, 7, {
          groupId: 'v2-group',
          topics: [{ name: TOPIC, partitionIndexes: [0] }],
          groups: [],
          requireStable: false,
        })
      ).topics[0]!.partitions[0]!.committedOffset;
    let p = await initPid(c, 'v2-offsets');
    for (const [offset, commit] of [
      [7n, false],
      [9n, true],
    ] as const) {
      assert.equal(await txnOffsetCommit(c, p, 'v2-group', TOPIC, 0, offset), ErrorCode.NONE);
      assert.deepEqual(
        (await describe(p.id)).topics.map((t) => t.topic),
        ['__consumer_offsets'],
      );
      const end = await endTxn(c, 5, p, commit);
      assert.equal(end.errorCode, ErrorCode.NONE);
      p = { ...p, producerEpoch: end.producerEpoch };
      assert.equal(await fetchOffset(), commit ? offset : -1n);
    }
    // The old epoch cannot commit offsets any more.
    const stale = await txnOffsetCommit(c, p, 'v2-group', TOPIC, 0, 99n, p.producerEpoch - 1);
    assert.equal(stale, ErrorCode.INVALID_PRODUCER_EPOCH);
    assert.equal(await fetchOffset(), 9n);
  },
);

test(
  'protocol v1 keeps working on the same broker: AddPartitionsToTxn v3, Produce v11, EndTxn v4',
  T,
  async () => {
    const p = await initPid(c, 'v1-client');
    await addPartitions(c, p, TOPIC, [0]);
    // v11 verifies only: an unadded partition is refused.
    assert.equal(
      (await produceTo(c, 11, p.id, TOPIC, 1, txnBatch(p, 0, ['v1-unadded']))).errorCode,
      ErrorCode.INVALID_TXN_STATE,
    );
    assert.equal((await produceTo(c, 11, p.id, TOPIC, 0, txnBatch(p, 0, ['v1']))).errorCode, ErrorCode.NONE);
    const end = await endTxn(c, 4, p, true);
    assert.equal(end.errorCode, ErrorCode.NONE);
    const marker = (await batchesOf(c, TOPIC, 0)).filter((b) => b.producerId === p.producerId).at(-1)!;
    assert.deepEqual([marker.control, marker.producerEpoch], [true, p.producerEpoch], 'v1 keeps the epoch');
    assert.equal((await describe(p.id)).producerEpoch, p.producerEpoch);
    assert.deepEqual(await committedValues('read_committed', p.id), ['v1']);
  },
);

test('a truncated EndTxn v5 closes that connection only', T, async () => {
  const bad = await RawClient.connect(broker.port);
  try {
    const frame = Buffer.concat(
      encodeRequest(endTxnApi, 5, 1, 'bad', {
        transactionalId: 'x',
        producerId: 1n,
        producerEpoch: 0,
        committed: true,
      }),
    );
    const cut = frame.subarray(0, frame.length - 6);
    cut.writeInt32BE(cut.length - 4, 0);
    bad.send([cut]);
    assert.equal(await bad.waitClosed(scaled(10_000)), true);
  } finally {
    bad.close();
  }
  const ok = await c.request(apiVersionsApi, 3, { clientSoftwareName: 'test', clientSoftwareVersion: '1' });
  assert.equal(ok.errorCode, ErrorCode.NONE);
});

test(
  'EndTxn v5 abort with nothing open fences the epoch: what the producer still sends is refused',
  T,
  async () => {
    const p = await initPid(c, 'v2-self-fence');
    const r = await endTxn(c, 5, p, false);
    // Kafka 4.1+: an abort with no transaction open bumps the epoch and writes no marker.
    assert.deepEqual(
      [r.errorCode, r.producerId, r.producerEpoch],
      [ErrorCode.NONE, p.producerId, p.producerEpoch + 1],
    );
    const late = await produceTo(c, 12, p.id, TOPIC, 1, txnBatch(p, 0, ['after-self-fence']));
    assert.equal(late.errorCode, ErrorCode.INVALID_PRODUCER_EPOCH);
    const s = await describe(p.id);
    assert.deepEqual([s.transactionState, s.producerEpoch], ['CompleteAbort', p.producerEpoch + 1]);
    assert.deepEqual(await committedValues('read_uncommitted', p.id), []);
  },
);

test("the next transaction's first write racing the last one's markers is never refused", T, async () => {
  // EndTxn v5 on one connection, the next transaction's Produce v12 at once on another: the
  // write meets the completing transaction (CONCURRENT_TRANSACTIONS, waited out by the broker or
  // retried here as a client does) and the previous marker landing meanwhile, never a refusal.
  const other = await RawClient.connect(broker.port);
  try {
    let p = await initPid(c, 'v2-race');
    const values: string[] = [];
    // Next sequence per partition at the current epoch (a new epoch starts them at 0).
    let seqs = new Map<number, number>();
    const write = async (pid: Pid, partition: number, value: string) => {
      const seq = seqs.get(partition) ?? 0;
      let r = await produceTo(c, 12, pid.id, TOPIC, partition, txnBatch(pid, seq, [value]));
      for (let i = 0; r.errorCode === ErrorCode.CONCURRENT_TRANSACTIONS; i++) {
        assert.ok(i < scaled(200), 'timed out: the transaction never completed');
        await new Promise((res) => setTimeout(res, 20));
        r = await produceTo(c, 12, pid.id, TOPIC, partition, txnBatch(pid, seq, [value]));
      }
      assert.equal(r.errorCode, ErrorCode.NONE, `${value}: ${r.errorMessage}`);
      seqs.set(partition, seq + 1);
      values.push(value);
    };
    for (let round = 0; round < 8; round++) {
      for (const partition of [0, 1]) await write(p, partition, `race-${round}-${partition}`);
      const ending = endTxn(other, 5, p, true);
      const next: Pid = { ...p, producerEpoch: p.producerEpoch + 1 };
      seqs = new Map();
      await write(next, round % 2, `race-${round + 1}-first`);
      const end = await ending;
      assert.deepEqual([end.errorCode, end.producerEpoch], [ErrorCode.NONE, next.producerEpoch]);
      p = next;
    }
    assert.equal((await endTxn(c, 5, p, true)).errorCode, ErrorCode.NONE);
    // Each round's first write of the next transaction is in it (sequence 1 follows it there).
    assert.deepEqual(await committedValues('read_committed', p.id), values.sort());
  } finally {
    other.close();
  }
});
