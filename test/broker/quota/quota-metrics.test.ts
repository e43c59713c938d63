// Quota metrics in /metrics, named as the JMX exporter's quota rules render Kafka's
// (type=Produce|Fetch|Request, user, client-id): a kafkajs producer over its producer_byte_rate
// shows its byte rate and the mean throttle time it was given; a client without a quota has no
// series (Kafka keeps no sensor for it here either).

import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { Kafka, logLevel } from 'kafkajs';
import { Admin } from '../../../src/client/index.js';
import { startTestBroker, type TestBroker } from '../../../src/testkit/index.js';
import { type Exposition, parsePrometheusText, samplesOf } from '../../support/prometheus-text.js';
import { scaled } from '../../support/timeouts.js';
import { setClientIdQuota } from './support.js';

let broker: TestBroker;
let admin: Admin;

before(async () => {
  broker = await startTestBroker({ overrides: { 'num.partitions': 1, 'http.listener': '127.0.0.1:0' } });
  admin = new Admin({ bootstrapServers: broker.bootstrap });
});
after(async () => {
  await admin?.close();
  await broker?.close();
});

async function scrape(): Promise<Exposition> {
  assert.ok(broker.http);
  const res = await fetch(`http://127.0.0.1:${broker.http.port}/metrics`, {
    signal: AbortSignal.timeout(scaled(20_000)),
  });
  assert.equal(res.status, 200);
  return parsePrometheusText(await res.text());
}

test('a producer over its byte-rate quota: its rate and throttle time per client id', async () => {
  const clientId = 'metered-producer';
  await setClientIdQuota(admin, broker, clientId, 'producer_byte_rate', 500);
  const send = async (id: string, n: number) => {
    const kafka = new Kafka({ clientId: id, brokers: [broker.bootstrap], logLevel: logLevel.NOTHING });
    const producer = kafka.producer({ allowAutoTopicCreation: true });
    await producer.connect();
    try {
      for (let i = 0; i < n; i++)
        await producer.send({
          topic: 'quota-metrics',
          acks: 1,
          messages: [{ value: Buffer.alloc(500, 'q') }],
        });
    } finally {
      await producer.disconnect();
    }
  };
  // ~8 KB against 500 B/s with ten windows of credit: the last sends are throttled.
  await send(clientId, 16);
  await send('free-producer', 3);

  const e = await scrape();
  const labels = { resource: 'Produce', user: '', clientId };
  const [rate] = samplesOf(e, 'kafka_server_quota_byte_rate', labels);
  assert.ok(rate !== undefined, 'a byte rate for the quota-bound client');
  // 16 × ~570 B over at least ten one-second windows (the rate's minimum span, Kafka's too).
  assert.ok(rate.value > 100 && rate.value < 16 * 1000, `byte rate ${rate.value}`);
  const [throttle] = samplesOf(e, 'kafka_server_quota_throttle_time', labels);
  assert.ok(throttle !== undefined && throttle.value > 0, `throttle time ${throttle?.value}`);
  assert.equal(
    samplesOf(e, 'kafka_server_quota_byte_rate', { clientId: 'free-producer' }).length,
    0,
    'no series for a client without a quota',
  );
  assert.ok(e.types.has('kafka_server_quota_request_time'), 'the request-time family is there');
});
