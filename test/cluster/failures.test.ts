// Failures of a three-broker cluster (broker processes, this file's own ZooKeeper, 4 s sessions):
// - SIGSTOP of a leader past its session: new leaders from the ISR, producers carry on with them;
//   woken up, the old leader refuses writes — a Produce that waited in its socket while it was
//   frozen and one sent right after — and rejoins as a follower;
// - kill -9 of a consumer group's coordinator broker: the group goes on with the new coordinator
//   and every offset committed before is still there;
// - ZooKeeper itself killed for a while: committed data is still served, writes and admin changes
//   are refused, and everything recovers when it comes back (a topic can be created afterwards).
// (Ten controller kills in a row under topic creation: controller-failover.test.ts.)
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { Admin, Consumer, Producer } from '../../src/client/index.js';
import { ErrorCode } from '../../src/protocol/errors.js';
import { findCoordinatorApi } from '../../src/protocol/messages/generated/find-coordinator.js';
import { startTestCluster, type TestCluster } from '../../src/testkit/cluster.js';
import { startTestZooKeeper, type TestZooKeeper } from '../../src/testkit/zookeeper.js';
import { RawClient } from '../broker/support/raw-client.js';
import { exec } from '../interop/support/exec.js';
import { scaled, TestTimeoutError } from '../support/timeouts.js';
import {
  controllerZnodes,
  killAndRestart,
  rawProduce,
  rawProduceOn,
  sleep,
  waitFor,
  waitForFullIsr,
  waitForViews,
} from './support.js';

const SESSION_MS = 4000;

let zk: TestZooKeeper;
let cluster: TestCluster;

before(async () => {
  zk = await startTestZooKeeper();
  cluster = await startTestCluster({
    zookeeper: zk,
    brokers: 3,
    sessionTimeoutMs: SESSION_MS,
    overrides: {
      'min.insync.replicas': 2,
      'auto.leader.rebalance.enable': false,
      'auto.create.topics.enable': false,
      'replica.fetch.backoff.ms': 200,
      'offsets.topic.num.partitions': 3,
      'group.initial.rebalance.delay.ms': 0,
    },
  });
});
after(async () => {
  await cluster?.close();
  await zk?.stop();
});

const say = (s: string) => process.stdout.write(`# ${s}\n`);

/** Runs `fn`; if it fails, the tail of every broker's log is printed first (what to look at). */
async function withBrokerLogs(fn: () => Promise<void>): Promise<void> {
  try {
    await fn();
  } catch (e) {
    for (const id of cluster.nodeIds)
      say(`broker ${id}:\n${cluster.broker(id).output().slice(-6000).replace(/^/gm, '#   ')}`);
    throw e;
  }
}
const live = () => cluster.nodeIds.filter((id) => cluster.broker(id).running);

async function createTopic(name: string, partitions: number, replicationFactor = 3): Promise<void> {
  const admin = new Admin({ bootstrapServers: cluster.bootstrap() });
  try {
    await admin.createTopics([
      { name, numPartitions: partitions, replicationFactor, configs: { 'min.insync.replicas': '2' } },
    ]);
  } finally {
    await admin.close();
  }
  await waitForFullIsr(cluster, [name]);
}

/** Every value of a topic from the beginning to its end, read with kcat. */
async function kcatValues(topic: string): Promise<string[]> {
  const r = await exec('kcat', ['-b', cluster.bootstrap(), '-C', '-t', topic, '-o', 'beginning', '-e', '-q']);
  assert.equal(r.code, 0, r.stderr);
  return r.stdout
    .toString()
    .split('\n')
    .filter((l) => l !== '');
}

