// A three-broker cluster over a real ZooKeeper, each broker its own process: topics created from
// any broker by our admin client, kafkajs and confluent-kafka-python; every broker's metadata
// agrees; a broker not hosting a partition answers as Kafka does; kill -9 of a leader and of the
// controller, a controlled shutdown, restarts; a stale controller's request refused; a duplicate
// node id and an unreachable ZooKeeper refused at start.
import assert from 'node:assert/strict';

import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { Kafka, logLevel } from 'kafkajs';
import { Admin, Producer } from '../../src/client/index.js';
import { ErrorCode } from '../../src/protocol/errors.js';
import { deleteRecordsApi } from '../../src/protocol/messages/generated/delete-records.js';
import { leaderAndIsrApi } from '../../src/protocol/messages/generated/leader-and-isr.js';
import { listOffsetsApi } from '../../src/protocol/messages/generated/list-offsets.js';
import { startTestCluster, type TestCluster } from '../../src/testkit/cluster.js';
import { RawClient } from '../broker/support/raw-client.js';
import { fetchOnce } from '../broker/support/wire.js';
import { exec } from '../interop/support/exec.js';
import { LOADER_FLAGS, moduleFile } from '../support/repo.js';
import { scaled } from '../support/timeouts.js';
import { controllerZnodes, leaderOf, rawProduceOn, viewOf, waitForViews } from './support.js';

const SESSION_MS = 4000;
const MAIN = moduleFile('src/cli/main.ts');

let cluster: TestCluster;

before(async () => {
  cluster = await startTestCluster({ brokers: 3, sessionTimeoutMs: SESSION_MS });
});
after(async () => {
  await cluster?.close();
});

const live = () => cluster.nodeIds.filter((id) => cluster.broker(id).running);
const agree = (
  views: Map<number, { controllerId: number; brokers: number[]; topics: Map<string, unknown> }>,
) => {
  const shapes = [...views.values()].map((v) =>
    JSON.stringify([v.controllerId, v.brokers, [...v.topics].sort(([a], [b]) => (a < b ? -1 : 1))]),
  );
  return shapes.every((s) => s === shapes[0]);
};

test('topics created on any broker by any client; every broker’s metadata agrees', {
  timeout: scaled(600_000),
}, async () => {
  // Our admin client, bootstrapped on broker 2 only.
  const ours = new Admin({ bootstrapServers: cluster.broker(2).bootstrap! });
  await ours.createTopics([{ name: 'ours', numPartitions: 6, replicationFactor: 3 }]);
  await assert.rejects(
    ours.createTopics([{ name: 'too-wide', numPartitions: 1, replicationFactor: 4 }]),
    (e: Error) => /INVALID_REPLICATION_FACTOR|replication factor/i.test(`${e.name} ${e.message}`),
  );
  await ours.close();
  // kafkajs, bootstrapped on broker 3 (it sends CreateTopics to the controller it finds).
  const kafka = new Kafka({ brokers: [cluster.broker(3).bootstrap!], logLevel: logLevel.NOTHING });
  const kadmin = kafka.admin();
  await kadmin.connect();
  assert.equal(
    await kadmin.createTopics({
      topics: [{ topic: 'kjs', numPartitions: 3, replicationFactor: 3 }],
      waitForLeaders: true,
    }),
    true,
  );
  await kadmin.disconnect();
  // confluent-kafka-python, bootstrapped on broker 1.
  const py = await exec('/usr/bin/python3', [
    '-c',
    `
from confluent_kafka.admin import AdminClient, NewTopic
a = AdminClient({'bootstrap.servers': '${cluster.broker(1).bootstrap}'})
for t, f in a.create_topics([NewTopic('ck', num_partitions=4, replication_factor=2)]).items():
    f.result(30)
import time
# Metadata is eventually consistent across brokers (as in Kafka): ask until this one knows it.
deadline = time.time() + 60
md = a.list_topics(timeout=30)
while 'ck' not in md.topics and time.time() < deadline:
    time.sleep(0.2)
    md = a.list_topics(timeout=30)
print(len(md.brokers), md.controller_id, len(md.topics['ck'].partitions))
`,
  ]);
  assert.equal(py.code, 0, py.stderr);
  const [brokers, controller, ckParts] = py.stdout.toString().trim().split(' ').map(Number);
  assert.equal(brokers, 3);
  assert.ok(controller! >= 1 && controller! <= 3);
  assert.equal(ckParts, 4);

  const views = await waitForViews(cluster, 'every broker to know the three topics', (v) =>
    ['ours', 'kjs', 'ck'].every((t) => v.topics.get(t)?.every((p) => p.leader >= 0)),
  );
  const views2 = await waitForViews(cluster, 'every broker to agree', () => true);
  assert.ok(agree(views2), 'same controller, brokers and partition states everywhere');
  const v = views.get(1)!;
  assert.deepEqual(v.brokers, [1, 2, 3]);
  for (const p of v.topics.get('ours')!) {
    assert.equal(p.replicas.length, 3);
    assert.deepEqual([...p.isr].sort(), [...p.replicas].sort());
    assert.equal(p.leader, p.replicas[0], 'the preferred replica leads a new partition');
  }
  for (const p of v.topics.get('ck')!) assert.equal(p.replicas.length, 2);
  // Leaders spread over the brokers (Kafka's placement).
  const leaders = new Set(v.topics.get('ours')!.map((p) => p.leader));
  assert.equal(leaders.size, 3);
  // kcat sees the cluster too.
  const kcat = await exec('kcat', ['-b', cluster.broker(1).bootstrap!, '-L', '-t', 'ours']);
  assert.equal(kcat.code, 0, kcat.stderr);
  assert.match(kcat.stdout.toString(), /3 brokers:/);
  assert.match(kcat.stdout.toString(), /topic "ours" with 6 partitions/);
});

