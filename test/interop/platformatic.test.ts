// @platformatic/kafka 1.35.0 (flexible versions only: ApiVersions v3, Metadata v12, Produce 11,
// Fetch 13 with topic ids, ListOffsets 9, CreateTopics 7): admin, idempotent producer with
// every codec, then a group-less consumer round trip (Consumer.fetch by topic id, listOffsets).
// Group-based `consume()` needs the consumer-group APIs (another issue).

import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { Admin, Consumer, Producer, stringSerializers } from '@platformatic/kafka';
import { startTestBroker, type TestBroker } from '../../src/testkit/index.js';

let broker: TestBroker;
let admin: Admin;
let producer: Producer<string, string, string, string>;
let consumer: Consumer;

before(async () => {
  broker = await startTestBroker();
  const bootstrapBrokers = [broker.bootstrap];
  admin = new Admin({ clientId: 'pk-admin', bootstrapBrokers });
  producer = new Producer({
    clientId: 'pk-producer',
    bootstrapBrokers,
    serializers: stringSerializers,
    idempotent: true,
    acks: -1,
  });
  consumer = new Consumer({ clientId: 'pk-consumer', groupId: 'unused', bootstrapBrokers });
});
after(async () => {
  await Promise.all([admin.close(), producer.close(), consumer.close()]);
  await broker.close();
});

test('admin: createTopics v7 returns ids, listTopics, describeLogDirs', async () => {
  const created = await admin.createTopics({ topics: ['pk-topic'], partitions: 2, replicas: 1 });
  assert.equal(created.length, 1);
  // platformatic prints uuids in 8-4-4-4-12 hex; what matters is a real, non-zero id.
  assert.match(created[0]!.id, /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/);
  assert.notEqual(created[0]!.id, '00000000-0000-0000-0000-000000000000');
  assert.equal(created[0]!.partitions, 2);
  assert.ok((await admin.listTopics()).includes('pk-topic'));
  const dirs = await admin.describeLogDirs({ topics: [{ name: 'pk-topic', partitions: [0, 1] }] });
  assert.equal(dirs.length, 1);
});

// No zstd: @platformatic/kafka uses node:zlib's zstd, which Node 20 does not have.
for (const compression of ['none', 'gzip', 'snappy', 'lz4'] as const) {
  test(`producer (${compression}) → group-less consumer round trip by topic id`, async () => {
    const topic = 'pk-topic';
    const n = 500;
    const base = await consumer.listOffsets({ topics: [topic] });
    const start = base.get(topic)!;
    const messages = Array.from({ length: n }, (_, i) => ({
      topic,
      partition: i % 2,
      key: `k${i}`,
      value: `${compression}-${i}`,
      headers: { i: String(i) },
    }));
    const r = await producer.send({ messages, compression });
    assert.equal(r.offsets?.length ?? 2, 2);
    const md = await consumer.metadata({ topics: [topic] });
    const topicId = md.topics.get(topic)!.id;
    const got: string[] = [];
    for (const partition of [0, 1]) {
      const res = await consumer.fetch({
        node: broker.nodeId,
        maxWaitTime: 100,
        topics: [
          {
            topicId,
            partitions: [
              {
                partition,
                currentLeaderEpoch: -1,
                fetchOffset: start[partition]!,
                lastFetchedEpoch: -1,
                partitionMaxBytes: 1 << 20,
              },
            ],
          },
        ],
      });
      const p = res.responses[0]!.partitions[0]!;
      assert.equal(p.errorCode, 0);
      for (const batch of p.records ?? []) {
        for (const rec of batch.records) {
          got.push(
            `${rec.key!.toString()}=${rec.value!.toString()}|${rec.headers.map(([k, v]) => `${k}:${v}`).join()}`,
          );
        }
      }
    }
    const expected = messages.map((m) => `${m.key}=${m.value}|i:${m.headers.i}`);
    assert.deepEqual(got.sort(), expected.sort());
    const end = await consumer.listOffsets({ topics: [topic] });
    assert.equal(end.get(topic)![0]! - start[0]!, BigInt(n / 2));
  });
}
