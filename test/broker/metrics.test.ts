// /metrics, /health/live and /health/ready of a broker with `http.listener` set: counters match
// what was produced and fetched (our wire client, our Producer, kcat), request metrics exist for
// every API used, gauges follow topic creation; the listener refuses what it does not serve.

import assert from 'node:assert/strict';
import { connect } from 'node:net';
import { after, before, test } from 'node:test';
import { Admin, Producer } from '../../src/client/index.js';
import { ErrorCode } from '../../src/protocol/errors.js';
import { encodeRequest } from '../../src/protocol/messages/frame.js';
import { apiVersionsApi } from '../../src/protocol/messages/generated/api-versions.js';
import { fetchApi } from '../../src/protocol/messages/generated/fetch.js';
import { encodeRecordBatchSync } from '../../src/protocol/record-batch/index.js';
import { startTestBroker, type TestBroker } from '../../src/testkit/index.js';
import { exec } from '../interop/support/exec.js';
import { type Exposition, parsePrometheusText, samplesOf, sampleValue } from '../support/prometheus-text.js';
import { scaled } from '../support/timeouts.js';
import { RawClient } from './support/raw-client.js';
import { createTopic, fetchAll, fetchRequest, produce } from './support/wire.js';

let broker: TestBroker;
let c: RawClient;
let base: string;

before(async () => {
  broker = await startTestBroker({ overrides: { 'http.listener': '127.0.0.1:0' } });
  c = await RawClient.connect(broker.port);
  assert.ok(broker.http);
  base = `http://127.0.0.1:${broker.http.port}`;
});
after(async () => {
  c.close();
  await broker.close();
});

async function scrape(): Promise<Exposition> {
  const res = await fetch(`${base}/metrics`, { signal: AbortSignal.timeout(scaled(20_000)) });
  assert.equal(res.status, 200);
  assert.match(res.headers.get('content-type') ?? '', /^text\/plain; version=0\.0\.4/);
  return parsePrometheusText(await res.text());
}

const topicValue = (e: Exposition, name: string, topic: string) => sampleValue(e, name, { topic });
const logSize = (e: Exposition, topic: string) =>
  samplesOf(e, 'kafka_log_log_size', { topic }).reduce((sum, s) => sum + s.value, 0);

test('the probes answer 200 once the broker has started', async () => {
  for (const path of ['/health/live', '/health/ready']) {
    const res = await fetch(`${base}${path}`);
    assert.equal(res.status, 200, path);
    await res.text();
  }
});

test('replica and controller gauges follow topic creation', async () => {
  const before = await scrape();
  assert.equal(sampleValue(before, 'kafka_controller_kafkacontroller_activecontrollercount'), 1);
  assert.equal(sampleValue(before, 'kafka_controller_kafkacontroller_offlinepartitionscount'), 0);
  const partitions = sampleValue(before, 'kafka_server_replicamanager_partitioncount');
  const leaders = sampleValue(before, 'kafka_server_replicamanager_leadercount');
  const topics = sampleValue(before, 'kafka_controller_kafkacontroller_globaltopiccount');
  assert.equal(await createTopic(c, 'gauges', 4), 0);
  const after = await scrape();
  assert.equal(sampleValue(after, 'kafka_server_replicamanager_partitioncount'), partitions + 4);
  assert.equal(sampleValue(after, 'kafka_server_replicamanager_leadercount'), leaders + 4);
  assert.equal(sampleValue(after, 'kafka_controller_kafkacontroller_globaltopiccount'), topics + 1);
  assert.equal(sampleValue(after, 'kafka_server_replicamanager_underreplicatedpartitions'), 0);
  assert.equal(sampleValue(after, 'kafka_server_replicamanager_isrshrinks_total'), 0);
  assert.equal(sampleValue(after, 'kafka_server_replicamanager_isrexpands_total'), 0);
  for (let p = 0; p < 4; p++) {
    assert.equal(sampleValue(after, 'kafka_log_log_size', { topic: 'gauges', partition: String(p) }), 0);
    assert.equal(
      sampleValue(after, 'kafka_log_log_logendoffset', { topic: 'gauges', partition: String(p) }),
      0,
    );
  }
});

