// KIP-848 consumer groups through a coordinator failover (three broker processes, this file's own
// ZooKeeper, 4 s sessions): groups using groupProtocol 'consumer' — two of our consumers in one,
// and a mixed one (our consumer-protocol member and a kafkajs member, which joins through the
// classic protocol) — both coordinated on one __consumer_offsets partition, consume while
// records keep coming. kill -9 of the coordinator's
// broker makes another broker lead that partition; it replays the groups from the log: the same
// members at the same epochs, Stable, and they go on heartbeating, consuming and committing
// against it (re-finding the coordinator themselves). No commit acknowledged before the kill is
// lost, every record is consumed, and a record consumed twice was never committed before its
// second consumption (at least once, nothing beyond).
// (@platformatic/kafka 1.35 is left out: when its coordinator moves it can look the new one up
// in metadata that does not list it yet, and throws an uncaught TypeError from its connection
// pool — `metadata.brokers.get(coordinatorId)` undefined, consumer.js #performGroupOperation.)
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { Kafka, logLevel } from 'kafkajs';
import { Admin, Consumer, Producer } from '../../src/client/index.js';
import { coordinatorPartition } from '../../src/protocol/coordinator-partition.js';
import { ErrorCode } from '../../src/protocol/errors.js';
import {
  type ConsumerGroupDescribeResponse,
  consumerGroupDescribeApi,
} from '../../src/protocol/messages/generated/consumer-group-describe.js';
import { findCoordinatorApi } from '../../src/protocol/messages/generated/find-coordinator.js';
import { startTestCluster, type TestCluster } from '../../src/testkit/cluster.js';
import { startTestZooKeeper, type TestZooKeeper } from '../../src/testkit/zookeeper.js';
import { RawClient } from '../broker/support/raw-client.js';
import { killAndRestart, sleep, waitFor, waitForFullIsr } from './support.js';

const SESSION_MS = 4000;
const INTERNAL_PARTITIONS = 3;
const TOPIC = 'cg-failover';
const PARTITIONS = 4;

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
      'offsets.topic.num.partitions': INTERNAL_PARTITIONS,
      'group.initial.rebalance.delay.ms': 0,
      'group.consumer.heartbeat.interval.ms': 500,
    },
  });
});
after(async () => {
  await cluster?.close();
  await zk?.stop();
});

const say = (s: string) => process.stdout.write(`# ${s}\n`);
const live = () => cluster.nodeIds.filter((id) => cluster.broker(id).running);

/** `prefix-<n>` for the smallest n whose __consumer_offsets partition is `partition`. */
function idOn(prefix: string, partition: number): string {
  for (let n = 0; ; n++) {
    const id = `${prefix}-${n}`;
    if (coordinatorPartition(id, INTERNAL_PARTITIONS) === partition) return id;
  }
}

/** FindCoordinator asked of the live brokers until one names a live coordinator. */
async function coordinatorOf(groupId: string): Promise<number> {
  let node = -1;
  await waitFor(`a coordinator for ${groupId}`, async () => {
    for (const id of live()) {
      const c = await RawClient.connect(cluster.broker(id).port!).catch(() => null);
      if (c === null) continue;
      try {
        const r = await c.request(
          findCoordinatorApi,
          3,
          { key: groupId, keyType: 0, coordinatorKeys: [] },
          10_000,
        );
        if (r.errorCode === ErrorCode.NONE && cluster.broker(r.nodeId).running) {
          node = r.nodeId;
          return true;
        }
      } catch {
        // another broker
      } finally {
        c.close();
      }
    }
    return false;
  });
  return node;
}

/** ConsumerGroupDescribe answered by broker `node` itself. */
async function describeOn(
  node: number,
  groupIds: string[],
): Promise<ConsumerGroupDescribeResponse['groups']> {
  const c = await RawClient.connect(cluster.broker(node).port!);
  try {
    const r = await c.request(
      consumerGroupDescribeApi,
      0,
      { groupIds, includeAuthorizedOperations: false },
      10_000,
    );
    return r.groups;
  } finally {
    c.close();
  }
}

/** What the members of all groups did: per group and partition, processings and acknowledged commits. */
class Ledger {
  readonly processed = new Map<string, Array<{ who: string; at: number }>>();
  readonly commits = new Map<string, Array<{ offset: bigint; at: number }>>();
  readonly count = new Map<string, number>();
  /** Assignment changes as the members saw them (diagnostics). */
  readonly events: string[] = [];