test('kill -9 of a leader: new leaders from the ISR; producers carry on; the broker rejoins', {
  timeout: scaled(600_000),
}, async () => {
  const before = await viewOf(cluster.broker(1).port!);
  const victim = leaderOf(before, 'ours', 0);
  const led = before.topics
    .get('ours')!
    .filter((p) => p.leader === victim)
    .map((p) => p.partition);
  const t0 = Date.now();
  await cluster.kill(victim);
  const others = live();
  const after = await waitForViews(
    cluster,
    `new leaders for the partitions broker ${victim} led`,
    (v) =>
      !v.brokers.includes(victim) &&
      led.every((p) => {
        const s = v.topics.get('ours')![p]!;
        return s.leader >= 0 && s.leader !== victim && before.topics.get('ours')![p]!.isr.includes(s.leader);
      }),
    SESSION_MS + 30_000,
    others,
  );
  const failoverMs = Date.now() - t0;
  for (const p of led) {
    const s = after.get(others[0]!)!.topics.get('ours')![p]!;
    assert.ok(s.leaderEpoch > before.topics.get('ours')![p]!.leaderEpoch, 'the leader epoch grew');
    assert.ok(!s.isr.includes(victim), 'the dead broker left the ISR');
    assert.deepEqual(s.offline, [victim]);
  }
  // Our producer (acks=1) and kcat write to every partition through the new leaders.
  const producer = new Producer({ bootstrapServers: cluster.bootstrap(), acks: 1 });
  const acks = await Promise.all(
    Array.from({ length: 60 }, (_, i) =>
      producer.send({ topic: 'ours', partition: i % 6, value: Buffer.from(`after-${i}`) }),
    ),
  );
  assert.equal(acks.length, 60);
  await producer.close();
  const kcat = await exec(
    'kcat',
    ['-b', cluster.bootstrap(), '-P', '-t', 'ours', '-p', String(led[0]), '-X', 'acks=1'],
    {
      input: 'k1\nk2\n',
    },
  );
  assert.equal(kcat.code, 0, kcat.stderr);
  // The broker comes back and is live again everywhere.
  await cluster.restart(victim);
  await waitForViews(cluster, `broker ${victim} back`, (v) => v.brokers.includes(victim));
  process.stdout.write(`# leader failover after kill -9: ${failoverMs} ms (session ${SESSION_MS} ms)\n`);
});