test('SIGSTOP of a leader past its session: new leaders from the ISR, producers carry on, the woken broker is fenced and rejoins as a follower', {
  timeout: scaled(600_000),
}, async () => {
  const topic = 'paused';
  await createTopic(topic, 3);
  const { controllerId } = await controllerZnodes(cluster);
  const before = (await waitForFullIsr(cluster, [topic])).values().next().value!;
  // A leader that is not the controller: the controller's own loss is the test below.
  const victim = before.topics.get(topic)!.find((p) => p.leader !== controllerId)!.leader;
  const led = before.topics
    .get(topic)!
    .filter((p) => p.leader === victim)
    .map((p) => p.partition);
  const others = cluster.nodeIds.filter((id) => id !== victim);
  const port = cluster.broker(victim).port!;

  // Our idempotent producer keeps writing to every partition, acks=all.
  const producer = new Producer({
    bootstrapServers: cluster.bootstrap(),
    acks: 'all',
    requestTimeoutMs: 10_000,
    metadataMaxAgeMs: 5000,
  });
  const acked: { partition: number; value: string; at: number }[] = [];
  const failed: string[] = [];
  let stop = false;
  const writer = (async () => {
    for (let i = 0; !stop; i++) {
      const value = `p-${i}`;
      producer.send({ topic, partition: i % 3, value }).then(
        (md) => acked.push({ partition: md.partition, value, at: Date.now() }),
        (e: unknown) => failed.push(`${value}: ${e}`),
      );
      await sleep(20);
    }
  })();
  let paused = false;
  let failoverMs = -1;
  try {
    const ackedOn = (parts: readonly number[], since = 0) =>
      acked.filter((a) => parts.includes(a.partition) && a.at >= since).length;
    await waitFor('acknowledgements from every partition', () => [0, 1, 2].every((p) => ackedOn([p]) > 5));

    // A connection opened before the freeze: what is written to it waits in the frozen broker's socket.
    const early = await RawClient.connect(port);
    const t0 = Date.now();
    cluster.pause(victim);
    paused = true;
    const queued = rawProduceOn(early, topic, led[0]!, 1, ['zombie-queued']);
    const failedOver = await waitForViews(
      cluster,
      `new leaders from the ISR for ${topic} ${led} (broker ${victim} frozen)`,
      (v) =>
        !v.brokers.includes(victim) &&
        led.every((p) => {
          const s = v.topics.get(topic)![p]!;
          return s.leader >= 0 && s.leader !== victim && before.topics.get(topic)![p]!.isr.includes(s.leader);
        }),
      SESSION_MS + 30_000,
      others,
    );
    failoverMs = Date.now() - t0;
    for (const v of failedOver.values())
      for (const p of led)
        assert.ok(
          v.topics.get(topic)![p]!.leaderEpoch > before.topics.get(topic)![p]!.leaderEpoch,
          'epoch grew',
        );
    // The producer goes on with the new leaders while the old one is still frozen.
    const since = Date.now();
    await waitFor(`acknowledgements from the new leaders of ${led}`, () => ackedOn(led, since) >= 20, 90_000);

    // Woken up, it must not take a write as leader: neither the one waiting in its socket nor a new one.
    cluster.resume(victim);
    paused = false;
    const late = await rawProduce(port, topic, led[0]!, 1, ['zombie-late']);
    const queuedAnswer = await queued;
    early.close();
    assert.equal(
      queuedAnswer.errorCode,
      ErrorCode.NOT_LEADER_OR_FOLLOWER,
      'the Produce that waited in its socket',
    );
    assert.equal(late.errorCode, ErrorCode.NOT_LEADER_OR_FOLLOWER, 'a Produce right after SIGCONT');
    const allAcks = await rawProduce(port, topic, led[0]!, -1, ['zombie-acks-all']);
    assert.equal(allAcks.errorCode, ErrorCode.NOT_LEADER_OR_FOLLOWER, 'acks=all too');

    // It rejoins as a follower of the new leaders.
    const rejoined = await waitForFullIsr(cluster, [topic]);
    for (const v of rejoined.values())
      for (const p of led) {
        const s = v.topics.get(topic)![p]!;
        assert.notEqual(s.leader, victim);
        assert.ok(s.isr.includes(victim));
      }
  } finally {
    if (paused) cluster.resume(victim);
    stop = true;
    await writer;
    await producer.flush().catch(() => {});
    await producer.close();
  }
  assert.deepEqual(failed, []);
  const values = await kcatValues(topic);
  assert.deepEqual(
    values.filter((v) => v.startsWith('zombie')),
    [],
    'nothing the frozen leader was sent',
  );
  const stored = new Set(values);
  assert.deepEqual(
    acked.filter((a) => !stored.has(a.value)).map((a) => a.value),
    [],
    'every acknowledged record',
  );
  assert.equal(stored.size, values.length, 'no duplicates');
  say(`leader failover after SIGSTOP of broker ${victim}: ${failoverMs} ms (session ${SESSION_MS} ms)`);
});