  event(who: string, what: string): void {
    this.events.push(`${Date.now()} ${who} ${what}`);
  }

  seen(group: string, who: string, partition: number, offset: bigint, at = Date.now()): void {
    const k = `${group}/${partition}/${offset}`;
    const list = this.processed.get(k) ?? [];
    list.push({ who, at });
    this.processed.set(k, list);
    this.count.set(who, (this.count.get(who) ?? 0) + 1);
  }

  committed(group: string, partition: number, offset: bigint, at = Date.now()): void {
    const k = `${group}/${partition}`;
    const list = this.commits.get(k) ?? [];
    list.push({ offset, at });
    this.commits.set(k, list);
  }

  committedBefore(group: string, partition: number, t: number): bigint {
    let best = -1n;
    for (const c of this.commits.get(`${group}/${partition}`) ?? [])
      if (c.at < t && c.offset > best) best = c.offset;
    return best;
  }

  commitCount(group: string): number {
    let n = 0;
    for (const [k, list] of this.commits) if (k.startsWith(`${group}/`)) n += list.length;
    return n;
  }
}

interface Member {
  readonly who: string;
  stop(): Promise<void>;
}

/** Our consumer with groupProtocol 'consumer': polls, commits what it processed. */
function ourMember(who: string, group: string, ledger: Ledger): Member & { consumer: Consumer } {
  const consumer = new Consumer({
    bootstrapServers: cluster.bootstrap(),
    groupId: group,
    groupProtocol: 'consumer',
    enableAutoCommit: false,
    autoOffsetReset: 'earliest',
    requestTimeoutMs: 10_000,
    metadataMaxAgeMs: 5000,
    clientId: who,
  });
  let stop = false;
  consumer.subscribe([TOPIC], {
    onPartitionsRevoked: async (tps) => {
      ledger.event(who, `revoked ${tps.map((t) => t.partition)}`);
      await consumer.commitSync().catch(() => {});
    },
    onPartitionsAssigned: (tps) => ledger.event(who, `assigned ${tps.map((t) => t.partition)}`),
    onPartitionsLost: (tps) => ledger.event(who, `lost ${tps.map((t) => t.partition)}`),
  });
  const loop = (async () => {
    while (!stop) {
      let records: Awaited<ReturnType<typeof consumer.poll>>;
      try {
        records = await consumer.poll(200);
      } catch {
        await sleep(100);
        continue;
      }
      if (records.length === 0) continue;
      const last = new Map<number, bigint>();
      for (const r of records) {
        ledger.seen(group, who, r.partition, r.offset);
        last.set(r.partition, r.offset + 1n);
      }
      const offsets = [...last].map(([partition, offset]) => ({ topic: TOPIC, partition, offset }));
      try {
        await consumer.commitSync(offsets, { timeoutMs: 15_000 });
        for (const o of offsets) ledger.committed(group, o.partition, o.offset);
      } catch {
        // Not committed: may be consumed again (allowed).
      }
    }
  })();
  return {
    who,
    consumer,
    async stop() {
      stop = true;
      await loop;
      await consumer.close();
    },
  };
}

/** A kafkajs member (classic protocol) of a consumer group: commits each batch it processed. */
function kafkajsMember(who: string, group: string, ledger: Ledger): Member {
  const kafka = new Kafka({
    clientId: who,
    brokers: live().map((id) => `127.0.0.1:${cluster.broker(id).port}`),
    logLevel: logLevel.NOTHING,
    requestTimeout: 10_000,
    retry: { retries: 20, initialRetryTime: 300, maxRetryTime: 3000 },
  });
  const c = kafka.consumer({
    groupId: group,
    sessionTimeout: 15_000,
    heartbeatInterval: 1000,
    metadataMaxAge: 5000,
  });
  c.on(c.events.GROUP_JOIN, (e) =>
    ledger.event(who, `joined generation? ${JSON.stringify(e.payload.memberAssignment)}`),
  );
  const started = (async () => {
    await c.connect();
    await c.subscribe({ topic: TOPIC, fromBeginning: true });
    await c.run({
      autoCommit: false,
      eachBatch: async ({ batch, heartbeat, resolveOffset }) => {
        if (batch.messages.length === 0) return;
        for (const m of batch.messages) ledger.seen(group, who, batch.partition, BigInt(m.offset));
        const last = batch.messages.at(-1)!.offset;
        const next = BigInt(last) + 1n;
        await c.commitOffsets([{ topic: TOPIC, partition: batch.partition, offset: String(next) }]);
        ledger.committed(group, batch.partition, next);
        // Committed: kafkajs must not deliver the batch again if the heartbeat fails.
        resolveOffset(last);
        await heartbeat();
      },
    });
  })();
  return {
    who,
    async stop() {
      await started.catch(() => {});
      await c.disconnect();
    },
  };
}