const UNDER_MIN_ISR = 'kafka_server_replicamanager_underminisrpartitioncount';
const AT_MIN_ISR = 'kafka_server_replicamanager_atminisrpartitioncount';

/** Scrapes until `check` holds (a dynamic config reaches the broker's resolver asynchronously). */
async function scrapeUntil(what: string, check: (e: Exposition) => boolean): Promise<Exposition> {
  const deadline = Date.now() + scaled(20_000);
  for (;;) {
    const e = await scrape();
    if (check(e)) return e;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

test('UnderMinIsr and AtMinIsr counts follow min.insync.replicas, as acks=all produces meet it', async () => {
  const admin = new Admin({ bootstrapServers: `127.0.0.1:${broker.port}` });
  try {
    await admin.createTopics([{ name: 'minisr-1', numPartitions: 1, replicationFactor: 1 }]);
    await admin.createTopics([
      {
        name: 'minisr-2',
        numPartitions: 2,
        replicationFactor: 1,
        configs: { 'min.insync.replicas': '2' },
      },
    ]);
    // One broker, one replica each: an ISR of 1 is at a min.insync.replicas of 1, under one of 2.
    const e = await scrape();
    const leaders = sampleValue(e, 'kafka_server_replicamanager_leadercount');
    assert.equal(sampleValue(e, UNDER_MIN_ISR), 2);
    assert.equal(sampleValue(e, AT_MIN_ISR), leaders - 2);
    const batch = encodeRecordBatchSync([{ value: Buffer.from('v'), timestamp: BigInt(Date.now()) }]);
    assert.equal((await produce(c, 'minisr-2', 1, batch, -1)).errorCode, ErrorCode.NOT_ENOUGH_REPLICAS);
    assert.equal((await produce(c, 'minisr-1', 0, batch, -1)).errorCode, 0);

    // The cluster-wide dynamic default applies to every topic without an override.
    const setDefault = (op: 'set' | 'delete') =>
      admin.incrementalAlterConfigs([
        { type: 'broker', name: '', ops: [{ key: 'min.insync.replicas', op, value: '2' }] },
      ]);
    await setDefault('set');
    const raised = await scrapeUntil(
      'every partition under its min ISR',
      (x) => sampleValue(x, UNDER_MIN_ISR) === leaders,
    );
    assert.equal(sampleValue(raised, AT_MIN_ISR), 0);
    assert.equal((await produce(c, 'minisr-1', 0, batch, -1)).errorCode, ErrorCode.NOT_ENOUGH_REPLICAS);
    await setDefault('delete');
    const restored = await scrapeUntil('the default back at 1', (x) => sampleValue(x, UNDER_MIN_ISR) === 2);
    assert.equal(sampleValue(restored, AT_MIN_ISR), leaders - 2);
    assert.equal((await produce(c, 'minisr-1', 0, batch, -1)).errorCode, 0);
  } finally {
    await admin.close();
  }
});

test('records and bytes in and out match what the wire client produced and fetched', async () => {
  assert.equal(await createTopic(c, 'wire', 3), 0);
  let records = 0;
  let bytes = 0;
  for (let i = 0; i < 12; i++) {
    const n = 1 + (i % 5);
    const batch = encodeRecordBatchSync(
      Array.from({ length: n }, (_, j) => ({
        value: Buffer.alloc(10 + 37 * j, i),
        timestamp: BigInt(Date.now()),
      })),
    );
    assert.equal((await produce(c, 'wire', i % 3, batch)).errorCode, 0);
    records += n;
    bytes += batch.length;
  }
  let fetched = 0;
  for (let p = 0; p < 3; p++) fetched += (await fetchAll(c, 'wire', p)).length;
  assert.equal(fetched, records);
  const e = await scrape();
  assert.equal(topicValue(e, 'kafka_server_brokertopicmetrics_messagesin_total', 'wire'), records);
  assert.equal(topicValue(e, 'kafka_server_brokertopicmetrics_bytesin_total', 'wire'), bytes);
  // Bytes stay bytes: the log holds exactly the produced batches, and one fetch to the end reads each once.
  assert.equal(logSize(e, 'wire'), bytes);
  assert.equal(topicValue(e, 'kafka_server_brokertopicmetrics_bytesout_total', 'wire'), bytes);
});

test("Total and Failed Produce/Fetch request counts, per partition, by Kafka's rules", async () => {
  assert.equal(await createTopic(c, 'rates', 2, { 'min.insync.replicas': '2' }), 0);
  const errorsBefore = await scrape();
  const batch = () => encodeRecordBatchSync([{ value: Buffer.from('r'), timestamp: BigInt(Date.now()) }]);
  const corrupt = batch();
  corrupt[corrupt.length - 1]! ^= 0xff; // the CRC no longer matches

  assert.equal((await produce(c, 'rates', 0, batch())).errorCode, 0);
  assert.equal((await produce(c, 'rates', 1, batch())).errorCode, 0);
  // Counted, not failed: a partition this broker does not host, a corrupt batch.
  assert.equal((await produce(c, 'rates', 7, batch())).errorCode, ErrorCode.UNKNOWN_TOPIC_OR_PARTITION);
  assert.equal((await produce(c, 'rates', 0, corrupt)).errorCode, ErrorCode.CORRUPT_MESSAGE);
  // Failed: the ISR is below min.insync.replicas for acks=all.
  assert.equal((await produce(c, 'rates', 1, batch(), -1)).errorCode, ErrorCode.NOT_ENOUGH_REPLICAS);
  // Not counted at all: a topic that does not exist.
  assert.equal(
    (await produce(c, 'no-such-rates', 0, batch())).errorCode,
    ErrorCode.UNKNOWN_TOPIC_OR_PARTITION,
  );

  // Reads: one request of both partitions (two), one past the end (OFFSET_OUT_OF_RANGE is not a failure).
  const both = await c.request(
    fetchApi,
    11,
    fetchRequest('rates', [
      { partition: 0, offset: 0n },
      { partition: 1, offset: 0n },
    ]),
  );
  assert.deepEqual(
    both.responses[0]!.partitions.map((p) => p.errorCode),
    [0, 0],
  );
  const past = await c.request(fetchApi, 11, fetchRequest('rates', { partition: 0, offset: 1000n }));
  assert.equal(past.responses[0]!.partitions[0]!.errorCode, ErrorCode.OFFSET_OUT_OF_RANGE);

  const e = await scrape();
  // ErrorsPerSec: every errorCode of the answers, NONE included (a Fetch's top level too).
  const errors = (request: string, error: string) => {
    const n = (x: Exposition) =>
      samplesOf(x, 'kafka_network_requestmetrics_errors_total', { request, error }).reduce(
        (a, s) => a + s.value,
        0,
      );
    return n(e) - n(errorsBefore);
  };
  assert.deepEqual(
    ['NONE', 'UNKNOWN_TOPIC_OR_PARTITION', 'CORRUPT_MESSAGE', 'NOT_ENOUGH_REPLICAS'].map((x) =>
      errors('Produce', x),
    ),
    [2, 2, 1, 1],
  );
  assert.deepEqual(
    ['NONE', 'OFFSET_OUT_OF_RANGE'].map((x) => errors('FetchConsumer', x)),
    [2 + 1 + 1, 1],
  );
  const family = (name: string) => `kafka_server_brokertopicmetrics_${name}_total`;
  assert.equal(topicValue(e, family('totalproducerequests'), 'rates'), 5);
  assert.equal(topicValue(e, family('failedproducerequests'), 'rates'), 1);
  assert.equal(topicValue(e, family('totalfetchrequests'), 'rates'), 3);
  assert.equal(topicValue(e, family('failedfetchrequests'), 'rates'), 0);
  assert.equal(samplesOf(e, family('totalproducerequests'), { topic: 'no-such-rates' }).length, 0);
  for (const name of ['totalproducerequests', 'failedproducerequests', 'totalfetchrequests']) {
    const perTopic = samplesOf(e, family(name)).filter((s) => s.labels.topic !== undefined);
    const sum = perTopic.reduce((acc, s) => acc + s.value, 0);
    assert.equal(sampleValue(e, family(name)), sum, `${name}: the unlabelled total is the sum over topics`);
  }
});

test('kcat and our Producer are counted per topic, and the totals add up', async () => {
  assert.equal(await createTopic(c, 'clients', 2), 0);
  const lines = Array.from({ length: 500 }, (_, i) => `kcat-${i}-${'k'.repeat(i % 40)}`);
  const p = await exec('kcat', ['-b', broker.bootstrap, '-P', '-t', 'clients'], {
    input: `${lines.join('\n')}\n`,
    timeoutMs: 30_000,
  });
  assert.equal(p.code, 0, p.stderr);
  const producer = new Producer({ bootstrapServers: broker.bootstrap, lingerMs: 0 });
  try {
    await Promise.all(
      Array.from({ length: 300 }, (_, i) =>
        producer.send({ topic: 'clients', value: `ours-${i}-${'o'.repeat(i % 70)}` }),
      ),
    );
  } finally {
    await producer.close();
  }
  const consumed = await exec(
    'kcat',
    ['-b', broker.bootstrap, '-C', '-t', 'clients', '-o', 'beginning', '-e', '-q'],
    {
      timeoutMs: 30_000,
    },
  );
  assert.equal(consumed.code, 0, consumed.stderr);
  assert.equal(consumed.stdout.toString().trim().split('\n').length, 800);

  const e = await scrape();
  assert.equal(topicValue(e, 'kafka_server_brokertopicmetrics_messagesin_total', 'clients'), 800);
  const size = logSize(e, 'clients');
  assert.equal(topicValue(e, 'kafka_server_brokertopicmetrics_bytesin_total', 'clients'), size);
  // librdkafka may read a batch twice (prefetch across a leader check); never less than once.
  assert.ok(topicValue(e, 'kafka_server_brokertopicmetrics_bytesout_total', 'clients') >= size);
  for (const name of ['messagesin', 'bytesin', 'bytesout']) {
    const family = `kafka_server_brokertopicmetrics_${name}_total`;
    const perTopic = samplesOf(e, family).filter((s) => s.labels.topic !== undefined);
    const sum = perTopic.reduce((acc, s) => acc + s.value, 0);
    assert.equal(sampleValue(e, family), sum, `${family}: the unlabelled total is the sum over topics`);
  }
});

test('request counts and the five latency histograms exist for every API used', async () => {
  const e = await scrape();
  // Used by the tests above: the wire client, kcat (librdkafka) and our Producer.
  for (const request of ['ApiVersions', 'Metadata', 'CreateTopics', 'Produce', 'FetchConsumer']) {
    const counts = samplesOf(e, 'kafka_network_requestmetrics_requests_total', { request });
    assert.ok(counts.length > 0, `requests_total for ${request}`);
    const total = counts.reduce((sum, s) => sum + s.value, 0);
    assert.ok(total > 0);
    for (const time of [
      'requestqueuetimems',
      'localtimems',
      'remotetimems',
      'responsequeuetimems',
      'totaltimems',
    ]) {
      const family = `kafka_network_requestmetrics_${time}`;
      const quantiles = samplesOf(e, family, { request });
      assert.deepEqual(
        quantiles.map((s) => s.labels.quantile).sort(),
        ['0.50', '0.75', '0.95', '0.98', '0.99', '0.999'],
        `${family} for ${request}`,
      );
      for (const q of quantiles) assert.ok(q.value >= 0 && Number.isFinite(q.value));
      // The scrape's own requests were not over the Kafka port, so the counts match.
      assert.equal(sampleValue(e, `${family}_count`, { request }), total, `${family}_count for ${request}`);
    }
  }
  assert.equal(e.types.get('kafka_network_requestmetrics_requests_total'), 'counter');
  assert.equal(e.types.get('kafka_network_requestmetrics_totaltimems'), 'gauge');
  assert.ok(sampleValue(e, 'kafka_coordinator_group_groupmetadatamanager_numgroups') >= 0);
});

/** A consumer fetch of partition 0 from offset 0 that the broker parks up to `maxWaitMs`. */
const longPoll = (topic: string, maxWaitMs: number) =>
  fetchRequest(topic, { partition: 0, offset: 0n }, { maxWaitMs, minBytes: 1, maxBytes: 1 << 20 });

test('a long-poll fetch counts its wait as remote time, not local time', async () => {
  assert.equal(await createTopic(c, 'idle', 1), 0);
  const r = await c.request(fetchApi, 11, longPoll('idle', 300), 20_000);
  assert.equal(r.responses[0]!.partitions[0]!.errorCode, 0);
  const e = await scrape();
  const max = (time: string) =>
    sampleValue(e, `kafka_network_requestmetrics_${time}`, { request: 'FetchConsumer', quantile: '0.999' });
  // The broker parks the fetch until maxWaitMs (no data arrives); timers never fire early.
  assert.ok(max('remotetimems') >= 250, `remote ${max('remotetimems')}`);
  assert.ok(max('totaltimems') >= max('remotetimems'));
});

test('a request waiting behind a long poll on its connection counts the wait as request queue time', async () => {
  assert.equal(await createTopic(c, 'queued', 1), 0);
  const q = await RawClient.connect(broker.port);
  try {
    // One write, so both frames arrive together: ApiVersions (not pipelinable) may start only
    // once the parked fetch has answered.
    q.send([
      ...encodeRequest(fetchApi, 11, 1, 'queue-test', longPoll('queued', 300)),
      ...encodeRequest(apiVersionsApi, 3, 2, 'queue-test', {
        clientSoftwareName: 'queue-test',
        clientSoftwareVersion: '1',
      }),
    ]);
    for (let i = 0; i < 2; i++) assert.ok(await q.nextFrame(20_000), 'timed out waiting for a response');
  } finally {
    q.close();
  }
  const e = await scrape();
  const max = (time: string) =>
    sampleValue(e, `kafka_network_requestmetrics_${time}`, { request: 'ApiVersions', quantile: '0.999' });
  assert.ok(max('requestqueuetimems') >= 250, `request queue ${max('requestqueuetimems')}`);
  assert.ok(max('totaltimems') >= max('requestqueuetimems'));
});

test('unknown paths get 404, other methods 405', async () => {
  const missing = await fetch(`${base}/nope`);
  assert.equal(missing.status, 404);
  await missing.text();
  for (const method of ['POST', 'PUT', 'DELETE']) {
    const res = await fetch(`${base}/metrics`, { method });
    assert.equal(res.status, 405, method);
    assert.equal(res.headers.get('allow'), 'GET, HEAD');
    await res.text();
  }
});

test('a huge request header block is refused and the connection closed', async () => {
  const reply = await new Promise<string>((resolve, reject) => {
    const s = connect(broker.http!.port, '127.0.0.1');
    let got = '';
    const timer = setTimeout(
      () => reject(new Error('timed out waiting for the listener to close')),
      scaled(20_000),
    );
    s.on('data', (d) => {
      got += d.toString();
    });
    s.on('error', () => {});
    s.on('close', () => {
      clearTimeout(timer);
      resolve(got);
    });
    s.write(`GET /metrics HTTP/1.1\r\nHost: x\r\nX-Big: ${'a'.repeat(64 * 1024)}\r\n\r\n`);
  });
  assert.match(reply, /^HTTP\/1\.1 431 /);
  // The listener still serves everyone else.
  const res = await fetch(`${base}/health/live`);
  assert.equal(res.status, 200);
  await res.text();
});
