// The `zookeeper` MetadataStore against a real ZooKeeper (the testkit's server, one for this file,
// a fresh chroot per test): the shared contract (store-contract.ts, the same scenarios as the
// memory store), the znodes as Kafka's tools read them, what only ZooKeeper has (chroot creation,
// admin-request watches, notifications written by other tools), and a 10,000-partition scale check
// that prints its figure (never asserted: tests assert outcomes, not speed).

import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import type { MetadataStore } from '../../../../src/broker/metadata/store/metadata-store.js';
import type { PartitionStateWrite } from '../../../../src/broker/metadata/store/records.js';
import { ZkMetadataStore } from '../../../../src/broker/metadata/store/zk-store.js';
import { writeAcls } from '../../../../src/broker/metadata/store/zk-store-acls.js';
import { ZkClient } from '../../../../src/broker/metadata/zookeeper/zk-client.js';
import {
  CONFIG_CHANGE_CREATE_PATH,
  encodeConfigChangeNotification,
  encodeReassignPartitions,
  PERSISTENT_ZK_PATHS,
} from '../../../../src/broker/metadata/zookeeper/zk-data.js';
import {
  expireZkSession,
  startTestZooKeeper,
  type TestZooKeeper,
} from '../../../../src/testkit/zookeeper.js';
import {
  broker,
  type ContractCluster,
  eventually,
  LIVENESS_MS,
  Recorder,
  rejects,
  state,
  storeContract,
  topic,
  topicId,
} from './store-contract.js';

let zk: TestZooKeeper;
const readAll = { principal: 'User:*', permissionType: 'Allow', operation: 'Read', host: '*' } as const;

before(async () => {
  zk = await startTestZooKeeper();
});
after(async () => {
  await zk?.stop();
});

/** 1 s where expiry is tested (the server's minimum), else 10 s: robust on a loaded machine. */
function openStore(connectString: string, shortSession = false): Promise<ZkMetadataStore> {
  const store = new ZkMetadataStore({
    connectString,
    sessionTimeoutMs: shortSession ? 1000 : 10_000,
    connectionTimeoutMs: LIVENESS_MS,
  });
  return store.start().then(() => store);
}

async function zkCluster(): Promise<ContractCluster & { connectString: string; raw(): Promise<ZkClient> }> {
  const connectString = await zk.chroot('store');
  const stores: MetadataStore[] = [];
  const raws: ZkClient[] = [];
  return {
    connectString,
    async open(options = {}) {
      const s = await openStore(connectString, options.shortSession);
      stores.push(s);
      return s;
    },
    async expire(store) {
      const client = (store as ZkMetadataStore).zkClient!;
      let expired = false;
      const stop = store.watch({ sessionExpired: () => (expired = true) });
      await expireZkSession(client, LIVENESS_MS);
      await eventually('the store to report sessionExpired', () => expired);
      stop();
    },
    async raw() {
      const c = await ZkClient.connect(connectString, {
        sessionTimeoutMs: 10_000,
        connectionTimeoutMs: LIVENESS_MS,
      });
      raws.push(c);
      return c;
    },
    async close() {
      await Promise.all([...stores, ...raws].map((s) => s.close()));
    },
  };
}

storeContract(() => ({ cluster: zkCluster }));

const json = (data: Buffer | null): Record<string, unknown> => JSON.parse(data!.toString('utf8'));