test('consumer-protocol groups (ours; ours with a classic kafkajs member) go on through kill -9 of their coordinator’s broker; state replayed, nothing committed lost', {
  timeout: 600_000,
}, async () => {
  const admin = new Admin({ bootstrapServers: cluster.bootstrap(), requestTimeoutMs: 10_000 });
  await admin.createTopics([
    { name: TOPIC, numPartitions: PARTITIONS, replicationFactor: 3, configs: { 'min.insync.replicas': '2' } },
  ]);
  await waitForFullIsr(cluster, [TOPIC]);
  const slot = coordinatorPartition('cgf-ours', INTERNAL_PARTITIONS);
  const groups = {
    ours: idOn('cgf-ours', slot),
    mixed: idOn('cgf-mixed', slot),
  };
  const ledger = new Ledger();
  let killedAt = 0;
  const producer = new Producer({
    bootstrapServers: cluster.bootstrap(),
    acks: 'all',
    requestTimeoutMs: 10_000,
  });
  const acked: number[] = [];
  let sending = true;
  let sent = 0;
  const feeder = (async () => {
    while (sending) {
      for (let k = 0; k < PARTITIONS; k++, sent++) {
        const i = sent;
        producer.send({ topic: TOPIC, partition: i % PARTITIONS, value: `r${i}` }).then(
          () => acked.push(i),
          () => {},
        );
      }
      await sleep(100);
    }
  })();
  const ours = [ourMember('ours-1', groups.ours, ledger), ourMember('ours-2', groups.ours, ledger)];
  const members: Member[] = [
    ...ours,
    ourMember('mixed-ours', groups.mixed, ledger),
    kafkajsMember('mixed-kafkajs', groups.mixed, ledger),
  ];
  const progress = () =>
    `sent ${sent}, acked ${acked.length}; consumed ${JSON.stringify([...ledger.count])}; commits ${Object.values(groups).map((g) => ledger.commitCount(g))}`;
  try {
    await waitFor(
      'every member consuming and every group committing',
      () =>
        members.every((m) => (ledger.count.get(m.who) ?? 0) > 0) &&
        Object.values(groups).every((g) => ledger.commitCount(g) >= 5),
      180_000,
      progress,
    );
    const coordinator = await coordinatorOf(groups.ours);
    for (const g of Object.values(groups)) assert.equal(await coordinatorOf(g), coordinator);
    // Settled: every group Stable (the mixed one with its classic member).
    let before: ConsumerGroupDescribeResponse['groups'] = [];
    await waitFor(
      'every group Stable on its coordinator',
      async () => {
        before = await describeOn(coordinator, Object.values(groups));
        return before.every((g) => g.errorCode === 0 && g.groupState === 'Stable');
      },
      120_000,
      () => JSON.stringify(before.map((g) => [g.groupId, g.errorCode, g.groupState, g.members.length])),
    );
    say(
      `coordinator broker ${coordinator}: ${before.map((g) => `${g.groupId} epoch ${g.groupEpoch}, ${g.members.length} members`).join('; ')}`,
    );

    killedAt = Date.now();
    const commitsAtKill = new Map(Object.values(groups).map((g) => [g, ledger.commitCount(g)]));
    await killAndRestart(cluster, coordinator, SESSION_MS, async () => {
      let successor = -1;
      let after: ConsumerGroupDescribeResponse['groups'] = [];
      // FindCoordinator may name the new leader a moment before it has loaded the partition.
      await waitFor('the new coordinator to answer for the groups', async () => {
        successor = await coordinatorOf(groups.ours);
        after = await describeOn(successor, Object.values(groups)).catch(() => []);
        return after.length > 0 && after.every((g) => g.errorCode === 0);
      });
      assert.notEqual(successor, coordinator);
      // The successor replayed the groups: the same members at the same epochs.
      for (const g of before) {
        const a = after.find((x) => x.groupId === g.groupId)!;
        assert.equal(a.errorCode, 0, `${g.groupId} on broker ${successor}`);
        const epochs = (d: typeof g) => new Map(d.members.map((m) => [m.memberId, m.memberEpoch]));
        for (const [id, epoch] of epochs(g))
          assert.ok((epochs(a).get(id) ?? -1) >= epoch, `${g.groupId}: member ${id} kept its epoch ${epoch}`);
        assert.ok(a.groupEpoch >= g.groupEpoch);
      }
      say(
        `broker ${successor} coordinates: ${after.map((g) => `${g.groupId} epoch ${g.groupEpoch} ${g.groupState}`).join('; ')}`,
      );
      // No commit acknowledged before the kill is lost.
      for (const g of Object.values(groups)) {
        let now: Array<{ partition: number; offset: bigint }> = [];
        await waitFor(`the committed offsets of ${g} from broker ${successor}`, async () => {
          try {
            now = (await admin.listConsumerGroupOffsets(g)).filter((o) => o.topic === TOPIC);
            return true;
          } catch {
            return false;
          }
        });
        for (let p = 0; p < PARTITIONS; p++) {
          const was = ledger.committedBefore(g, p, killedAt);
          const is = now.find((o) => o.partition === p)?.offset ?? -1n;
          assert.ok(is >= was, `${g} partition ${p}: committed ${is} ≥ ${was} acknowledged before the kill`);
        }
      }
      // The members found the new coordinator and go on committing there.
      await waitFor(
        'commits acknowledged by the new coordinator in every group',
        () => Object.values(groups).every((g) => ledger.commitCount(g) >= commitsAtKill.get(g)! + 5),
        120_000,
        progress,
      );
      await waitFor('every group Stable on the new coordinator', async () => {
        const d = await describeOn(successor, Object.values(groups));
        return d.every((g) => g.errorCode === 0 && g.groupState === 'Stable');
      });
    });
    sending = false;
    await feeder;
    await producer.flush();
    const ends = await admin.listOffsets(
      Array.from({ length: PARTITIONS }, (_, partition) => ({
        topic: TOPIC,
        partition,
        spec: 'latest' as const,
      })),
    );
    const total = ends.reduce((n, e) => n + Number(e.offset), 0);
    assert.ok(total >= acked.length, `${total} records in the log, ${acked.length} acknowledged`);
    const missing = (g: string) => {
      const out: string[] = [];
      for (const e of ends)
        for (let o = 0n; o < e.offset; o++)
          if (!ledger.processed.has(`${g}/${e.partition}/${o}`)) out.push(`${e.partition}/${o}`);
      return out;
    };
    await waitFor(
      `every group to consume all ${total} records`,
      () => Object.values(groups).every((g) => missing(g).length === 0),
      180_000,
      () => `${progress()}; missing ${Object.values(groups).map((g) => `${g}: ${missing(g).slice(0, 5)}`)}`,
    );
  } finally {
    sending = false;
    await feeder.catch(() => {});
    await Promise.all(members.map((m) => m.stop().catch(() => {})));
    await producer.close().catch(() => {});
    await admin.close();
  }
  // A record consumed twice was not committed before its second consumption.
  let twice = 0;
  const twiceBy = new Map<string, number>();
  for (const [k, list] of ledger.processed) {
    const [group, partition, offset] = k.split('/') as [string, string, string];
    for (const later of list.slice(1)) {
      twice++;
      twiceBy.set(later.who, (twiceBy.get(later.who) ?? 0) + 1);
      assert.ok(
        ledger.committedBefore(group, Number(partition), later.at) <= BigInt(offset),
        `${k} consumed again by ${later.who} after a commit past it (kill at ${killedAt}): ` +
          `consumed ${JSON.stringify(list)}, commits ${JSON.stringify(
            (ledger.commits.get(`${group}/${partition}`) ?? []).filter((c) => c.at <= later.at + 2000),
            (_k, v) => (typeof v === 'bigint' ? String(v) : v),
          ).slice(0, 3000)}\nevents:\n${ledger.events.join('\n').slice(-4000)}`,
      );
    }
  }
  say(
    `${sent} records sent, all consumed by each group; ${twice} consumed twice (uncommitted at the time): ${JSON.stringify([...twiceBy])}`,
  );
  if (twice > 0) say(`assignment changes (kill at ${killedAt}):\n# ${ledger.events.join('\n# ')}`);
});