test('a consumer group goes on through kill -9 of its coordinator’s broker; no committed offset is lost', {
  timeout: scaled(600_000),
}, async () => {
  const topic = 'grouped';
  const group = 'survivors';
  await createTopic(topic, 3);
  const producer = new Producer({ bootstrapServers: cluster.bootstrap(), acks: 'all' });
  await Promise.all(
    Array.from({ length: 3000 }, (_, i) => producer.send({ topic, partition: i % 3, value: `g-${i}` })),
  );
  await producer.close();
  const consumer = new Consumer({
    bootstrapServers: cluster.bootstrap(),
    groupId: group,
    enableAutoCommit: false,
    autoOffsetReset: 'earliest',
    sessionTimeoutMs: 15_000,
    heartbeatIntervalMs: 1000,
    requestTimeoutMs: 10_000,
    metadataMaxAgeMs: 5000,
  });
  const admin = new Admin({ bootstrapServers: cluster.bootstrap(), requestTimeoutMs: 10_000 });
  const seen = new Set<string>();
  const consumeUntil = async (n: number, what: string) => {
    const ms = scaled(120_000);
    const deadline = Date.now() + ms;
    while (seen.size < n) {
      if (Date.now() > deadline) throw new TestTimeoutError(what, ms, `${seen.size} of ${n} read`);
      const records = await consumer.poll(500);
      for (const r of records) seen.add(r.value!.toString());
      if (records.length > 0) {
        try {
          await consumer.commitSync();
        } catch (e) {
          // A commit during the failover may fail; the next one carries the same positions.
          say(`commit failed during the failover: ${e}`);
        }
      }
    }
  };
  const coordinatorOf = async (): Promise<number> => {
    let node = -1;
    await waitFor(`a coordinator for ${group}`, async () => {
      for (const id of live()) {
        const c = await RawClient.connect(cluster.broker(id).port!).catch(() => null);
        if (c === null) continue;
        try {
          const r = await c.request(
            findCoordinatorApi,
            3,
            { key: group, keyType: 0, coordinatorKeys: [] },
            10_000,
          );
          if (r.errorCode === ErrorCode.NONE) {
            node = r.nodeId;
            return true;
          }
        } catch {
          // try another broker
        } finally {
          c.close();
        }
      }
      return false;
    });
    return node;
  };
  try {
    consumer.subscribe([topic]);
    await consumeUntil(1000, 'the first thousand records');
    await consumer.commitSync();
    const committed = (await admin.listConsumerGroupOffsets(group)).filter((o) => o.topic === topic);
    assert.equal(committed.length, 3);
    const coordinator = await coordinatorOf();
    say(
      `group coordinator: broker ${coordinator}; committed ${committed.map((o) => `${o.partition}:${o.offset}`)}`,
    );

    await killAndRestart(cluster, coordinator, SESSION_MS, async () => {
      // The new coordinator has every offset committed before.
      const successor = await coordinatorOf();
      assert.notEqual(successor, coordinator);
      let now: { partition: number; offset: bigint }[] = [];
      await waitFor('the committed offsets from the new coordinator', async () => {
        try {
          now = (await admin.listConsumerGroupOffsets(group)).filter((o) => o.topic === topic);
          return true;
        } catch {
          return false;
        }
      });
      for (const c of committed) {
        const n = now.find((o) => o.partition === c.partition);
        assert.ok(
          n !== undefined && n.offset >= c.offset,
          `partition ${c.partition}: ${n?.offset} ≥ ${c.offset}`,
        );
      }
      // The group goes on meanwhile.
      await consumeUntil(2000, 'records after the coordinator was lost');
    });
    await consumeUntil(3000, 'every record');
    await consumer.commitSync();
    const final = (await admin.listConsumerGroupOffsets(group)).filter((o) => o.topic === topic);
    assert.deepEqual(
      final.map((o) => o.offset).sort(),
      [1000n, 1000n, 1000n],
      'committed to the end of every partition',
    );
  } finally {
    await consumer.close();
    await admin.close();
  }
  await waitForFullIsr(cluster, [topic]);
});

