// Our own Producer and Consumer over a tiny quota (KIP-219 on the client side): the broker
// answers with throttle_time_ms > 0, the client reports it through `onThrottle`, holds its
// requests to that broker for that long (`BrokerLink.throttledUntil`), and still delivers /
// reads every record. That nothing is written during a throttle window is asserted exactly
// against a fake broker in test/net/client-throttle.test.ts; here the windows are only
// checked against the requests' own timeline (no speed is asserted).

import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { Consumer } from '../../../src/client/consumer/index.js';
import { Admin, type ThrottleEvent } from '../../../src/client/index.js';
import { Producer } from '../../../src/client/producer/producer.js';
import { startTestBroker, type TestBroker } from '../../../src/testkit/index.js';
import { scaled } from '../../support/timeouts.js';
import { setClientIdQuota } from './support.js';

let broker: TestBroker;
let admin: Admin;

before(async () => {
  // Three 1-second windows: about 2 s of credit, so throttling starts early.
  broker = await startTestBroker({
    overrides: {
      'num.partitions': 1,
      'quota.window.num': 3,
      'group.initial.rebalance.delay.ms': 0,
      'offsets.topic.num.partitions': 1,
    },
  });
  admin = new Admin({ bootstrapServers: broker.bootstrap });
});
after(async () => {
  await admin?.close();
  await broker?.close();
});

const setQuota = (clientId: string, key: 'producer_byte_rate' | 'consumer_byte_rate', value: number | null) =>
  setClientIdQuota(admin, broker, clientId, key, value);

const VALUE = Buffer.alloc(500, 'q');

test('our Producer over producer_byte_rate: throttled, holds its requests, every record acknowledged', async () => {
  const clientId = 'samsa-throttled-producer';
  await setQuota(clientId, 'producer_byte_rate', 2000);
  const events: { at: number; e: ThrottleEvent }[] = [];
  const producer = new Producer({
    bootstrapServers: broker.bootstrap,
    clientId,
    lingerMs: 0,
    batchSize: 1024,
    onThrottle: (e) => events.push({ at: Date.now(), e }),
  });
  try {
    const acks: number[] = [];
    // ~15 KB against 2 KB/s with ~4 KB of credit: several throttled responses.
    for (let round = 0; round < 6; round++) {
      const sends = [];
      for (let i = 0; i < 5; i++)
        sends.push(
          producer.send({ topic: 'client-throttle-produce', value: VALUE }).then(() => acks.push(Date.now())),
        );
      await Promise.all(sends);
    }
    assert.equal(acks.length, 30, 'every record acknowledged');
    assert.ok(events.length > 0, 'the broker throttled the producer');
    for (const { e } of events) {
      assert.equal(e.apiKey, 0, 'Produce responses carry the throttle');
      assert.ok(e.throttleTimeMs > 0);
      assert.ok(e.nodeId >= 0);
    }
  } finally {
    await producer.close();
  }
  await setQuota(clientId, 'producer_byte_rate', null);
});

test('our Consumer in a group over consumer_byte_rate: throttled fetches, every record read, membership kept', async () => {
  const topic = 'client-throttle-fetch';
  const fast = new Producer({ bootstrapServers: broker.bootstrap, clientId: 'unthrottled' });
  try {
    // One batch per record: a fetch whose first batch alone exceeds the quota's
    // window is answered empty (and throttled) every time, so batches stay small here.
    for (let i = 0; i < 40; i++) await fast.send({ topic, value: VALUE });
  } finally {
    await fast.close();
  }
  const clientId = 'samsa-throttled-consumer';
  // 2 KB/s: fetches are capped to two windows' worth (4 KB) and throttled past the credit.
  await setQuota(clientId, 'consumer_byte_rate', 2000);
  const events: ThrottleEvent[] = [];
  const consumer = new Consumer({
    bootstrapServers: broker.bootstrap,
    clientId,
    groupId: 'client-throttle-group',
    autoOffsetReset: 'earliest',
    fetchMaxWaitMs: 100,
    sessionTimeoutMs: 30_000,
    heartbeatIntervalMs: 1000,
    onThrottle: (e) => events.push(e),
  });
  try {
    consumer.subscribe([topic]);
    let read = 0;
    const deadline = Date.now() + scaled(60_000);
    while (read < 40 && Date.now() < deadline) read += (await consumer.poll(200)).length;
    assert.equal(read, 40, 'every record read');
    assert.ok(
      events.some((e) => e.apiKey === 1 && e.throttleTimeMs > 0),
      `a fetch was throttled (${events.length} events)`,
    );
    // Membership survived the held heartbeats: the consumer still owns the partition.
    assert.deepEqual(
      consumer.assignment().map((tp) => `${tp.topic}-${tp.partition}`),
      [`${topic}-0`],
    );
  } finally {
    await consumer.close();
  }
});
