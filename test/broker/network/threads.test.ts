// A broker with `num.network.threads` = 2 (one network thread owns the sockets, the event loop
// handles): every kind of client works through it, hostile input on a thread's connection closes
// that connection alone, and a network thread killed mid-traffic loses nothing acknowledged — its
// connections close, it is started again on the same port, the producer's retries land once.
// The SSL/SASL listeners with threads: `threads-security.test.ts`. The whole interop suite can
// run this way too: SAMSA_TEST_NETWORK_THREADS=2 node tools/run-tests.mjs test/interop.

import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { Kafka, logLevel } from 'kafkajs';
import type { Logger, LogLevel } from '../../../src/broker/logger.js';
import { runningNetworkThreads } from '../../../src/broker/network/threads/network-threads.js';
import { Admin, Consumer, Producer } from '../../../src/client/index.js';
import { apiVersionsApi } from '../../../src/protocol/messages/generated/api-versions.js';
import { startTestBroker, type TestBroker } from '../../../src/testkit/index.js';
import { confluentRoundTrip, kcatRoundTrip } from '../../interop/support/client-roundtrips.js';
import { scaled, TestTimeoutError } from '../../support/timeouts.js';
import { RawClient } from '../support/raw-client.js';

const logs: { level: LogLevel; msg: string; fields?: Readonly<Record<string, unknown>> }[] = [];
const logger: Logger = {
  log: (level, msg, fields) => logs.push({ level, msg, ...(fields ? { fields } : {}) }),
  enabled: (level) => level !== 'debug',
};

let broker: TestBroker;
before(async () => {
  broker = await startTestBroker({
    overrides: { 'num.network.threads': 2, 'group.initial.rebalance.delay.ms': 0, 'num.partitions': 3 },
    logger,
  });
});
after(async () => {
  await broker?.close();
});

async function waitFor(what: string, check: () => boolean | Promise<boolean>, ms = 60_000): Promise<void> {
  const deadline = Date.now() + scaled(ms);
  while (!(await check())) {
    if (Date.now() > deadline) throw new TestTimeoutError(what, scaled(ms));
    await new Promise((r) => setTimeout(r, 50));
  }
}

async function consumeAll(topic: string, group: string, n: number): Promise<string[]> {
  const c = new Consumer({
    bootstrapServers: broker.bootstrap,
    groupId: group,
    autoOffsetReset: 'earliest',
    fetchMaxWaitMs: 200,
  });
  c.subscribe([topic]);
  const values: string[] = [];
  try {
    await waitFor(`${n} records of ${topic}`, async () => {
      for (const r of await c.poll(500)) values.push(String(r.value));
      return values.length >= n;
    });
    await c.commitSync();
  } finally {
    await c.close();
  }
  return values;
}

test('the socket is served by a network thread, not the event loop', () => {
  const threads = runningNetworkThreads();
  assert.equal(threads.length, 1);
  assert.notEqual(threads[0]!.workerOf(0), null);
  assert.equal(threads[0]!.listeners[0]!.port, broker.port);
  assert.ok(logs.some((l) => l.msg === 'network thread started'));
});

test('our client: acks 0, 1 and all; a consumer group with long polls; a transaction', async () => {
  const admin = new Admin({ bootstrapServers: broker.bootstrap });
  await admin.createTopics([{ name: 'acks', numPartitions: 1, replicationFactor: 1 }]);
  await admin.close();
  for (const acks of [0, 1, 'all'] as const) {
    const p = new Producer({ bootstrapServers: broker.bootstrap, acks });
    const sent = await Promise.all(
      Array.from({ length: 100 }, (_, i) => p.send({ topic: 'acks', value: `acks-${acks}-${i}` })),
    );
    await p.close();
    if (acks === 0) assert.ok(sent.every((m) => m.offset === -1n));
    else assert.ok(sent.every((m) => m.offset >= 0n));
  }
  const values = await consumeAll('acks', 'threads-group', 300);
  assert.deepEqual(
    values,
    ['0', '1', 'all'].flatMap((a) => Array.from({ length: 100 }, (_, i) => `acks-${a}-${i}`)),
  );

  // A long poll parked on the event loop answers when a record arrives through another connection.
  const tail = new Consumer({ bootstrapServers: broker.bootstrap, fetchMaxWaitMs: 5_000 });
  tail.assign([{ topic: 'acks', partition: 0 }]);
  tail.seek({ topic: 'acks', partition: 0 }, 300n);
  const polled = tail.poll(scaled(30_000));
  await new Promise((r) => setTimeout(r, 300));
  const late = new Producer({ bootstrapServers: broker.bootstrap });
  await late.send({ topic: 'acks', value: 'late' });
  await late.close();
  const got = await polled;
  await tail.close();
  assert.deepEqual(
    got.map((r) => String(r.value)),
    ['late'],
  );

  const t = new Producer({ bootstrapServers: broker.bootstrap, transactionalId: 'threads-txn' });
  await t.initTransactions();
  t.beginTransaction();
  await t.send({ topic: 'txn', value: 'committed' });
  await t.commitTransaction();
  t.beginTransaction();
  await t.send({ topic: 'txn', value: 'aborted' });
  await t.abortTransaction();
  await t.close();
  const rc = new Consumer({
    bootstrapServers: broker.bootstrap,
    isolationLevel: 'read_committed',
    autoOffsetReset: 'earliest',
  });
  rc.assign([0, 1, 2].map((partition) => ({ topic: 'txn', partition })));
  const committed: string[] = [];
  await waitFor('the committed record', async () => {
    for (const r of await rc.poll(500)) committed.push(String(r.value));
    return committed.length >= 1;
  });
  await rc.close();
  assert.deepEqual(committed, ['committed']);
});

