// Transactions with librdkafka 2.0.2 (confluent-kafka-python 1.7.0, kcat) against a real
// broker: commit and abort seen exactly right by read_committed and read_uncommitted readers;
// a producer killed inside a transaction is aborted after transaction.timeout.ms, its records
// never become visible and the LSO moves on; a zombie is fenced by a second producer with the
// same transactional id and writes nothing more.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { startTestBroker, type TestBroker } from '../../src/testkit/index.js';
import { kcatRead, Proc, runPython, waitFor } from '../broker/txn/interop-support.js';
import { scaled } from '../support/timeouts.js';

// transaction.timeout.ms runs from a transaction's first partition: a producer that must commit
// or abort by itself gets one no loaded machine reaches (else the coordinator aborts it first and
// the producer is fenced); the one killed inside its transaction gets one short enough to wait
// for, yet long enough that the test sees the transaction still open after the kill.
const TXN_TIMEOUT_MS = 300_000;
const KILLED_TXN_TIMEOUT_MS = scaled(10_000);

const PRODUCER = `
import sys, time
from confluent_kafka import Producer, KafkaException
bootstrap, topic, txid, mode, n, timeout_ms = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4], int(sys.argv[5]), int(sys.argv[6])
p = Producer({'bootstrap.servers': bootstrap, 'transactional.id': txid, 'transaction.timeout.ms': timeout_ms, 'linger.ms': 5})
p.init_transactions(20)
p.begin_transaction()
for i in range(n):
    p.produce(topic, key=str(i), value=f'{mode}-{i}', partition=i % 2)
if mode == 'commit':
    p.commit_transaction(20)
elif mode == 'abort':
    p.flush(20)
    p.abort_transaction(20)
else:
    p.flush(20)
    print('produced', flush=True)
    time.sleep(600)
print('done', flush=True)
`;

const ZOMBIE = `
import sys
from confluent_kafka import Producer, KafkaException
bootstrap, topic = sys.argv[1], sys.argv[2]
conf = {'bootstrap.servers': bootstrap, 'transactional.id': 'zombie-tx', 'transaction.timeout.ms': 30000}
old = Producer(conf)
old.init_transactions(20)
old.begin_transaction()
old.produce(topic, key='old', value='old-1', partition=0)
old.flush(20)
new = Producer(conf)
new.init_transactions(20)   # fences the old producer and aborts its transaction
new.begin_transaction()
new.produce(topic, key='new', value='new-1', partition=0)
new.commit_transaction(20)
print('new committed', flush=True)
errors = []
def report(err, msg):
    if err is not None: errors.append(err.name())
try:
    old.produce(topic, key='old', value='old-2', partition=0, on_delivery=report)
    old.flush(10)
    old.commit_transaction(10)
    print('old committed', flush=True)
except KafkaException as e:
    err = e.args[0]
    print('old failed', err.name(), 'fatal' if err.fatal() else 'abortable' if err.txn_requires_abort() else 'other', flush=True)
print('delivery errors', ','.join(errors), flush=True)
`;

let broker: TestBroker;

before(async () => {
  broker = await startTestBroker({
    overrides: { 'num.partitions': 2, 'transaction.abort.timed.out.transaction.cleanup.interval.ms': 200 },
  });
});

after(async () => {
  await broker.close();
});

test('confluent-kafka: a committed and an aborted transaction; read_committed sees exactly the committed records', {
  timeout: scaled(90_000),
}, async () => {
  assert.deepEqual(
    await runPython(PRODUCER, [broker.bootstrap, 'ck-out', 'ck-commit', 'commit', 20, TXN_TIMEOUT_MS]),
    ['done'],
  );
  assert.deepEqual(
    await runPython(PRODUCER, [broker.bootstrap, 'ck-out', 'ck-abort', 'abort', 15, TXN_TIMEOUT_MS]),
    ['done'],
  );
  const committed = await kcatRead(broker.bootstrap, 'ck-out', 'read_committed');
  assert.deepEqual(
    committed.map((r) => r.value).sort(),
    Array.from({ length: 20 }, (_, i) => `commit-${i}`).sort(),
  );
  const all = await kcatRead(broker.bootstrap, 'ck-out', 'read_uncommitted');
  assert.equal(all.length, 35);
  assert.equal(all.filter((r) => r.value.startsWith('abort-')).length, 15);
  for (const p of [0, 1]) {
    const log = broker.services.replicas.get('ck-out', p)!.log;
    assert.equal(log.lastStableOffset, log.highWatermark, 'nothing left open');
    // Two data batches at most per transaction plus one marker each: offsets 0..n-1 are data.
  }
});

test('confluent-kafka killed inside a transaction: aborted after its timeout, never visible, LSO moves on', {
  timeout: scaled(90_000),
}, async () => {
  const proc = Proc.python(PRODUCER, [
    broker.bootstrap,
    'ck-killed',
    'ck-killed-tx',
    'hang',
    10,
    KILLED_TXN_TIMEOUT_MS,
  ]);
  try {
    await proc.waitLine((l) => l === 'produced', 40_000);
  } finally {
    await proc.kill('SIGKILL');
  }
  const logs = [0, 1].map((p) => broker.services.replicas.get('ck-killed', p)!.log);
  assert.ok(
    logs.some((l) => l.lastStableOffset < l.highWatermark),
    'the open transaction holds the LSO back',
  );
  assert.deepEqual(await kcatRead(broker.bootstrap, 'ck-killed', 'read_committed'), []);
  await waitFor(
    () => logs.every((l) => l.lastStableOffset === l.highWatermark),
    30_000,
    'timeout abort moves the LSO',
  );
  const txn = (await broker.services.txns!.coordinator.describe(['ck-killed-tx']))[0]!;
  assert.equal(txn.state, 'CompleteAbort');
  assert.deepEqual(await kcatRead(broker.bootstrap, 'ck-killed', 'read_committed'), []);
  assert.equal((await kcatRead(broker.bootstrap, 'ck-killed', 'read_uncommitted')).length, 10);
  // The aborted range is in the .txnindex: a read_committed fetch lists it.
  const read = await logs[0]!.read(0n, { maxBytes: 1 << 20, upperBound: 'lso', minOneBatch: true });
  assert.equal(read.abortedTransactions?.length, 1);
});

test('confluent-kafka zombie: a second producer with the same transactional id fences the first', {
  timeout: scaled(90_000),
}, async () => {
  const out = await runPython(ZOMBIE, [broker.bootstrap, 'ck-zombie']);
  assert.equal(out[0], 'new committed');
  const failed = out.find((l) => l.startsWith('old failed'));
  assert.ok(failed !== undefined, `the zombie must not commit: ${out.join(' | ')}`);
  assert.match(failed, /PRODUCER_FENCED|INVALID_PRODUCER_EPOCH|_FENCED/);
  const committed = await kcatRead(broker.bootstrap, 'ck-zombie', 'read_committed');
  assert.deepEqual(
    committed.map((r) => r.value),
    ['new-1'],
  );
  const all = await kcatRead(broker.bootstrap, 'ck-zombie', 'read_uncommitted');
  assert.deepEqual(
    all.map((r) => r.value),
    ['old-1', 'new-1'],
    'the fenced send wrote nothing',
  );
});