test('kill -9 of the controller: a new one with a higher epoch; partitions keep leaders', {
  timeout: scaled(600_000),
}, async () => {
  const { controllerId: old, epoch } = await controllerZnodes(cluster);
  assert.ok(old >= 1, 'a controller exists');
  await cluster.kill(old);
  const views = await waitForViews(
    cluster,
    'a new controller',
    (v) => v.controllerId >= 1 && v.controllerId !== old && !v.brokers.includes(old),
    SESSION_MS + 30_000,
  );
  const now = await controllerZnodes(cluster);
  assert.ok(now.epoch > epoch, `epoch ${now.epoch} > ${epoch}`);
  assert.equal(now.controllerId, views.values().next().value!.controllerId);
  for (const v of views.values())
    for (const [, parts] of v.topics)
      for (const p of parts) if (p.isr.some((r) => r !== old)) assert.ok(p.leader >= 0 && p.leader !== old);
  await cluster.restart(old);
  await waitForViews(cluster, `broker ${old} back`, (v) => v.brokers.includes(old));
});

test('a stale or invented controller epoch is refused by brokers', { timeout: scaled(180_000) }, async () => {
  const { epoch, controllerId } = await controllerZnodes(cluster);
  const target = live().find((id) => id !== controllerId)!;
  const c = await RawClient.connect(cluster.broker(target).port!);
  try {
    for (const [from, ep] of [
      [controllerId, epoch - 1],
      // A broker that is not the controller, inventing a newer epoch.
      [cluster.nodeIds.find((id) => id !== target && id !== controllerId)!, epoch + 100],
    ] as const) {
      const r = await c.request(leaderAndIsrApi, 7, {
        controllerId: from === controllerId ? controllerId : from,
        isKRaftController: false,
        controllerEpoch: ep,
        brokerEpoch: -1n,
        type: 0,
        ungroupedPartitionStates: [],
        topicStates: [],
        liveLeaders: [],
      });
      assert.equal(r.errorCode, ErrorCode.STALE_CONTROLLER_EPOCH);
    }
  } finally {
    c.close();
  }
});

test('a broker that does not host a partition: NOT_LEADER_OR_FOLLOWER when the cluster has it, UNKNOWN_TOPIC_OR_PARTITION when not', {
  timeout: 120_000,
}, async () => {
  const admin = new Admin({ bootstrapServers: cluster.bootstrap() });
  await admin.createTopics([{ name: 'hosted-elsewhere', numPartitions: 3, replicationFactor: 1 }]);
  await admin.close();
  const views = await waitForViews(cluster, 'hosted-elsewhere with leaders everywhere', (v) =>
    [0, 1, 2].every((p) => leaderOf(v, 'hosted-elsewhere', p) >= 0),
  );
  const view = views.get(live()[0]!)!;
  // With one replica each, some live broker holds no replica of partition 0.
  const holder = leaderOf(view, 'hosted-elsewhere', 0);
  const target = live().find((id) => id !== holder)!;
  const c = await RawClient.connect(cluster.broker(target).port!);
  try {
    const NL = ErrorCode.NOT_LEADER_OR_FOLLOWER;
    const UNKNOWN = ErrorCode.UNKNOWN_TOPIC_OR_PARTITION;
    for (const [topic, partition, want] of [
      ['hosted-elsewhere', 0, NL],
      ['hosted-elsewhere', 7, UNKNOWN],
      ['never-created', 0, UNKNOWN],
    ] as const) {
      const produced = await rawProduceOn(c, topic, partition, 1, ['x']);
      assert.equal(produced.errorCode, want, `Produce ${topic}-${partition}`);
      const fetched = await fetchOnce(c, topic, partition, 0n, {
        version: 12,
        maxBytes: 1 << 20,
        partitionMaxBytes: 1024,
      });
      assert.equal(fetched.errorCode, want, `Fetch ${topic}-${partition}`);
      const listed = await c.request(listOffsetsApi, 5, {
        replicaId: -1,
        isolationLevel: 0,
        timeoutMs: 1000,
        topics: [
          {
            name: topic,
            partitions: [
              { partitionIndex: partition, currentLeaderEpoch: -1, timestamp: -1n, maxNumOffsets: 1 },
            ],
          },
        ],
      });
      assert.equal(listed.topics[0]!.partitions[0]!.errorCode, want, `ListOffsets ${topic}-${partition}`);
      const deleted = await c.request(deleteRecordsApi, 2, {
        timeoutMs: 1000,
        topics: [{ name: topic, partitions: [{ partitionIndex: partition, offset: 0n }] }],
      });
      assert.equal(deleted.topics[0]!.partitions[0]!.errorCode, want, `DeleteRecords ${topic}-${partition}`);
    }
  } finally {
    c.close();
  }
});

