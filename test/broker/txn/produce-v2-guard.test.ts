// Produce v12's add against a real partition log, with the coordinator's answers scripted: the
// previous transaction's marker (at the epoch the write carries, protocol v2) landing between
// taking the verification guard and the coordinator's answer drops the guard, and the write is
// asked again with a fresh one instead of being refused; a marker of a *newer* epoch (the
// transaction that was just added ended, or was fenced) refuses it; CONCURRENT_TRANSACTIONS is
// asked again for a while; protocol v1 (Produce v11) keeps refusing a write whose guard was
// dropped, which is the race KIP-890 part 1 closes.
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { ProduceTxnVerification } from '../../../src/broker/apis/produce-txn-verification.js';
import type { BrokerServices } from '../../../src/broker/apis/services.js';
import { Partition } from '../../../src/broker/replica/partition.js';
import { ErrorCode, KafkaError } from '../../../src/protocol/errors.js';
import { encodeControlBatch, encodeRecordBatchSync } from '../../../src/protocol/record-batch/index.js';
import { LogManager } from '../../../src/storage/index.js';

const TOPIC = 'guarded';
let dir: string;
let logs: LogManager;
let partition: Partition;
let nextPid = 100n;

before(async () => {
  dir = await mkdtemp(join(tmpdir(), 'samsa-v2-guard-'));
  logs = await LogManager.open({ logDirs: [dir] });
  const log = await logs.createLog(TOPIC, 0, { topicId: 'AAAAAAAAAAAAAAAAAAAAAA' });
  partition = new Partition(
    TOPIC,
    'AAAAAAAAAAAAAAAAAAAAAA',
    log,
    {
      partition: 0,
      leader: 1,
      leaderEpoch: 0,
      replicas: [1],
      isr: [1],
    },
    1,
  );
});

after(async () => {
  await logs.close();
  await rm(dir, { recursive: true, force: true });
});

const data = (pid: bigint, epoch: number, seq: number, value: string) =>
  encodeRecordBatchSync([{ value: Buffer.from(value) }], {
    producerId: pid,
    producerEpoch: epoch,
    baseSequence: seq,
    transactional: true,
  });

const marker = (pid: bigint, epoch: number) =>
  encodeControlBatch({
    type: 'COMMIT',
    coordinatorEpoch: 0,
    producerId: pid,
    producerEpoch: epoch,
    timestamp: 0n,
  });

/** Broker services whose coordinator answers with `answer` (called once per question). */
function services(
  answer: (attempt: number) => Promise<number>,
  level = 2,
): { broker: BrokerServices; asked: () => number } {
  let n = 0;
  const ask = () => answer(n++);
  const broker = {
    txns: {
      transactionVersion: { level, epoch: 1n },
      coordinator: { addImplicitly: ask, verify: ask },
    },
    configs: { brokerValue: () => undefined },
    logger: { log() {} },
  } as unknown as BrokerServices;
  return { broker, asked: () => n };
}

/** A producer whose transaction at `epoch` is open on the partition (written without verification). */
async function openTransaction(epoch: number): Promise<bigint> {
  const pid = nextPid++;
  await partition.appendAsLeader(data(pid, epoch, 0, 'previous'), 1, 1);
  return pid;
}

test("v12: the previous transaction's marker dropping the guard meanwhile → asked again, appended", async () => {
  const pid = await openTransaction(4);
  const { broker, asked } = services(async (attempt) => {
    // The previous transaction (epoch 4) ends with its v2 marker at epoch 5 while the first
    // question is out; the coordinator then has the new transaction at 5 with this partition.
    if (attempt === 0) await partition.appendAsLeader(marker(pid, 5), 1, 1, 'coordinator');
    return ErrorCode.NONE;
  });
  const r = await new ProduceTxnVerification(broker, 'tx', 12).append(
    TOPIC,
    partition,
    data(pid, 5, 0, 'next'),
    1,
    1,
  );
  assert.ok(r.baseOffset >= 0n);
  assert.equal(asked(), 2, 'asked again with a fresh guard');
  assert.equal(partition.log.startTransactionVerification(pid, 5).epoch, -1, 'the transaction is open at 5');
});

test('v11: the same race refuses the write (the guard belonged to a transaction that ended)', async () => {
  // A late first write of a transaction at epoch 4: verified (answer racing the transaction's
  // own end), its marker at the same epoch lands before the answer.
  const pid = nextPid++;
  const { broker, asked } = services(async () => {
    await partition.appendAsLeader(marker(pid, 4), 1, 1, 'coordinator');
    return ErrorCode.NONE;
  });
  await assert.rejects(
    new ProduceTxnVerification(broker, 'tx', 11).append(TOPIC, partition, data(pid, 4, 0, 'late'), 1, 1),
    (e: unknown) => e instanceof KafkaError && e.code === ErrorCode.INVALID_TXN_STATE,
  );
  assert.equal(asked(), 1);
});

test('v12: a marker of a newer epoch meanwhile → the coordinator answers fenced on the second question', async () => {
  const pid = await openTransaction(4);
  const { broker, asked } = services(async (attempt) => {
    if (attempt === 0) {
      await partition.appendAsLeader(marker(pid, 6), 1, 1, 'coordinator');
      return ErrorCode.NONE;
    }
    return ErrorCode.PRODUCER_FENCED;
  });
  await assert.rejects(
    new ProduceTxnVerification(broker, 'tx', 12).append(TOPIC, partition, data(pid, 5, 0, 'stale'), 1, 1),
    (e: unknown) => e instanceof KafkaError && e.code === ErrorCode.INVALID_PRODUCER_EPOCH,
  );
  assert.equal(asked(), 2);
});

test('v12: CONCURRENT_TRANSACTIONS is asked again, then answered as it is', async () => {
  const pid = await openTransaction(2);
  const once = services(async (attempt) =>
    attempt === 0 ? ErrorCode.CONCURRENT_TRANSACTIONS : ErrorCode.NONE,
  );
  const r = await new ProduceTxnVerification(once.broker, 'tx', 12).append(
    TOPIC,
    partition,
    data(pid, 3, 0, 'a'),
    1,
    1,
  );
  assert.ok(r.baseOffset >= 0n);
  assert.equal(once.asked(), 2);
  const pid2 = await openTransaction(2);
  const always = services(async () => ErrorCode.CONCURRENT_TRANSACTIONS);
  await assert.rejects(
    new ProduceTxnVerification(always.broker, 'tx', 12).append(TOPIC, partition, data(pid2, 3, 0, 'b'), 1, 1),
    (e: unknown) => e instanceof KafkaError && e.code === ErrorCode.CONCURRENT_TRANSACTIONS,
  );
  assert.ok(always.asked() >= 2, 'asked again before giving up');
});

test('v12 at transaction.version 1: UNSUPPORTED_VERSION without asking', async () => {
  const pid = await openTransaction(0);
  const { broker, asked } = services(async () => ErrorCode.NONE, 1);
  await assert.rejects(
    new ProduceTxnVerification(broker, 'tx', 12).append(TOPIC, partition, data(pid, 1, 0, 'refused'), 1, 1),
    (e: unknown) => e instanceof KafkaError && e.code === ErrorCode.UNSUPPORTED_VERSION,
  );
  assert.equal(asked(), 0);
});
