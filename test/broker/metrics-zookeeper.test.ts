// The ZooKeeper families in /metrics (Kafka's SessionExpireListener meters and
// ZooKeeperClientMetrics latency): a reconnection within the session, then an expiry, counted as
// the store reports them (an in-memory store with ZooKeeper's connection semantics, kind
// 'zookeeper'); the latency of a real ZooKeeper's requests; a broker on the embedded local store
// exports no such family.

import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { type BrokerHandle, startBroker } from '../../src/broker/broker.js';
import { MemoryMetadataService } from '../../src/broker/metadata/store/memory-store.js';
import type { MetadataStore } from '../../src/broker/metadata/store/metadata-store.js';
import { startTestBroker } from '../../src/testkit/index.js';
import { startTestZooKeeper } from '../../src/testkit/zookeeper.js';
import { type Exposition, parsePrometheusText, samplesOf, sampleValue } from '../support/prometheus-text.js';
import { scaled } from '../support/timeouts.js';
import { waitUntil } from './replica/support/cluster.js';

async function scrape(http: { port: number } | null): Promise<Exposition> {
  assert.ok(http);
  const res = await fetch(`http://127.0.0.1:${http.port}/metrics`, {
    signal: AbortSignal.timeout(scaled(20_000)),
  });
  assert.equal(res.status, 200);
  return parsePrometheusText(await res.text());
}

const ZK = (name: string) => `kafka_server_sessionexpirelistener_zookeeper${name}_total`;

/** Runs `fn` with a broker (node 1, `http.listener` on) on a fresh data dir; closes and removes it after. */
async function withBroker(
  options: { overrides?: Record<string, string | number>; metadataStore?: MetadataStore },
  fn: (b: BrokerHandle) => Promise<void>,
): Promise<void> {
  const dataDir = await mkdtemp(join(tmpdir(), 'samsa-zk-metrics-'));
  let broker: BrokerHandle | null = null;
  try {
    broker = await startBroker({
      host: '127.0.0.1',
      port: 0,
      dataDir,
      nodeId: 1,
      overrides: { 'http.listener': '127.0.0.1:0', ...options.overrides },
      ...(options.metadataStore ? { metadataStore: options.metadataStore } : {}),
    });
    await fn(broker);
  } finally {
    await broker?.close();
    await rm(dataDir, { recursive: true, force: true });
  }
}

test('ZooKeeper connects, disconnects and expiries are counted as the store reports them', async () => {
  const service = new MemoryMetadataService({ sessionTimeoutMs: 60_000 });
  const store = service.connect();
  await withBroker({ metadataStore: store }, async (broker) => {
    const counts = async () => {
      const e = await scrape(broker.http);
      return ['syncconnects', 'disconnects', 'expires'].map((n) => sampleValue(e, ZK(n)));
    };
    assert.deepEqual(await counts(), [1, 0, 0], 'connected once at start');
    service.disconnect(store);
    await waitUntil('the disconnect counted', async () => (await counts())[1] === 1);
    service.reconnect(store);
    await waitUntil('the reconnection counted', async () => (await counts())[0] === 2);
    service.expireSession(store);
    await waitUntil('the expiry counted', async () => (await counts())[2] === 1);
    assert.deepEqual(await counts(), [3, 1, 1], 'the new session is a connection too');
  });
});

test('a broker on the local metadata store exports no ZooKeeper session family', async () => {
  const b = await startTestBroker({ overrides: { 'http.listener': '127.0.0.1:0' } });
  try {
    const e = await scrape(b.http);
    assert.equal(samplesOf(e, ZK('syncconnects')).length, 0);
    assert.ok(
      samplesOf(e, 'kafka_server_brokertopicmetrics_bytesin_total').length > 0,
      'the others are there',
    );
  } finally {
    await b.close();
  }
});

test('a broker on a real ZooKeeper: one connection, and the latency of its requests', async () => {
  const zk = await startTestZooKeeper();
  try {
    const overrides = {
      'zookeeper.connect': await zk.chroot('latency'),
      'offsets.topic.replication.factor': 1,
    };
    await withBroker({ overrides }, async (broker) => {
      const LATENCY = 'kafka_server_zookeeperclientmetrics_zookeeperrequestlatencyms';
      const first = await scrape(broker.http);
      assert.equal(sampleValue(first, ZK('syncconnects')), 1);
      assert.equal(sampleValue(first, ZK('disconnects')), 0);
      const started = sampleValue(first, `${LATENCY}_count`);
      assert.ok(started > 0, 'registering the broker and electing the controller took requests');
      const [p50, p99] = ['0.50', '0.99'].map((quantile) => sampleValue(first, LATENCY, { quantile }));
      assert.ok(p50! >= 0 && p99! >= p50!, `p50 ${p50} ms, p99 ${p99} ms`);
      await broker.services.commands.createTopic({
        name: 'zk-latency',
        numPartitions: 2,
        replicationFactor: 1,
        assignments: [],
        configs: {},
      });
      const after = await scrape(broker.http);
      assert.ok(sampleValue(after, `${LATENCY}_count`) > started, 'the topic creation took requests too');
    });
  } finally {
    await zk.stop();
  }
});
