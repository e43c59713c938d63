// librdkafka 2.0.2 never opens fetch sessions (KIP-227): every Fetch it sends has SessionId 0 and
// SessionEpoch -1. Against a broker with the session cache on (Kafka's default 1,000 slots),
// kcat -C and a confluent-kafka-python group consumer read every record once while records keep
// arriving, and the broker holds no fetch session for them at any moment; our consumer, in the
// same conditions, does hold one (so the watch below can see a session when there is one).
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { Admin } from '../../src/client/admin/admin.js';
import { Consumer } from '../../src/client/consumer/index.js';
import { Producer } from '../../src/client/producer/producer.js';
import { startTestBroker, type TestBroker } from '../../src/testkit/index.js';
import { ConsumerProc, waitFor } from './support/consumer-procs.js';
import { exec } from './support/exec.js';

const PARTITIONS = 8;
const BATCHES = 10;
const PER_BATCH = 200;
let broker: TestBroker;

before(async () => {
  broker = await startTestBroker({ overrides: { 'group.initial.rebalance.delay.ms': 0 } });
});
after(async () => {
  await broker?.close();
});

/** The most fetch sessions the broker held at once while `run` ran (sampled every 5 ms). */
async function mostSessions<T>(run: () => Promise<T>): Promise<{ result: T; most: number }> {
  const cache = broker.services.fetchSessions!;
  let most = cache.size;
  const timer = setInterval(() => {
    most = Math.max(most, cache.size);
  }, 5);
  try {
    const result = await run();
    return { result, most: Math.max(most, cache.size) };
  } finally {
    clearInterval(timer);
  }
}

async function createTopic(topic: string): Promise<void> {
  const admin = new Admin({ bootstrapServers: broker.bootstrap });
  try {
    await admin.createTopics([{ name: topic, numPartitions: PARTITIONS, replicationFactor: 1 }]);
  } finally {
    await admin.close();
  }
}

/** Writes BATCHES × PER_BATCH records `topic-i`, a batch every 50 ms, while the reader reads. */
async function produceWhileReading(topic: string): Promise<void> {
  const p = new Producer({ bootstrapServers: broker.bootstrap, lingerMs: 5 });
  try {
    for (let b = 0; b < BATCHES; b++) {
      await Promise.all(
        Array.from({ length: PER_BATCH }, (_, k) => {
          const i = b * PER_BATCH + k;
          return p.send({ topic, partition: i % PARTITIONS, value: `${topic}-${i}` });
        }),
      );
      await new Promise((r) => setTimeout(r, 50));
    }
  } finally {
    await p.close();
  }
}

const TOTAL = BATCHES * PER_BATCH;

test('kcat -C reads every record once, sessionless, while records keep coming', {
  timeout: 180_000,
}, async () => {
  assert.ok(broker.services.fetchSessions !== undefined, 'the broker has a session cache');
  const topic = 'sessionless-kcat';
  await createTopic(topic);
  const { result, most } = await mostSessions(async () => {
    const reading = exec(
      'kcat',
      ['-b', broker.bootstrap, '-C', '-t', topic, '-o', 'beginning', '-c', String(TOTAL), '-q', '-f', '%s\n'],
      { timeoutMs: 120_000 },
    );
    await produceWhileReading(topic);
    return reading;
  });
  assert.equal(result.code, 0, result.stderr);
  const values = result.stdout.toString().split('\n').filter(Boolean);
  assert.equal(values.length, TOTAL);
  assert.equal(new Set(values).size, TOTAL, 'every record once');
  assert.equal(most, 0, 'no fetch session was opened for kcat');
});

test('a confluent-kafka-python group consumer reads everything, sessionless', {
  timeout: 180_000,
}, async () => {
  const topic = 'sessionless-ck';
  await createTopic(topic);
  const ck = ConsumerProc.python('ck', [broker.bootstrap, 'sessionless-group', topic, 'range']);
  try {
    const { most } = await mostSessions(async () => {
      await produceWhileReading(topic);
      await waitFor(() => ck.records.length >= TOTAL, 120_000, `${TOTAL} records read by librdkafka`);
    });
    const keys = ck.records.map((r) => `${r.partition}/${r.offset}`);
    assert.equal(new Set(keys).size, TOTAL, 'every record once');
    assert.equal(keys.length, TOTAL, 'none twice');
    assert.equal(most, 0, 'no fetch session was opened for librdkafka');
  } finally {
    await ck.kill('SIGTERM');
  }
});

test('the same watch sees the session our consumer opens', { timeout: 180_000 }, async () => {
  const topic = 'sessionful-ours';
  await createTopic(topic);
  const c = new Consumer({
    bootstrapServers: broker.bootstrap,
    autoOffsetReset: 'earliest',
    fetchMaxWaitMs: 100,
  });
  c.assign(Array.from({ length: PARTITIONS }, (_, partition) => ({ topic, partition })));
  const seen = new Set<string>();
  try {
    const { most } = await mostSessions(async () => {
      let done = false;
      const reading = (async () => {
        while (!done) for (const r of await c.poll(100)) seen.add(`${r.partition}/${r.offset}`);
      })();
      try {
        await produceWhileReading(topic);
        await waitFor(() => seen.size >= TOTAL, 120_000, `${TOTAL} records read by our consumer`);
      } finally {
        done = true;
        await reading;
      }
    });
    assert.equal(seen.size, TOTAL);
    assert.ok(most >= 1, 'our consumer fetched in a session');
  } finally {
    await c.close();
  }
});