test('kcat, kafkajs and confluent-kafka-python produce and consume', {
  timeout: scaled(180_000),
}, async () => {
  await kcatRoundTrip(
    broker.bootstrap,
    'kcat',
    Array.from({ length: 2000 }, (_, i) => `kcat-${i}`),
  );

  const kafka = new Kafka({
    brokers: [broker.bootstrap],
    clientId: 'threads-kjs',
    logLevel: logLevel.NOTHING,
  });
  const kp = kafka.producer();
  await kp.connect();
  await kp.send({ topic: 'kjs', messages: Array.from({ length: 500 }, (_, i) => ({ value: `kjs-${i}` })) });
  await kp.disconnect();
  const kc = kafka.consumer({ groupId: 'threads-kjs', maxWaitTimeInMs: 200 });
  await kc.connect();
  await kc.subscribe({ topic: 'kjs', fromBeginning: true });
  const seen = new Set<string>();
  await kc.run({
    eachMessage: async ({ message }) => {
      seen.add(String(message.value));
    },
  });
  try {
    await waitFor('kafkajs to read 500 records', () => seen.size >= 500);
  } finally {
    await kc.disconnect();
  }

  await confluentRoundTrip(broker.bootstrap, 'py', 5000, 'lz4');
});

test('hostile input closes that connection only; the others and the broker go on', async () => {
  const bystander = await RawClient.connect(broker.port);
  const before = await bystander.request(apiVersionsApi, 3, {
    clientSoftwareName: 'bystander',
    clientSoftwareVersion: '1',
  });
  assert.equal(before.errorCode, 0);

  const huge = await RawClient.connect(broker.port);
  huge.send(Buffer.from([0x7f, 0xff, 0xff, 0xff, 1, 2, 3]));
  assert.equal(await huge.waitClosed(), true, 'a size past socket.request.max.bytes closes it');

  const negative = await RawClient.connect(broker.port);
  negative.send(Buffer.from([0xff, 0xff, 0xff, 0xfe]));
  assert.equal(await negative.waitClosed(), true);

  const unknownKey = await RawClient.connect(broker.port);
  const body = Buffer.alloc(12);
  body.writeInt32BE(8, 0);
  body.writeInt16BE(999, 4); // no such API
  body.writeInt32BE(7, 8);
  unknownKey.send(body);
  assert.equal(await unknownKey.waitClosed(), true, 'an unknown API key closes it');

  const garbage = await RawClient.connect(broker.port);
  const frame = Buffer.alloc(4 + 64, 0xee);
  frame.writeInt32BE(64, 0);
  frame.writeInt16BE(3, 4); // Metadata
  frame.writeInt16BE(9, 6);
  garbage.send(frame);
  assert.equal(await garbage.waitClosed(), true, 'an undecodable body closes it');

  // Truncated: half a frame, then the peer goes away.
  const truncated = await RawClient.connect(broker.port);
  truncated.send(Buffer.from([0, 0, 0, 100, 0, 18, 0, 3]));
  truncated.close();

  const after = await bystander.request(apiVersionsApi, 3, {
    clientSoftwareName: 'bystander',
    clientSoftwareVersion: '1',
  });
  assert.equal(after.errorCode, 0);
  bystander.close();
  const p = new Producer({ bootstrapServers: broker.bootstrap });
  const md = await p.send({ topic: 'after-hostile', value: 'still serving' });
  await p.close();
  assert.ok(md.offset >= 0n);
  assert.ok(
    logs.some((l) => l.level === 'warn' && /invalid request size/.test(l.msg + JSON.stringify(l.fields))),
  );
});

test('a network thread killed mid-traffic: its connections close, it comes back, nothing acknowledged is lost', {
  timeout: scaled(240_000),
}, async () => {
  const admin = new Admin({ bootstrapServers: broker.bootstrap });
  await admin.createTopics([{ name: 'killed', numPartitions: 1, replicationFactor: 1 }]);
  await admin.close();
  const threads = runningNetworkThreads()[0]!;
  const p = new Producer({ bootstrapServers: broker.bootstrap, acks: 'all', enableIdempotence: true });
  const total = 3000;
  const acked: Promise<unknown>[] = [];
  let sentCount = 0;
  let killed = false;
  for (let i = 0; i < total; i++) {
    acked.push(p.send({ topic: 'killed', value: `v-${i}` }));
    sentCount++;
    if (i % 100 === 99) await new Promise((r) => setTimeout(r, 10));
    if (!killed && i === 1000) {
      killed = true;
      await threads.workerOf(0)!.terminate();
    }
  }
  assert.equal(sentCount, total);
  const results = await Promise.allSettled(acked);
  assert.deepEqual(
    results.filter((r) => r.status === 'rejected').map((r) => String((r as PromiseRejectedResult).reason)),
    [],
  );
  await p.close();
  await waitFor('the network thread to come back', () => threads.workerOf(0) !== null);
  assert.ok(logs.some((l) => l.level === 'error' && /network thread exited/.test(l.msg)));
  const values = await consumeAll('killed', 'after-kill', total);
  assert.equal(values.length, total, 'every acknowledged record once (idempotent retries)');
  assert.deepEqual([...new Set(values)].sort(), Array.from({ length: total }, (_, i) => `v-${i}`).sort());
});
