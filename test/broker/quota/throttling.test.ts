// Clients over quota are throttled and recover, as with Kafka: kafkajs producers and consumers
// whose client id has a small byte-rate quota see throttle_time_ms > 0 (kafkajs logs the
// client-side throttle KIP-219 asks for) and still get every record acknowledged / delivered;
// removing the quota stops the throttling.

import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { Kafka, type LogEntry, logLevel } from 'kafkajs';
import { Admin } from '../../../src/client/index.js';
import { startTestBroker, type TestBroker } from '../../../src/testkit/index.js';
import { scaled } from '../../support/timeouts.js';
import { setClientIdQuota, waitFor } from './support.js';

let broker: TestBroker;
let admin: Admin;

before(async () => {
  broker = await startTestBroker({ overrides: { 'num.partitions': 1 } });
  admin = new Admin({ bootstrapServers: broker.bootstrap });
});
after(async () => {
  await admin?.close();
  await broker?.close();
});

/** A kafkajs client whose "client side throttling" debug lines are counted. */
function kafkajs(clientId: string) {
  const throttles: number[] = [];
  const kafka = new Kafka({
    clientId,
    brokers: [broker.bootstrap],
    logLevel: logLevel.DEBUG,
    logCreator: () => (entry: LogEntry) => {
      const m = /Client side throttling in effect for (\d+)ms/.exec(entry.log.message);
      if (m) throttles.push(Number(m[1]));
    },
  });
  return { kafka, throttles };
}

const setQuota = (clientId: string, key: 'producer_byte_rate' | 'consumer_byte_rate', value: number | null) =>
  setClientIdQuota(admin, broker, clientId, key, value);

const RECORD = Buffer.alloc(500, 'x');

test('kafkajs producer over producer_byte_rate: throttled, every record acknowledged, then free again', async () => {
  const clientId = 'slow-producer';
  // 500 B/s: the first ~5 KB fit the 10-window credit, the rest is throttled.
  await setQuota(clientId, 'producer_byte_rate', 500);
  const { kafka, throttles } = kafkajs(clientId);
  const producer = kafka.producer({ allowAutoTopicCreation: true });
  await producer.connect();
  try {
    const started = Date.now();
    let acked = 0;
    for (let i = 0; i < 16; i++) {
      const r = await producer.send({ topic: 'quota-produce', acks: 1, messages: [{ value: RECORD }] });
      acked += r.length;
    }
    assert.equal(acked, 16);
    assert.ok(throttles.length > 0 && throttles.every((t) => t > 0), `throttles seen: ${throttles}`);
    // 8 KB against 500 B/s with 10 s of credit: the throttle held the producer back.
    assert.ok(Date.now() - started >= 2000, `took ${Date.now() - started} ms`);

    await setQuota(clientId, 'producer_byte_rate', null);
    // Let a mute still running from the last throttled response end.
    await new Promise((r) => setTimeout(r, Math.max(...throttles) + 100));
    const before = throttles.length;
    for (let i = 0; i < 16; i++)
      await producer.send({ topic: 'quota-produce', acks: 1, messages: [{ value: RECORD }] });
    assert.equal(throttles.length, before, 'no throttle once the quota is removed');
  } finally {
    await producer.disconnect();
  }
});

test('kafkajs consumer over consumer_byte_rate: throttled fetches, every record delivered', async () => {
  const topic = 'quota-fetch';
  const { kafka: plain } = kafkajs('fast-producer');
  const producer = plain.producer({ allowAutoTopicCreation: true });
  await producer.connect();
  for (let i = 0; i < 30; i++) await producer.send({ topic, acks: 1, messages: [{ value: RECORD }] });
  await producer.disconnect();

  const clientId = 'slow-consumer';
  // 1000 B/s: fetches are capped to 10 KB (one window's worth) and throttled past it.
  await setQuota(clientId, 'consumer_byte_rate', 1000);
  const { kafka, throttles } = kafkajs(clientId);
  const consumer = kafka.consumer({ groupId: 'quota-group', maxWaitTimeInMs: 100 });
  await consumer.connect();
  await consumer.subscribe({ topic, fromBeginning: true });
  let received = 0;
  await consumer.run({
    eachMessage: async () => {
      received++;
    },
  });
  try {
    await waitFor('all 30 records', () => received >= 30, scaled(60_000));
    assert.equal(received, 30);
    assert.ok(throttles.length > 0, 'a fetch was throttled');
  } finally {
    await consumer.disconnect();
  }
});
