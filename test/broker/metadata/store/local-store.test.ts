// The local store keeps everything durable across restarts (a JSON snapshot and its journal), reads
// the version 1 file of earlier releases, and coalesces concurrent changes into few writes.
import assert from 'node:assert/strict';
import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import {
  JOURNAL_FILE,
  LocalMetadataStore,
  METADATA_FILE,
} from '../../../../src/broker/metadata/store/local-store.js';
import { MetadataStoreError } from '../../../../src/broker/metadata/store/metadata-store.js';

async function withDir(fn: (dir: string) => Promise<void>): Promise<void> {
  const dir = await mkdtemp(join(tmpdir(), 'samsa-local-store-'));
  try {
    await fn(dir);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

const self = {
  nodeId: 1,
  host: 'localhost',
  port: 9092,
  rack: null,
  endpoints: [{ listener: 'PLAINTEXT', securityProtocol: 'PLAINTEXT', host: 'localhost', port: 9092 }],
};

test('everything durable survives a restart; controller and broker epochs grow at each start', async () => {
  await withDir(async (dir) => {
    const s1 = new LocalMetadataStore(dir);
    await s1.start();
    const clusterId = await s1.clusterId();
    const brokerEpoch1 = await s1.registerBroker(self);
    const lease1 = (await s1.tryElectController(1))!;
    await s1.createTopic(
      { name: 't', topicId: 'AAAAAAAAAAAAAAAAAAAAAg', partitions: [[1], [1]] },
      { 'retention.ms': '5' },
    );
    await s1.writePartitionStates(lease1, [
      {
        topic: 't',
        partition: 0,
        state: { leader: 1, leaderEpoch: 3, isr: [1], controllerEpoch: 1, leaderRecoveryState: 0 },
        expectedVersion: -1,
      },
    ]);
    await s1.writePartitionStates(lease1, [
      {
        topic: 't',
        partition: 0,
        state: { leader: 1, leaderEpoch: 4, isr: [1], controllerEpoch: 1, leaderRecoveryState: 1 },
        expectedVersion: 0,
      },
    ]);
    await s1.setConfigs({ type: 'brokers', name: '<default>' }, { 'log.retention.ms': '7' });
    await s1.setConfigs({ type: 'brokers', name: '1' }, { 'log.cleaner.threads': '2' });
    const block1 = await s1.allocateProducerIdBlock(1, 1000);
    await s1.createTopic({ name: 'doomed', topicId: 'AAAAAAAAAAAAAAAAAAAAAw', partitions: [[1]] }, {});
    await s1.requestTopicDeletion('doomed');
    await s1.close();

    const s2 = new LocalMetadataStore(dir);
    await s2.start();
    assert.equal(await s2.clusterId(), clusterId);
    assert.deepEqual(await s2.liveBrokers(), [], 'registrations are ephemeral');
    const brokerEpoch2 = await s2.registerBroker(self);
    assert.ok(brokerEpoch2 > brokerEpoch1, `broker epoch ${brokerEpoch2} > ${brokerEpoch1}`);
    const lease2 = (await s2.tryElectController(1))!;
    assert.equal(lease2.epoch, lease1.epoch + 1);
    const [t] = await s2.assignments(['t']);
    assert.deepEqual(t, { name: 't', topicId: 'AAAAAAAAAAAAAAAAAAAAAg', partitions: [[1], [1]] });
    const st = (await s2.partitionStates('t')).get(0);
    assert.deepEqual(
      { ...st },
      { leader: 1, leaderEpoch: 4, isr: [1], controllerEpoch: 1, leaderRecoveryState: 1, version: 1 },
    );
    assert.deepEqual(await s2.configs({ type: 'topics', name: 't' }), { 'retention.ms': '5' });
    assert.deepEqual(await s2.configs({ type: 'brokers', name: '<default>' }), { 'log.retention.ms': '7' });
    assert.deepEqual(await s2.configs({ type: 'brokers', name: '1' }), { 'log.cleaner.threads': '2' });
    assert.deepEqual(await s2.pendingTopicDeletions(), ['doomed']);
    const block2 = await s2.allocateProducerIdBlock(1, 1000);
    assert.equal(block2.firstProducerId, block1.firstProducerId + 1000n);
    await s2.close();

    const s3 = new LocalMetadataStore(dir);
    await s3.start();
    assert.ok((await s3.registerBroker(self)) > brokerEpoch2);
    assert.equal((await s3.tryElectController(1))!.epoch, lease2.epoch + 1);
    await s3.close();
    assert.deepEqual(
      (await readdir(dir)).sort(),
      [JOURNAL_FILE, METADATA_FILE],
      'no temporary file left behind',
    );
  });
});

test('reads the version 1 file of the single-broker store and rewrites it as version 3', async () => {
  await withDir(async (dir) => {
    const v1 = {
      version: 1,
      clusterId: 'aB3dEfGhIjKlMnOpQrStUv',
      nextProducerId: '5000',
      topics: [
        {
          name: 'orders',
          topicId: 'ZZZZZZZZZZZZZZZZZZZZZw',
          partitions: [
            { partition: 1, leader: 0, leaderEpoch: 2, replicas: [0], isr: [0] },
            { partition: 0, leader: 0, leaderEpoch: 0, replicas: [0], isr: [0] },
          ],
          configs: { 'cleanup.policy': 'compact' },
        },
        { name: '__consumer_offsets', topicId: 'YYYYYYYYYYYYYYYYYYYYYw', partitions: [], configs: {} },
      ],
      brokerConfigs: { '': { 'log.retention.ms': '60000' }, '0': { 'num.io.threads': '4' } },
    };
    await writeFile(join(dir, METADATA_FILE), JSON.stringify(v1));
    const s = new LocalMetadataStore(dir);
    await s.start();
    assert.equal(await s.clusterId(), 'aB3dEfGhIjKlMnOpQrStUv');
    assert.deepEqual(await s.topicNames(), ['__consumer_offsets', 'orders']);
    const [orders] = await s.assignments(['orders']);
    assert.deepEqual(orders!.partitions, [[0], [0]]);
    assert.equal(orders!.topicId, 'ZZZZZZZZZZZZZZZZZZZZZw');
    const states = await s.partitionStates('orders');
    assert.deepEqual(
      { ...states.get(1) },
      { leader: 0, leaderEpoch: 2, isr: [0], controllerEpoch: 0, leaderRecoveryState: 0, version: 0 },
    );
    assert.deepEqual(await s.configs({ type: 'topics', name: 'orders' }), { 'cleanup.policy': 'compact' });
    assert.deepEqual(await s.configEntities('topics'), ['orders']);
    assert.deepEqual(await s.configs({ type: 'brokers', name: '<default>' }), {
      'log.retention.ms': '60000',
    });
    assert.deepEqual(await s.configs({ type: 'brokers', name: '0' }), { 'num.io.threads': '4' });
    assert.deepEqual(await s.allocateProducerIdBlock(0, 1000), { firstProducerId: 5000n, size: 1000 });
    const lease = (await s.tryElectController(0))!;
    assert.equal(lease.epoch, 1);
    // A controller may take over the migrated state: versions start at 0.
    const [w] = await s.writePartitionStates(lease, [
      {
        topic: 'orders',
        partition: 0,
        state: { leader: 0, leaderEpoch: 1, isr: [0], controllerEpoch: 1, leaderRecoveryState: 0 },
        expectedVersion: 0,
      },
    ]);
    assert.deepEqual(w, { topic: 'orders', partition: 0, ok: true, version: 1 });
    await s.close();
    const onDisk = JSON.parse(await readFile(join(dir, METADATA_FILE), 'utf8'));
    assert.equal(onDisk.version, 3);
    assert.deepEqual(onDisk.configs.brokers['<default>'], { 'log.retention.ms': '60000' });
  });
});

test('concurrent changes share writes: 500 topics created at once take a few journal appends', async () => {
  await withDir(async (dir) => {
    const s = new LocalMetadataStore(dir);
    await s.start();
    const before = s.rewrites;
    const lease = (await s.tryElectController(1))!;
    await Promise.all(
      Array.from({ length: 500 }, async (_, i) => {
        const name = `t${i}`;
        await s.createTopic({ name, topicId: `${String(i).padStart(21, 'A')}A`, partitions: [[1]] }, {});
        await s.writePartitionStates(lease, [
          {
            topic: name,
            partition: 0,
            state: {
              leader: 1,
              leaderEpoch: 0,
              isr: [1],
              controllerEpoch: lease.epoch,
              leaderRecoveryState: 0,
            },
            expectedVersion: -1,
          },
        ]);
      }),
    );
    const rewrites = s.rewrites - before;
    assert.ok(rewrites <= 10, `${rewrites} writes for 1,001 changes`);
    await s.close();
    const again = new LocalMetadataStore(dir);
    await again.start();
    assert.equal((await again.topicNames()).length, 500);
    assert.equal((await again.partitionStates('t499')).get(0)?.version, 0);
    await again.close();
  });
});

test('a damaged or unknown file fails the start with CORRUPT and the file name', async () => {
  await withDir(async (dir) => {
    for (const text of [
      '{not json',
      JSON.stringify({ version: 9 }),
      JSON.stringify({ version: 2, topics: 'x' }),
    ]) {
      await writeFile(join(dir, METADATA_FILE), text);
      await assert.rejects(
        new LocalMetadataStore(dir).start(),
        (e: unknown) =>
          e instanceof MetadataStoreError && e.code === 'CORRUPT' && e.message.includes(METADATA_FILE),
      );
    }
  });
});