test('SIGTERM: a controlled shutdown moves every leadership before the broker exits', {
  timeout: scaled(600_000),
}, async () => {
  const v = await viewOf(cluster.broker(live()[0]!).port!);
  const counts = new Map<number, number>();
  for (const [, parts] of v.topics)
    for (const p of parts) counts.set(p.leader, (counts.get(p.leader) ?? 0) + 1);
  const target = [...counts].sort((a, b) => b[1] - a[1])[0]![0];
  await cluster.stop(target);
  // The controller answered "nothing left" before the broker exited (its log says so); the other
  // brokers learn the new leaders from the controller's UpdateMetadata right after.
  const movable = (topic: string, p: number) =>
    v.topics.get(topic)?.[p]?.isr.some((r) => r !== target) ?? false;
  await waitForViews(cluster, 'the leaders to have moved', (view) =>
    [...view.topics].every(([topic, parts]) =>
      parts.every((p) => !movable(topic, p.partition) || p.leader !== target),
    ),
  );
  // What could not move (no other ISR member) is what the controller reported as remaining.
  let stuck = 0;
  for (const [topic, parts] of v.topics)
    for (const p of parts) if (p.leader === target && !movable(topic, p.partition)) stuck++;
  const out = cluster.broker(target).output();
  if (stuck === 0) assert.match(out, /controlled shutdown succeeded/);
  else assert.match(out, new RegExp(`partitions still led here remaining=${stuck}\\b`));
  await cluster.restart(target);
  await waitForViews(cluster, `broker ${target} back`, (view) => view.brokers.includes(target));
});

test('start refuses a duplicate node id and an unreachable ZooKeeper, in one line each', {
  timeout: scaled(240_000),
}, async () => {
  const dir = await mkdtemp(join(tmpdir(), 'samsa-dup-'));
  const run = (args: string[]) =>
    exec(process.execPath, [...LOADER_FLAGS, MAIN, 'start', '--data-dir', dir, '--port', '0', ...args], {
      timeoutMs: 60_000,
    });
  try {
    const taken = live()[0]!;
    const dup = await run(['--node-id', String(taken), '--zookeeper', cluster.zookeeperConnect]);
    assert.notEqual(dup.code, 0);
    assert.match(dup.stderr, new RegExp(`node id ${taken}|broker ${taken}|/brokers/ids/${taken}`, 'i'));
    assert.doesNotMatch(dup.stderr, /\n\s+at /, 'no stack trace');
    const t0 = Date.now();
    const gone = await run([
      '--node-id',
      '9',
      '--zookeeper',
      '127.0.0.1:1',
      '--override',
      'zookeeper.connection.timeout.ms=2000',
    ]);
    assert.notEqual(gone.code, 0);
    assert.match(gone.stderr, /127\.0\.0\.1:1/);
    assert.doesNotMatch(gone.stderr, /\n\s+at /, 'no stack trace');
    assert.ok(Date.now() - t0 < scaled(50_000), 'fails after the connection timeout, not later');
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});