test("znodes: Kafka's layout and JSON, as zkCli/CMAK/Burrow read them", async () => {
  const cl = await zkCluster();
  try {
    const s = (await cl.open()) as ZkMetadataStore;
    const raw = await cl.raw();
    const clusterId = await s.clusterId();
    assert.deepEqual(json((await raw.getData('/cluster/id')).data), { version: '1', id: clusterId });
    for (const p of PERSISTENT_ZK_PATHS) assert.ok(await raw.exists(p), `${p} exists`);

    const epoch = await s.registerBroker({
      nodeId: 1,
      host: 'b1.example',
      port: 9092,
      rack: 'r1',
      endpoints: [
        { listener: 'PLAINTEXT', securityProtocol: 'PLAINTEXT', host: 'b1.example', port: 9092 },
        { listener: 'REPLICATION', securityProtocol: 'SASL_SSL', host: '10.0.0.1', port: 9093 },
      ],
    });
    const reg = await raw.getData('/brokers/ids/1');
    assert.equal(reg.stat.czxid, epoch, 'the broker epoch is the czxid (KIP-380)');
    assert.equal(reg.stat.ephemeralOwner, s.zkClient!.sessionId, 'ephemeral, owned by the store session');
    const b = json(reg.data);
    assert.equal(b['version'], 5);
    assert.equal(b['host'], 'b1.example');
    assert.equal(b['port'], 9092);
    assert.deepEqual(b['endpoints'], ['PLAINTEXT://b1.example:9092', 'REPLICATION://10.0.0.1:9093']);
    assert.deepEqual(b['listener_security_protocol_map'], {
      PLAINTEXT: 'PLAINTEXT',
      REPLICATION: 'SASL_SSL',
    });
    assert.equal(b['rack'], 'r1');
    assert.equal(b['jmx_port'], -1);
    assert.deepEqual(b['features'], {});
    assert.match(String(b['timestamp']), /^\d{13}$/);

    const lease = (await s.tryElectController(1))!;
    const ctl = await raw.getData('/controller');
    assert.equal(ctl.stat.ephemeralOwner, s.zkClient!.sessionId);
    const c = json(ctl.data);
    assert.equal(c['version'], 2);
    assert.equal(c['brokerid'], 1);
    assert.equal(c['kraftControllerEpoch'], -1);
    assert.match(String(c['timestamp']), /^\d{13}$/);
    const ce = await raw.getData('/controller_epoch');
    assert.equal(ce.data!.toString('utf8'), '1');
    assert.equal(ce.stat.version, lease.epochVersion);

    const id = topicId('orders');
    await s.createTopic(
      {
        name: 'orders',
        topicId: id,
        partitions: [
          [1, 2],
          [2, 1],
        ],
        addingReplicas: { 1: [3] },
        removingReplicas: {},
      },
      { 'retention.ms': '1000' },
    );
    assert.deepEqual(json((await raw.getData('/brokers/topics/orders')).data), {
      version: 3,
      partitions: { '0': [1, 2], '1': [2, 1] },
      adding_replicas: { '1': [3] },
      removing_replicas: {},
      topic_id: id,
    });
    assert.deepEqual(json((await raw.getData('/config/topics/orders')).data), {
      version: 1,
      config: { 'retention.ms': '1000' },
    });
    await s.writePartitionStates(lease, [
      { topic: 'orders', partition: 0, state: state(1, [1, 2], 0, lease.epoch), expectedVersion: -1 },
      {
        topic: 'orders',
        partition: 1,
        state: { ...state(2, [2], 3, lease.epoch), leaderRecoveryState: 1 },
        expectedVersion: -1,
      },
    ]);
    const st = await raw.getData('/brokers/topics/orders/partitions/0/state');
    assert.equal(st.stat.version, 0);
    assert.deepEqual(json(st.data), {
      version: 1,
      leader: 1,
      leader_epoch: 0,
      controller_epoch: 1,
      isr: [1, 2],
    });
    assert.deepEqual(json((await raw.getData('/brokers/topics/orders/partitions/1/state')).data), {
      version: 1,
      leader: 2,
      leader_epoch: 3,
      controller_epoch: 1,
      isr: [2],
      leader_recovery_state: 1,
    });

    await s.setConfigs({ type: 'brokers', name: '<default>' }, { 'log.retention.ms': '5' });
    assert.deepEqual(json((await raw.getData('/config/brokers/<default>')).data), {
      version: 1,
      config: { 'log.retention.ms': '5' },
    });
    const changes = (await raw.getChildren('/config/changes')).sort();
    assert.match(changes.at(-1)!, /^config_change_\d{10}$/);
    assert.deepEqual(json((await raw.getData(`/config/changes/${changes.at(-1)}`)).data), {
      version: 2,
      entity_path: 'brokers/<default>',
    });

    await s.requestTopicDeletion('orders');
    const del = await raw.getData('/admin/delete_topics/orders');
    assert.ok(del.data === null || del.data.length === 0, 'a deletion request has no data');

    const block = await s.allocateProducerIdBlock(1, 1000);
    assert.deepEqual(block, { firstProducerId: 0n, size: 1000 });
    assert.deepEqual(json((await raw.getData('/latest_producer_id_block')).data), {
      version: 1,
      broker: 1,
      block_start: '0',
      block_end: '999',
    });
  } finally {
    await cl.close();
  }
});