test('ZooKeeper down for a while: committed data is served, writes and admin changes are refused, everything recovers', {
  timeout: scaled(600_000),
}, async () => {
  const topic = 'outage';
  await createTopic(topic, 3);
  const producer = new Producer({ bootstrapServers: cluster.bootstrap(), acks: 'all' });
  await Promise.all(
    Array.from({ length: 300 }, (_, i) => producer.send({ topic, partition: i % 3, value: `o-${i}` })),
  );
  const view = (await waitForFullIsr(cluster, [topic])).values().next().value!;
  const stored = await kcatValues(topic);
  assert.deepEqual(
    [...stored].sort(),
    Array.from({ length: 300 }, (_, i) => `o-${i}`).sort(),
    'each record once before the outage',
  );

  await zk.kill();
  const t0 = Date.now();
  let creating: Promise<unknown> | null = null;
  const refused: string[] = [];
  try {
    // Reads of what is committed go on, from our consumer and kcat.
    const consumer = new Consumer({
      bootstrapServers: cluster.bootstrap(),
      isolationLevel: 'read_uncommitted',
    });
    const read: string[] = [];
    try {
      const tps = [0, 1, 2].map((partition) => ({ topic, partition }));
      consumer.assign(tps);
      consumer.seekToBeginning(tps);
      await waitFor('our consumer to read the 300 records', async () => {
        for (const r of await consumer.poll(500)) read.push(`${r.partition}/${r.offset}/${r.value}`);
        return read.length >= 300;
      });
    } finally {
      await consumer.close();
    }
    assert.equal(
      new Set(read).size,
      read.length,
      `no record read twice: ${read.filter((r, i) => read.indexOf(r) !== i).slice(0, 5)}`,
    );
    assert.deepEqual(read.map((r) => r.split('/')[2]).sort(), [...stored].sort());
    assert.deepEqual((await kcatValues(topic)).sort(), [...stored].sort());

    // A leader that can no longer prove it leads (a session timeout without ZooKeeper) refuses
    // writes. (Until then it may take some: acks=1 here, so only the refused ones are known.)
    let attempt = 0;
    await waitFor(
      'every leader to refuse writes',
      async () => {
        for (const p of view.topics.get(topic)!) {
          const value = `during-outage-${attempt++}`;
          const r = await rawProduce(cluster.broker(p.leader).port!, topic, p.partition, 1, [value]);
          if (r.errorCode === ErrorCode.NOT_LEADER_OR_FOLLOWER) refused.push(value);
          else return false;
        }
        return true;
      },
      SESSION_MS + 30_000,
    );
    // Admin changes fail or wait: nothing is created while ZooKeeper is away.
    const admin = new Admin({ bootstrapServers: cluster.bootstrap(), requestTimeoutMs: 5000 });
    let outcome = 'pending';
    creating = admin
      .createTopics([{ name: 'during-outage', numPartitions: 1, replicationFactor: 3 }], { timeoutMs: 5000 })
      .then(
        () => {
          outcome = 'created';
        },
        (e: unknown) => {
          outcome = `failed: ${e}`;
        },
      )
      .finally(() => admin.close());
    await sleep(8000);
    assert.notEqual(outcome, 'created', 'no topic created without ZooKeeper');
    // Reads still go on after all this time.
    assert.deepEqual((await kcatValues(topic)).filter((v) => v.startsWith('o-')).sort(), [...stored].sort());
    say(`ZooKeeper down ${Date.now() - t0} ms; CreateTopics meanwhile: ${outcome}`);
  } finally {
    await zk.restart();
  }
  const restarted = Date.now();
  await creating;

  // Everything recovers: full ISRs, writes, a new topic. (When every session expired meanwhile,
  // the next controller re-sends unchanged leaderships, which must confirm the fenced leaders:
  // session-expiry.test.ts has that case on its own.)
  await withBrokerLogs(async () => {
    await waitForFullIsr(cluster, [topic], 120_000);
    await producer.send({ topic, partition: 0, value: 'after-outage' });
    await producer.close();
    // The controller may not have reconnected yet: CreateTopics waits for it (as Kafka's does).
    await createTopic('after-outage', 3);
    say(`topic created ${Date.now() - restarted} ms after ZooKeeper was back`);
    const p2 = new Producer({ bootstrapServers: cluster.bootstrap(), acks: 'all' });
    await Promise.all(
      [0, 1, 2].map((partition) => p2.send({ topic: 'after-outage', partition, value: `a-${partition}` })),
    );
    await p2.close();
  });
  assert.deepEqual((await kcatValues('after-outage')).sort(), ['a-0', 'a-1', 'a-2']);
  const values = await kcatValues(topic);
  assert.ok(values.includes('after-outage'));
  assert.deepEqual(
    values.filter((v) => refused.includes(v)),
    [],
    'no refused write in the log',
  );
  for (let i = 0; i < 300; i++) assert.ok(values.includes(`o-${i}`), `o-${i} kept`);
});
