// confluent-kafka-python (librdkafka 2.0.2, /usr/bin/python3) over client quotas: a producer
// whose client id has a tiny producer_byte_rate and a consumer with a tiny consumer_byte_rate
// are throttled (librdkafka's throttle_cb, or the `throttle` window of its statistics, reports
// it) and still deliver / read every record. No speed is asserted.

import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { Admin, Producer } from '../../src/client/index.js';
import { startTestBroker, type TestBroker } from '../../src/testkit/index.js';
import { setClientIdQuota } from '../broker/quota/support.js';
import { repoFile } from '../support/repo.js';
import { scaled } from '../support/timeouts.js';
import { exec } from './support/exec.js';

const SCRIPT = repoFile('test/interop/python/ck_throttled.py');
let broker: TestBroker;
let admin: Admin;

before(async () => {
  // Three 1-second windows: about 2 s of credit, so throttling starts early.
  broker = await startTestBroker({ overrides: { 'num.partitions': 1, 'quota.window.num': 3 } });
  admin = new Admin({ bootstrapServers: broker.bootstrap });
});
after(async () => {
  await admin?.close();
  await broker?.close();
});

const setQuota = (clientId: string, key: 'producer_byte_rate' | 'consumer_byte_rate', value: number) =>
  setClientIdQuota(admin, broker, clientId, key, value);

interface Summary {
  throttles: number[];
  stats_throttle_max: number;
  errors: string[];
  delivered?: number;
  elapsed_ms?: number;
  unflushed?: number;
  consumed?: number;
}

async function run(topic: string, n: number, mode: string, clientId: string): Promise<Summary> {
  const r = await exec('/usr/bin/python3', [SCRIPT, broker.bootstrap, topic, String(n), mode, clientId], {
    timeoutMs: 150_000,
  });
  assert.equal(r.code, 0, r.stderr);
  return JSON.parse(r.stdout.toString()) as Summary;
}

test('librdkafka producer over producer_byte_rate: throttle reported, every record delivered', {
  timeout: scaled(200_000),
}, async () => {
  const clientId = 'ck-throttled-producer';
  await setQuota(clientId, 'producer_byte_rate', 2000);
  const s = await run('ck-throttled-produce', 30, 'produce', clientId);
  assert.deepEqual(
    { delivered: s.delivered, unflushed: s.unflushed, errors: s.errors },
    {
      delivered: 30,
      unflushed: 0,
      errors: [],
    },
  );
  assert.ok(
    s.throttles.some((t) => t > 0) || s.stats_throttle_max > 0,
    `throttling reported: throttle_cb ${JSON.stringify(s.throttles)}, stats max ${s.stats_throttle_max}`,
  );
  // The quota held although librdkafka pipelines its requests (the broker handles a quota'd
  // client's requests one at a time, so each mute holds the next): 15 KB at 2 KB/s with about
  // 4 KB of credit cannot be done in 2 s. A lower bound only; no speed is asserted.
  assert.ok(s.elapsed_ms! >= 2000, `produced in ${s.elapsed_ms} ms`);
});

test('librdkafka consumer over consumer_byte_rate: throttle reported, every record read', {
  timeout: scaled(200_000),
}, async () => {
  const topic = 'ck-throttled-fetch';
  const producer = new Producer({ bootstrapServers: broker.bootstrap, clientId: 'ck-unthrottled' });
  try {
    // One small batch per record: a fetch whose first batch alone exceeds the quota's window is
    // answered empty every time, so batches stay small here.
    const value = Buffer.alloc(500, 'c');
    for (let i = 0; i < 30; i++) await producer.send({ topic, partition: 0, value });
  } finally {
    await producer.close();
  }
  const clientId = 'ck-throttled-consumer';
  await setQuota(clientId, 'consumer_byte_rate', 2000);
  const s = await run(topic, 30, 'consume', clientId);
  assert.deepEqual({ consumed: s.consumed, errors: s.errors }, { consumed: 30, errors: [] });
  assert.ok(
    s.throttles.some((t) => t > 0) || s.stats_throttle_max > 0,
    `throttling reported: throttle_cb ${JSON.stringify(s.throttles)}, stats max ${s.stats_throttle_max}`,
  );
});
