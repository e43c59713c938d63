// Consumer lag on /metrics (kafka_exporter's names): a kafkajs group's committed offsets, lag in
// records and the lag sum equal what was produced minus what was committed; lag in seconds is
// the age of the record at the committed offset and grows while nothing is consumed; a group
// that consumed everything has lag 0 and lag_seconds 0.

import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { type Admin, Kafka, logLevel, type Producer } from 'kafkajs';
import { startTestBroker, type TestBroker } from '../../src/testkit/index.js';
import { type Exposition, parsePrometheusText, samplesOf } from '../support/prometheus-text.js';
import { scaled } from '../support/timeouts.js';

const TOPIC = 'lagged';
const GROUP = 'lag-group';
/** Records produced to partitions 0, 1, 2, and the offsets the group commits. */
const PRODUCED = [10, 7, 4];
const COMMITTED = [3, 7, 0];

let broker: TestBroker;
let kafka: Kafka;
let admin: Admin;
let producer: Producer;
let producedAt: { from: number; to: number };

before(async () => {
  broker = await startTestBroker({
    overrides: { 'http.listener': '127.0.0.1:0', 'group.initial.rebalance.delay.ms': 0 },
  });
  kafka = new Kafka({ brokers: [broker.bootstrap], logLevel: logLevel.NOTHING });
  admin = kafka.admin();
  await admin.connect();
  await admin.createTopics({ topics: [{ topic: TOPIC, numPartitions: 3 }] });
  producer = kafka.producer();
  await producer.connect();
  const from = Date.now();
  for (const [partition, n] of PRODUCED.entries())
    await producer.send({
      topic: TOPIC,
      messages: Array.from({ length: n }, (_, i) => ({ partition, value: `r${i}` })),
    });
  producedAt = { from, to: Date.now() };
  // An Empty group's commit, made by kafkajs (OffsetCommit with generation -1).
  await admin.setOffsets({
    groupId: GROUP,
    topic: TOPIC,
    partitions: COMMITTED.map((offset, partition) => ({ partition, offset: String(offset) })),
  });
});
after(async () => {
  await producer?.disconnect();
  await admin?.disconnect();
  await broker?.close();
});

async function scrape(): Promise<Exposition> {
  const res = await fetch(`http://127.0.0.1:${broker.http!.port}/metrics`, {
    signal: AbortSignal.timeout(scaled(20_000)),
  });
  assert.equal(res.status, 200);
  return parsePrometheusText(await res.text());
}

const byPartition = (e: Exposition, name: string, group = GROUP) =>
  samplesOf(e, name, { consumergroup: group, topic: TOPIC })
    .sort((a, b) => Number(a.labels.partition) - Number(b.labels.partition))
    .map((s) => s.value);

test('committed offsets, lag and lag sum equal produced minus committed', async () => {
  const e = await scrape();
  for (const name of [
    'kafka_consumergroup_current_offset',
    'kafka_consumergroup_lag',
    'kafka_consumergroup_lag_sum',
    'kafka_consumergroup_lag_seconds',
  ])
    assert.equal(e.types.get(name), 'gauge', name);
  assert.deepEqual(byPartition(e, 'kafka_consumergroup_current_offset'), COMMITTED);
  const lags = PRODUCED.map((n, p) => n - COMMITTED[p]!);
  assert.deepEqual(byPartition(e, 'kafka_consumergroup_lag'), lags);
  assert.deepEqual(byPartition(e, 'kafka_consumergroup_lag_sum'), [lags.reduce((a, b) => a + b)]);
});

test('lag in seconds is the age of the record at the committed offset and grows', async () => {
  const t0 = Date.now();
  const first = byPartition(await scrape(), 'kafka_consumergroup_lag_seconds');
  const t1 = Date.now();
  assert.equal(first.length, 3);
  // Partition 1 is caught up: 0. The others: their record at the committed offset was produced
  // between producedAt.from and producedAt.to.
  assert.equal(first[1], 0);
  for (const p of [0, 2]) {
    assert.ok(first[p]! >= (t0 - producedAt.to) / 1000 - 0.001, `p${p}: ${first[p]} too small`);
    assert.ok(first[p]! <= (t1 - producedAt.from) / 1000 + 0.001, `p${p}: ${first[p]} too large`);
  }
  await sleep(1500);
  const second = byPartition(await scrape(), 'kafka_consumergroup_lag_seconds');
  for (const p of [0, 2]) assert.ok(second[p]! - first[p]! >= 1.4, `p${p}: ${first[p]} → ${second[p]}`);
  assert.equal(second[1], 0);
});

test('a kafkajs consumer that consumed and committed everything has no lag', {
  timeout: scaled(120_000),
}, async () => {
  const group = 'lag-consumed';
  const consumer = kafka.consumer({ groupId: group, sessionTimeout: 10_000 });
  await consumer.connect();
  await consumer.subscribe({ topic: TOPIC, fromBeginning: true });
  let seen = 0;
  const total = PRODUCED.reduce((a, b) => a + b);
  await consumer.run({
    eachMessage: async () => {
      seen++;
    },
  });
  try {
    const deadline = Date.now() + scaled(60_000);
    for (;;) {
      const e = await scrape();
      const lag = byPartition(e, 'kafka_consumergroup_lag', group);
      const offsets = byPartition(e, 'kafka_consumergroup_current_offset', group);
      if (seen >= total && lag.length === 3 && offsets.every((o, p) => o === PRODUCED[p])) {
        assert.deepEqual(lag, [0, 0, 0]);
        assert.deepEqual(byPartition(e, 'kafka_consumergroup_lag_seconds', group), [0, 0, 0]);
        break;
      }
      assert.ok(Date.now() < deadline, `timed out: seen ${seen}/${total}, offsets ${offsets}, lag ${lag}`);
      await sleep(200);
    }
  } finally {
    await consumer.disconnect();
  }
});