test('start creates a missing chroot and the persistent paths; an unreachable server is a TIMEOUT', async () => {
  const base = await zk.chroot('fresh');
  const s = await openStore(`${base}/a/b`);
  try {
    const raw = await ZkClient.connect(`${base}/a/b`, { connectionTimeoutMs: LIVENESS_MS });
    try {
      assert.ok(await raw.exists('/brokers/ids'));
      assert.ok(await raw.exists('/config/changes'));
    } finally {
      await raw.close();
    }
  } finally {
    await s.close();
  }
  const dead = new ZkMetadataStore({
    connectString: '127.0.0.1:1/x',
    sessionTimeoutMs: 2000,
    connectionTimeoutMs: 500,
  });
  await rejects(dead.start(), 'TIMEOUT');
});

test('watches: admin requests, and config notifications written by other tools', async () => {
  const cl = await zkCluster();
  try {
    const raw = await cl.raw();
    // A notification from before the store started is not reported.
    await raw.create(CONFIG_CHANGE_CREATE_PATH, encodeConfigChangeNotification('topics', 'old'), {
      mode: 'PERSISTENT_SEQUENTIAL',
      createParents: true,
    });
    const s = await cl.open();
    const seen = new Recorder(s);
    await raw.create(
      '/admin/reassign_partitions',
      encodeReassignPartitions([{ topic: 't', partition: 0, replicas: [1] }]),
    );
    await seen.seen('adminRequest:reassign');
    await raw.create('/admin/preferred_replica_election', Buffer.from('{"version":1,"partitions":[]}'));
    await seen.seen('adminRequest:preferred-election');
    // kafka-configs.sh writes the config, then a version-2 notification; client-id quota
    // entities are reported too (the broker's quotas follow them).
    await raw.create(CONFIG_CHANGE_CREATE_PATH, encodeConfigChangeNotification('clients', 'c1'), {
      mode: 'PERSISTENT_SEQUENTIAL',
    });
    await raw.create(CONFIG_CHANGE_CREATE_PATH, encodeConfigChangeNotification('brokers', '2'), {
      mode: 'PERSISTENT_SEQUENTIAL',
    });
    await seen.seen('configChanged:brokers/2');
    assert.ok(!seen.calls.includes('configChanged:topics/old'), JSON.stringify(seen.calls));
    assert.ok(seen.calls.includes('configChanged:clients/c1'), JSON.stringify(seen.calls));

    // A topic created by another tool (no topic id, pre-2.8 JSON) is watched and read.
    await raw.create('/brokers/topics/legacy', Buffer.from('{"version":1,"partitions":{"0":[1]}}'));
    await seen.seen('topicsChanged');
    assert.deepEqual(await s.assignments(['legacy']), [
      { name: 'legacy', topicId: 'AAAAAAAAAAAAAAAAAAAAAA', partitions: [[1]] },
    ]);
    await raw.setData(
      '/brokers/topics/legacy',
      Buffer.from('{"version":1,"partitions":{"0":[1],"1":[1]}}'),
      -1,
    );
    await seen.seen('assignmentChanged:legacy');

    // completeTopicDeletion drops a request left for a topic that is already gone.
    await raw.create('/admin/delete_topics/ghost');
    const lease = (await s.tryElectController(1))!;
    await s.completeTopicDeletion(lease, 'ghost');
    assert.deepEqual(await s.pendingTopicDeletions(), []);
  } finally {
    await cl.close();
  }
});

test('changes written while an expired session is renewed reach it once its watches are back', async () => {
  const cl = await zkCluster();
  try {
    const raw = await cl.raw();
    const a = await cl.open({ shortSession: true });
    const seen = new Recorder(a);
    const acls: string[] = [];
    const stopAcls = a.watch({ aclsChanged: (r) => acls.push(r.name) });
    // Written as soon as the client learns of the expiry: before its new session's watches have
    // read again, as another broker's change can land while this one renews its session.
    let written: Promise<unknown> | undefined;
    (a as ZkMetadataStore).zkClient!.once('expired', () => {
      written = Promise.all([
        raw.create(CONFIG_CHANGE_CREATE_PATH, encodeConfigChangeNotification('brokers', '7'), {
          mode: 'PERSISTENT_SEQUENTIAL',
        }),
        writeAcls(raw, { resourceType: 'Topic', patternType: 'LITERAL', name: 'renewal' }, [readAll], -1),
      ]);
    });
    await cl.expire(a);
    assert.ok(written, 'the expiry was seen');
    await written;
    await seen.seen('configChanged:brokers/7');
    await eventually(`aclsChanged for renewal (seen: ${JSON.stringify(acls)})`, () =>
      acls.includes('renewal'),
    );
    stopAcls();
  } finally {
    await cl.close();
  }
});

