// Persistence through `samsa start` processes: records, topic ids, topic configs, dynamic
// broker configs and the producer-id allocator survive a clean stop (SIGTERM) and a SIGKILL
// right after the acknowledgements (default flush policy: acknowledged = in the page cache).

import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { describeConfigsApi } from '../../src/protocol/messages/generated/describe-configs.js';
import { initProducerIdApi } from '../../src/protocol/messages/generated/init-producer-id.js';
import { metadataApi } from '../../src/protocol/messages/generated/metadata.js';
import { encodeRecordBatchSync } from '../../src/protocol/record-batch/index.js';
import { RawClient } from '../broker/support/raw-client.js';
import { createTopic, fetchAll, produce } from '../broker/support/wire.js';
import { spawnBroker } from './support/broker-process.js';

let dir: string;
before(async () => {
  dir = await mkdtemp(join(tmpdir(), 'samsa-persist-'));
});
after(async () => {
  await rm(dir, { recursive: true, force: true });
});

async function topicId(c: RawClient, name: string): Promise<string> {
  const r = await c.request(metadataApi, 12, {
    topics: [{ topicId: 'AAAAAAAAAAAAAAAAAAAAAA', name }],
    allowAutoTopicCreation: false,
    includeClusterAuthorizedOperations: false,
    includeTopicAuthorizedOperations: false,
  });
  return r.topics[0]!.topicId;
}

async function producerId(c: RawClient): Promise<bigint> {
  const r = await c.request(initProducerIdApi, 4, {
    transactionalId: null,
    transactionTimeoutMs: 60000,
    producerId: -1n,
    producerEpoch: -1,
  });
  assert.equal(r.errorCode, 0);
  return r.producerId;
}

async function retention(c: RawClient): Promise<string | null> {
  const r = await c.request(describeConfigsApi, 4, {
    resources: [{ resourceType: 2, resourceName: 'durable', configurationKeys: ['retention.ms'] }],
    includeSynonyms: false,
    includeDocumentation: false,
  });
  return r.results[0]!.configs[0]!.value;
}

function batch(from: number, n: number): Buffer {
  return encodeRecordBatchSync(
    Array.from({ length: n }, (_, i) => ({
      key: Buffer.from(`k${from + i}`),
      value: Buffer.from(`value-${from + i}`),
    })),
  );
}

test('clean restart and SIGKILL keep data, topic ids, configs and producer ids', {
  timeout: 120_000,
}, async () => {
  const args = ['--port', '0', '--data-dir', dir, '--override', 'num.partitions=2'];
  // First life: create, produce, stop with SIGTERM.
  let b = await spawnBroker(args);
  let c = await RawClient.connect(b.port);
  assert.equal(await createTopic(c, 'durable', 2, { 'retention.ms': '86400000' }), 0);
  const id = await topicId(c, 'durable');
  const pid1 = await producerId(c);
  for (let i = 0; i < 50; i++)
    assert.equal((await produce(c, 'durable', i % 2, batch(i * 10, 10))).errorCode, 0);
  c.close();
  b.child.kill('SIGTERM');
  assert.equal(await b.exited, 0, b.output());
  assert.match(b.output(), /stopped/);

  // Second life: everything is there; produce more with acks=1 and acks=all, then SIGKILL.
  b = await spawnBroker(args);
  c = await RawClient.connect(b.port);
  assert.equal(await topicId(c, 'durable'), id);
  assert.equal(await retention(c), '86400000');
  assert.equal((await fetchAll(c, 'durable', 0)).length, 250);
  assert.equal((await fetchAll(c, 'durable', 1)).length, 250);
  const pid2 = await producerId(c);
  assert.ok(pid2 > pid1, `producer ids never repeat (${pid1} then ${pid2})`);
  for (let i = 0; i < 40; i++)
    assert.equal((await produce(c, 'durable', 0, batch(1000 + i, 1), i % 2 === 0 ? 1 : -1)).errorCode, 0);
  b.child.kill('SIGKILL');
  assert.equal(await b.exited, 'SIGKILL');
  c.close();

  // Third life, after the crash: every acknowledged record is back.
  b = await spawnBroker(args);
  c = await RawClient.connect(b.port);
  const p0 = await fetchAll(c, 'durable', 0);
  assert.equal(p0.length, 290);
  assert.deepEqual(
    p0.slice(-2).map((r) => r.value!.toString()),
    ['value-1038', 'value-1039'],
  );
  assert.equal(await retention(c), '86400000');
  assert.equal(await topicId(c, 'durable'), id);
  assert.ok((await producerId(c)) > pid2);
  c.close();
  b.child.kill('SIGTERM');
  assert.equal(await b.exited, 0);
});