test('ZooKeeper down: disconnected, calls fail fast with CONNECTION_LOSS, whenConnected waits; back: reconnected, same session', async () => {
  const own = await startTestZooKeeper();
  const s = await openStore(await own.chroot('outage'));
  try {
    const seen = new Recorder(s);
    const epoch = await s.registerBroker(broker(1));
    await own.kill();
    await seen.seen('disconnected');
    await rejects(s.liveBrokers(), 'CONNECTION_LOSS');
    assert.equal(await s.whenConnected(50), false, 'a wait that ends before ZooKeeper is back');
    const listeners = s.zkClient!.listenerCount('connected');
    const back = Array.from({ length: 30 }, () => s.whenConnected(LIVENESS_MS));
    assert.ok(s.zkClient!.listenerCount('connected') <= listeners + 1, 'the waits share one listener');
    await own.restart();
    assert.deepEqual(await Promise.all(back), Array(30).fill(true), 'waits that see ZooKeeper back');
    await seen.seen('reconnected');
    assert.ok(!seen.calls.includes('sessionExpired'), JSON.stringify(seen.calls));
    const live = await eventually('a read after the reconnection', () =>
      s.liveBrokers().catch(() => undefined),
    );
    assert.deepEqual(
      live.map((b) => [b.nodeId, b.epoch]),
      [[1, epoch]],
    );
  } finally {
    await s.close();
    await own.stop();
  }
});

test('scale: 10,000 partition states created through writePartitionStates (figure printed, not asserted)', async (t) => {
  const cl = await zkCluster();
  try {
    const s = await cl.open();
    const partitions = 10_000;
    const topics = 10;
    const per = partitions / topics;
    for (let i = 0; i < topics; i++)
      await s.createTopic(
        topic(
          `scale-${i}`,
          Array.from({ length: per }, () => [1, 2, 3]),
        ),
        {},
      );
    const lease = (await s.tryElectController(1))!;
    const writes: PartitionStateWrite[] = [];
    for (let i = 0; i < topics; i++)
      for (let p = 0; p < per; p++)
        writes.push({ topic: `scale-${i}`, partition: p, state: state(1, [1, 2, 3]), expectedVersion: -1 });
    const t0 = performance.now();
    const created = await s.writePartitionStates(lease, writes);
    const createMs = performance.now() - t0;
    assert.equal(created.filter((r) => r.ok).length, partitions);

    const t1 = performance.now();
    const updated = await s.writePartitionStates(
      lease,
      writes.map((w) => ({ ...w, state: state(2, [2, 3], 1), expectedVersion: 0 })),
    );
    const updateMs = performance.now() - t1;
    assert.equal(updated.filter((r) => r.ok && r.version === 1).length, partitions);

    const t2 = performance.now();
    let read = 0;
    for (let i = 0; i < topics; i++) read += (await s.partitionStates(`scale-${i}`)).size;
    const readMs = performance.now() - t2;
    assert.equal(read, partitions);

    const t3 = performance.now();
    for (let i = 0; i < topics; i++) await s.completeTopicDeletion(lease, `scale-${i}`);
    const deleteMs = performance.now() - t3;
    assert.deepEqual(await s.topicNames(), []);

    const figure =
      `10,000 partitions (${topics} topics): create states ${createMs.toFixed(0)} ms, ` +
      `update all ${updateMs.toFixed(0)} ms, read all ${readMs.toFixed(0)} ms, ` +
      `delete topics ${deleteMs.toFixed(0)} ms`;
    t.diagnostic(figure);
    console.log(`# zk-store scale: ${figure}`);
  } finally {
    await cl.close();
  }
});
