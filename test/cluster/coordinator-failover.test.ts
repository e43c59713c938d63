// Coordinators move with leadership (three broker processes, this file's own ZooKeeper, 4 s
// sessions). `__consumer_offsets` and `__transaction_state` are replicated like any topic; kill -9
// of the broker leading a partition of theirs makes another broker leader, which loads it and
// coordinates from then on; when the restarted broker takes the leadership back (preferred
// election), the interim coordinator unloads and answers NOT_COORDINATOR:
// - consumer groups of kafkajs, confluent-kafka-python (librdkafka) and our client, committing
//   as they go, keep consuming through both moves: no offset acknowledged before a move is lost,
//   the groups are Stable with their member on the new coordinator, and every record is
//   consumed at least once;
// - transactional copy loops (read_committed consumer → transactional producer with
//   sendOffsetsToTransaction), ours and confluent-kafka-python's, through kill -9 of the
//   transaction coordinator's broker, the move back, and kill -9 of a broker leading the output
//   topic: restarted as a Kafka application restarts them, they end with every input record
//   exactly once in the output (read_committed), in order per partition. A transaction left
//   open on the killed coordinator is aborted by its successor at transaction.timeout.ms;
// - without the cluster: the error codes of a coordinator write cut by a lost leadership, and a
//   marker job of an earlier load giving way to the next load's.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { Kafka, logLevel } from 'kafkajs';
import { InMemoryPartitionWriter, MockClock } from '../../src/broker/coordinator/runtime/index.js';
import { TransactionCoordinator } from '../../src/broker/coordinator/txn/txn-coordinator.js';
import { Admin, Consumer, Producer, TransactionAbortableError } from '../../src/client/index.js';
import { coordinatorPartition } from '../../src/protocol/coordinator-partition.js';
import { ErrorCode, KafkaError } from '../../src/protocol/errors.js';
import { describeGroupsApi } from '../../src/protocol/messages/generated/describe-groups.js';
import { describeTransactionsApi } from '../../src/protocol/messages/generated/describe-transactions.js';
import { findCoordinatorApi } from '../../src/protocol/messages/generated/find-coordinator.js';
import { startTestCluster, type TestCluster } from '../../src/testkit/cluster.js';
import { RawClient } from '../broker/support/raw-client.js';
import { kcatRead, Proc } from '../broker/txn/interop-support.js';
import { RecordingMarkers, settle, txnHarness } from '../broker/txn/txn-harness.js';
import { killAndRestart, sleep, waitFor, waitForFullIsr } from './support.js';

const SESSION_MS = 4000;
/** Partitions of both internal topics: few, so that picking ids that share one is quick. */
const INTERNAL_PARTITIONS = 3;

let cluster: TestCluster;

before(async () => {
  cluster = await startTestCluster({
    brokers: 3,
    sessionTimeoutMs: SESSION_MS,
    overrides: {
      'min.insync.replicas': 2,
      'auto.leader.rebalance.enable': false,
      'auto.create.topics.enable': false,
      'replica.fetch.backoff.ms': 200,
      'offsets.topic.num.partitions': INTERNAL_PARTITIONS,
      'transaction.state.log.num.partitions': INTERNAL_PARTITIONS,
      'group.initial.rebalance.delay.ms': 0,
      'transaction.abort.timed.out.transaction.cleanup.interval.ms': 1000,
    },
  });
});
after(async () => {
  await cluster?.close();
});

const say = (s: string) => process.stdout.write(`# ${s}\n`);
const live = () => cluster.nodeIds.filter((id) => cluster.broker(id).running);
const bootstrapAll = () => cluster.nodeIds.map((id) => `127.0.0.1:${cluster.broker(id).port}`);

/** `prefix-<n>` for the smallest n whose internal-topic partition is `partition`. */
function idOn(prefix: string, partition: number): string {
  for (let n = 0; ; n++) {
    const id = `${prefix}-${n}`;
    if (coordinatorPartition(id, INTERNAL_PARTITIONS) === partition) return id;
  }
}

async function createTopics(names: readonly string[], partitions = 3): Promise<void> {
  const admin = new Admin({ bootstrapServers: cluster.bootstrap() });
  try {
    await admin.createTopics(
      names.map((name) => ({
        name,
        numPartitions: partitions,
        replicationFactor: 3,
        configs: { 'min.insync.replicas': '2' },
      })),
    );
  } finally {
    await admin.close();
  }
  await waitForFullIsr(cluster, names);
}

/** FindCoordinator (keyType 0 group, 1 transaction) asked of the live brokers until one answers. */
async function coordinatorOf(key: string, keyType: 0 | 1): Promise<number> {
  let node = -1;
  await waitFor(`a coordinator for ${key}`, async () => {
    for (const id of live()) {
      const c = await RawClient.connect(cluster.broker(id).port!).catch(() => null);
      if (c === null) continue;
      try {
        const r = await c.request(findCoordinatorApi, 3, { key, keyType, coordinatorKeys: [] }, 10_000);
        if (r.errorCode === ErrorCode.NONE && cluster.broker(r.nodeId).running) {
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
}

/** The leader of `topic`-`partition` as a live broker sees it. */
async function leaderOf(topic: string, partition: number): Promise<number> {
  const views = await waitForFullIsr(cluster, [topic]);
  return views.values().next().value!.topics.get(topic)![partition]!.leader;
}

/**
 * Preferred election of `topic`-`partition`, whose preferred replica must be broker `to`: waits
 * for the partition's full ISR first, then until every live broker sees `to` leading.
 */
async function moveLeadershipTo(topic: string, partition: number, to: number): Promise<void> {
  const views = await waitForFullIsr(cluster, [topic]);
  const state = views.values().next().value!.topics.get(topic)![partition]!;
  assert.equal(state.replicas[0], to, `broker ${to} is the preferred replica of ${topic}-${partition}`);
  const admin = new Admin({ bootstrapServers: cluster.bootstrap(), requestTimeoutMs: 10_000 });
  try {
    const [r] = await admin.electLeaders('preferred', [{ topic, partition }]);
    assert.ok(
      r!.errorCode === ErrorCode.NONE || r!.errorCode === ErrorCode.ELECTION_NOT_NEEDED,
      `preferred election of ${topic}-${partition}: ${r!.errorCode} ${r!.errorMessage}`,
    );
  } finally {
    await admin.close();
  }
  await waitForFullIsr(cluster, [topic]);
  await waitFor(`broker ${to} to lead ${topic}-${partition} again`, async () => {
    const v = await waitForFullIsr(cluster, [topic]);
    return [...v.values()].every((view) => view.topics.get(topic)![partition]!.leader === to);
  });
}

/**
 * The error code broker `node` itself answers for `key` (DescribeGroups for a group,
 * DescribeTransactions for a transactional id): NONE where it coordinates, NOT_COORDINATOR elsewhere.
 */
async function askDirectly(node: number, key: string, keyType: 0 | 1): Promise<number> {
  const c = await RawClient.connect(cluster.broker(node).port!);
  try {
    if (keyType === 0) {
      const r = await c.request(describeGroupsApi, 0, { groups: [key], includeAuthorizedOperations: false });
      return r.groups[0]!.errorCode;
    }
    const r = await c.request(describeTransactionsApi, 0, { transactionalIds: [key] });
    return r.transactionStates[0]!.errorCode;
  } finally {
    c.close();
  }
}

/**
 * Our idempotent producer writing `<prefix>-<i>` round-robin over 3 partitions, `perTick` records
 * every 50 ms, until stopped; records that fail are retried by the producer itself (acks=all).
 */
function startFeeder(topic: string, prefix: string, perTick: number) {
  const producer = new Producer({
    bootstrapServers: cluster.bootstrap(),
    acks: 'all',
    requestTimeoutMs: 10_000,
    metadataMaxAgeMs: 5000,
  });
  const acked: string[] = [];
  const failed: string[] = [];
  let stop = false;
  let i = 0;
  const loop = (async () => {
    while (!stop) {
      for (let k = 0; k < perTick; k++, i++) {
        const value = `${prefix}-${i}`;
        producer.send({ topic, partition: i % 3, value }).then(
          () => acked.push(value),
          (e: unknown) => failed.push(`${value}: ${e}`),
        );
      }
      await sleep(50);
    }
  })();
  return {
    acked,
    get sent() {
      return i;
    },
    async stop(): Promise<void> {
      stop = true;
      await loop;
      await producer.flush();
      await producer.close();
      assert.deepEqual(failed, [], 'every record of the feeder acknowledged');
    },
  };
}

/** Every partition's end offset of a non-transactional topic, from what kcat reads. */
async function endOffsets(topic: string): Promise<bigint[]> {
  const ends = [0n, 0n, 0n];
  for (const r of await kcatRead(cluster.bootstrap(), topic, 'read_uncommitted'))
    ends[r.partition] = BigInt(Math.max(Number(ends[r.partition]), r.offset + 1));
  return ends;
}

async function committedOffsets(admin: Admin, group: string, topic: string): Promise<bigint[] | null> {
  try {
    const got = (await admin.listConsumerGroupOffsets(group)).filter((o) => o.topic === topic);
    const out = [-1n, -1n, -1n];
    for (const o of got) out[o.partition] = o.offset;
    return out;
  } catch {
    return null;
  }
}

// ---- the runtime's side, without the cluster ----------------------------------------------------

test('a coordinator write that fails because the leadership was lost answers NOT_COORDINATOR; one short of replicas COORDINATOR_NOT_AVAILABLE', async () => {
  const h = await txnHarness();
  h.writer.failNextAppend(new KafkaError(ErrorCode.NOT_LEADER_OR_FOLLOWER, 'leadership lost'));
  assert.equal((await h.tc.initProducerId('t', 60_000, null)).errorCode, ErrorCode.NOT_COORDINATOR);
  await settle(); // the shard is reloaded from the log (the partition is still led here)
  h.writer.failNextAppend(new KafkaError(ErrorCode.NOT_ENOUGH_REPLICAS, 'ISR too small'));
  assert.equal((await h.tc.initProducerId('t', 60_000, null)).errorCode, ErrorCode.COORDINATOR_NOT_AVAILABLE);
  await settle();
  assert.equal((await h.tc.initProducerId('t', 60_000, null)).errorCode, ErrorCode.NONE);
});

test('leadership lost and won back during a commit: the markers are written again with the new coordinator epoch, by the new load only', async () => {
  const writer = new InMemoryPartitionWriter();
  const markers = new RecordingMarkers();
  let epoch = 4;
  const tc = new TransactionCoordinator({
    config: { numPartitions: 1 },
    writer,
    loader: writer,
    markers,
    clock: new MockClock(),
    producerIds: async () => 77n,
    coordinatorEpochOf: () => epoch,
  });
  try {
    await tc.onElection(0);
    const { producerId, producerEpoch } = await tc.initProducerId('t', 60_000, null);
    await tc.addPartitions('t', producerId, producerEpoch, [{ topic: 'out', partitions: [0] }]);
    markers.hold();
    void tc.endTxn('t', producerId, producerEpoch, true);
    await settle();
    tc.onResignation(0);
    epoch = 6;
    await tc.onElection(0);
    markers.release();
    await settle();
    await tc.whenCompleted('t');
    await settle();
    assert.equal((await tc.describe(['t']))[0]!.state, 'CompleteCommit');
    // The earlier load's write was already under way (it may land: a repeated marker is
    // harmless); the new load wrote its own with its epoch and completed the transaction.
    assert.ok(markers.written.some((w) => w.marker.coordinatorEpoch === 6 && w.marker.commit));
    assert.equal(
      writer.entries(0).length,
      4,
      'Empty, Ongoing, PrepareCommit, CompleteCommit: completed once',
    );
  } finally {
    tc.close();
  }
});

// ---- consumer groups ---------------------------------------------------------------------------

/** What a group member reports: records consumed and commits the coordinator acknowledged. */
interface GroupMember {
  readonly name: string;
  readonly group: string;
  /** `partition/offset` of every record consumed. */
  readonly seen: Set<string>;
  readonly acks: { partition: number; offset: bigint; at: number }[];
  stop(): Promise<void>;
  detail(): string;
}

/** Our consumer: polls, and commits what it consumed until a commit is acknowledged. */
function ourMember(group: string, topic: string): GroupMember {
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
  const seen = new Set<string>();
  const acks: GroupMember['acks'] = [];
  const errors: string[] = [];
  const pending = new Map<number, bigint>();
  let stop = false;
  consumer.subscribe([topic]);
  const loop = (async () => {
    while (!stop) {
      for (const r of await consumer.poll(200)) {
        seen.add(`${r.partition}/${r.offset}`);
        pending.set(r.partition, r.offset + 1n);
      }
      if (pending.size === 0) continue;
      const list = [...pending].map(([partition, offset]) => ({ topic, partition, offset }));
      try {
        await consumer.commitSync(list, { timeoutMs: 15_000 });
        const at = Date.now();
        for (const c of list) {
          acks.push({ partition: c.partition, offset: c.offset, at });
          if (pending.get(c.partition) === c.offset) pending.delete(c.partition);
        }
      } catch (e) {
        // During the failover: the next round commits the same (or later) positions.
        errors.push(String(e));
      }
    }
  })();
  return {
    name: 'ours',
    group,
    seen,
    acks,
    async stop() {
      stop = true;
      await loop;
      await consumer.close();
    },
    detail: () => `commit errors: ${errors.slice(-5).join('; ')}`,
  };
}

/** A kafkajs consumer (in this process): commits each batch; a failed commit re-delivers it. */
function kafkajsMember(group: string, topic: string): GroupMember {
  const kafka = new Kafka({
    clientId: 'failover-kafkajs',
    brokers: bootstrapAll(),
    logLevel: logLevel.NOTHING,
    requestTimeout: 10_000,
    retry: { retries: 10, initialRetryTime: 300, maxRetryTime: 5000 },
  });
  const consumer = kafka.consumer({
    groupId: group,
    sessionTimeout: 15_000,
    heartbeatInterval: 1000,
    rebalanceTimeout: 30_000,
    metadataMaxAge: 5000,
  });
  const seen = new Set<string>();
  const acks: GroupMember['acks'] = [];
  const events: string[] = [];
  consumer.on(consumer.events.CRASH, (e) => events.push(`crash: ${e.payload.error}`));
  const started = (async () => {
    await consumer.connect();
    await consumer.subscribe({ topic, fromBeginning: true });
    await consumer.run({
      autoCommit: false,
      eachBatch: async ({ batch, heartbeat }) => {
        const last = batch.messages.at(-1);
        if (last === undefined) return;
        for (const m of batch.messages) seen.add(`${batch.partition}/${m.offset}`);
        const offset = BigInt(last.offset) + 1n;
        // A failure throws: kafkajs delivers the batch again (at least once) and retries.
        await consumer.commitOffsets([{ topic, partition: batch.partition, offset: String(offset) }]);
        acks.push({ partition: batch.partition, offset, at: Date.now() });
        await heartbeat();
      },
    });
  })();
  return {
    name: 'kafkajs',
    group,
    seen,
    acks,
    async stop() {
      await started;
      await consumer.disconnect();
    },
    detail: () => events.slice(-5).join('; '),
  };
}

/** confluent-kafka-python (librdkafka 2.0.2): consumes, commits synchronously what it consumed. */
const CK_MEMBER = `
import sys
from confluent_kafka import Consumer, KafkaException, TopicPartition
bootstrap, group, topic = sys.argv[1:4]
c = Consumer({'bootstrap.servers': bootstrap, 'group.id': group, 'enable.auto.commit': False,
              'auto.offset.reset': 'earliest', 'session.timeout.ms': 15000,
              'heartbeat.interval.ms': 1000, 'topic.metadata.refresh.interval.ms': 2000})
c.subscribe([topic])
pending = {}
while True:
    for m in c.consume(num_messages=200, timeout=0.2):
        if m.error() is not None:
            continue
        print('m %d %d' % (m.partition(), m.offset()))
        pending[m.partition()] = m.offset() + 1
    if not pending:
        continue
    try:
        done = c.commit(offsets=[TopicPartition(topic, p, o) for p, o in pending.items()], asynchronous=False)
        for tp in done:
            if tp.error is None:
                print('c %d %d' % (tp.partition, tp.offset))
                if pending.get(tp.partition) == tp.offset:
                    del pending[tp.partition]
            else:
                print('e %d %s' % (tp.partition, tp.error))
    except KafkaException as e:
        print('E %s' % e)
`;

function ckMember(group: string, topic: string): GroupMember {
  const proc = Proc.python(CK_MEMBER, [cluster.bootstrap(), group, topic]);
  const seen = new Set<string>();
  const acks: GroupMember['acks'] = [];
  let read = 0;
  // Parses new output lines as they come (the commit's time is when the test learns of it).
  const timer = setInterval(() => {
    const at = Date.now();
    for (; read < proc.lines.length; read++) {
      const [kind, p, o] = proc.lines[read]!.split(' ');
      if (kind === 'm') seen.add(`${p}/${o}`);
      else if (kind === 'c') acks.push({ partition: Number(p), offset: BigInt(o!), at });
    }
  }, 50);
  return {
    name: 'confluent-kafka-python',
    group,
    seen,
    acks,
    async stop() {
      await proc.kill('SIGTERM');
      clearInterval(timer);
    },
    detail: () =>
      `${proc.lines
        .filter((l) => l.startsWith('e') || l.startsWith('E'))
        .slice(-5)
        .join('; ')}\n${proc.stderr.slice(-2000)}`,
  };
}

/** The highest offset per partition whose commit was acknowledged before `t`. */
function ackedBefore(m: GroupMember, t: number): bigint[] {
  const out = [-1n, -1n, -1n];
  for (const a of m.acks) if (a.at < t && a.offset > out[a.partition]!) out[a.partition] = a.offset;
  return out;
}

test('consumer groups (kafkajs, confluent-kafka-python, ours) go on through kill -9 of their coordinator’s broker and the leadership’s return; no acknowledged commit is lost', {
  timeout: 400_000,
}, async () => {
  const topic = 'grouped';
  await createTopics([topic]);
  const started = Date.now();
  // Three groups on one __consumer_offsets partition: one coordinator, one kill for all.
  const slot = coordinatorPartition('failover-ours', INTERNAL_PARTITIONS);
  const groups = {
    ours: idOn('failover-ours', slot),
    kafkajs: idOn('failover-kafkajs', slot),
    ck: idOn('failover-ck', slot),
  };
  const feeder = startFeeder(topic, 'g', 6);
  const admin = new Admin({ bootstrapServers: cluster.bootstrap(), requestTimeoutMs: 10_000 });
  const members = [
    ourMember(groups.ours, topic),
    kafkajsMember(groups.kafkajs, topic),
    ckMember(groups.ck, topic),
  ];
  const progress = () =>
    members
      .map((m) => `${m.name}: ${m.seen.size} consumed, ${m.acks.length} commits ${m.detail()}`)
      .join('\n');
  let feederStopped = false;
  try {
    await waitFor(
      'every group consuming and committing',
      () => members.every((m) => m.acks.length >= 5),
      120_000,
      progress,
    );
    const coordinator = await coordinatorOf(groups.ours, 0);
    for (const g of Object.values(groups)) assert.equal(await coordinatorOf(g, 0), coordinator);
    say(`groups ${Object.values(groups)}: coordinator broker ${coordinator}`);

    /** After a move: nothing acknowledged before it is lost, and the groups go on committing. */
    const checkAfterMove = async (what: string, movedAt: number, acksAtMove: Map<string, number>) => {
      const successor = await coordinatorOf(groups.ours, 0);
      for (const m of members) {
        let now: bigint[] | null = null;
        await waitFor(`the committed offsets of ${m.group} from broker ${successor}`, async () => {
          now = await committedOffsets(admin, m.group, topic);
          return now !== null;
        });
        const was = ackedBefore(m, movedAt);
        for (let p = 0; p < 3; p++)
          assert.ok(
            now![p]! >= was[p]!,
            `${m.name} partition ${p}: committed ${now![p]} ≥ ${was[p]} acknowledged before ${what}`,
          );
        say(`${m.name}: acknowledged before ${what} ${was}, committed on broker ${successor} ${now}`);
      }
      await waitFor(
        `commits acknowledged by the new coordinator in every group after ${what}`,
        () => members.every((m) => m.acks.length >= acksAtMove.get(m.name)! + 5),
        120_000,
        progress,
      );
      // Each group is Stable with its one member on the new coordinator (kept or rejoined).
      await waitFor('every group Stable with its member', async () => {
        try {
          const d = await admin.describeGroups(Object.values(groups));
          return d.every((g) => g.state === 'Stable' && g.members.length === 1);
        } catch {
          return false;
        }
      });
    };
    const acksNow = () => new Map(members.map((m) => [m.name, m.acks.length]));

    // 1. kill -9 of the coordinator's broker: the groups go on with the new leader as coordinator.
    const killedAt = Date.now();
    const acksAtKill = acksNow();
    await killAndRestart(cluster, coordinator, SESSION_MS, async () => {
      assert.notEqual(await coordinatorOf(groups.ours, 0), coordinator);
      await checkAfterMove('the kill', killedAt, acksAtKill);
    });

    // 2. The restarted broker gets its leadership back (preferred election) while the interim
    //    coordinator lives on: that one unloads and answers NOT_COORDINATOR, the groups follow.
    const interim = await coordinatorOf(groups.ours, 0);
    const movedAt = Date.now();
    const acksAtMove = acksNow();
    await moveLeadershipTo('__consumer_offsets', slot, coordinator);
    assert.equal(await coordinatorOf(groups.ours, 0), coordinator);
    await waitFor(`broker ${interim} to answer NOT_COORDINATOR for the groups`, async () => {
      const codes = await Promise.all(Object.values(groups).map((g) => askDirectly(interim, g, 0)));
      return codes.every((c) => c === ErrorCode.NOT_COORDINATOR);
    });
    await checkAfterMove(`the move back to broker ${coordinator}`, movedAt, acksAtMove);
    await feeder.stop();
    feederStopped = true;
    const ends = await endOffsets(topic);
    assert.equal(
      ends.reduce((a, b) => a + b, 0n),
      BigInt(feeder.acked.length),
    );
    // Everything consumed and committed, on the coordinator of now (the restarted broker follows).
    for (const m of members) {
      await waitFor(
        `${m.name} to commit the end of every partition (${ends})`,
        async () => {
          const c = await committedOffsets(admin, m.group, topic);
          return c?.every((o, p) => o === ends[p]) === true;
        },
        120_000,
        progress,
      );
      for (let p = 0; p < 3; p++)
        for (let o = 0n; o < ends[p]!; o++)
          assert.ok(m.seen.has(`${p}/${o}`), `${m.name} consumed ${p}/${o} at least once`);
    }
    say(`${feeder.acked.length} records consumed by each group; ${Date.now() - started} ms`);
  } finally {
    if (!feederStopped) await feeder.stop().catch(() => {});
    await Promise.all(members.map((m) => m.stop().catch(() => {})));
    await admin.close();
  }
  await waitForFullIsr(cluster, [topic, '__consumer_offsets']);
});

// ---- transactional copy loops -------------------------------------------------------------------

interface CopyLoop {
  readonly name: string;
  readonly group: string;
  readonly output: string;
  /** Transactions committed so far. */
  commits(): number;
  /** Failures the loop recovered from (a transaction, an init or a rewind that failed). */
  failures(): number;
  stop(): Promise<void>;
  detail(): string;
}

/**
 * Our copy loop, written as a Kafka application is: read_committed consumer, one transaction per
 * poll (records to the same partition of `output`, offsets through the transaction). After a
 * failure: abort (an abortable error) or a new producer with the same transactional.id (a fatal
 * one, or an abort that fails), then back to the committed offsets.
 */
function ourCopyLoop(input: string, output: string, group: string, transactionalId: string): CopyLoop {
  const consumer = new Consumer({
    bootstrapServers: cluster.bootstrap(),
    groupId: group,
    enableAutoCommit: false,
    isolationLevel: 'read_committed',
    autoOffsetReset: 'earliest',
    maxPollRecords: 50,
    sessionTimeoutMs: 15_000,
    heartbeatIntervalMs: 1000,
    requestTimeoutMs: 10_000,
    metadataMaxAgeMs: 5000,
  });
  const newProducer = () =>
    new Producer({
      bootstrapServers: cluster.bootstrap(),
      transactionalId,
      transactionTimeoutMs: 60_000,
      requestTimeoutMs: 10_000,
      metadataMaxAgeMs: 5000,
      lingerMs: 5,
    });
  let producer = newProducer();
  let commits = 0;
  let stop = false;
  const errors: string[] = [];
  const init = async (): Promise<void> => {
    for (;;) {
      try {
        await producer.initTransactions();
        return;
      } catch (e) {
        // A coordinator moving: a new producer tries again (the same transactional.id).
        errors.push(`init: ${e}`);
        await producer.close({ timeoutMs: 0 }).catch(() => {});
        if (stop) return;
        await sleep(500);
        producer = newProducer();
      }
    }
  };
  /** Back to the committed offsets of the assigned partitions (RequireStable waits out a commit). */
  const rewind = async (): Promise<void> => {
    for (;;) {
      try {
        const tps = consumer.assignment();
        const committed = await consumer.committed(tps, { timeoutMs: 15_000 });
        tps.forEach((tp, i) => {
          const c = committed[i];
          if (c === null || c === undefined) consumer.seekToBeginning([tp]);
          else consumer.seek(tp, c.offset);
        });
        return;
      } catch (e) {
        errors.push(`rewind: ${e}`);
        if (stop) return;
        await sleep(500);
      }
    }
  };
  consumer.subscribe([input]);
  const loop = (async () => {
    await init();
    while (!stop) {
      const records = await consumer.poll(200);
      if (records.length === 0) continue;
      try {
        producer.beginTransaction();
        await Promise.all(
          records.map((r) => producer.send({ topic: output, partition: r.partition, value: r.value })),
        );
        const next = new Map<number, bigint>();
        for (const r of records) next.set(r.partition, r.offset + 1n);
        await producer.sendOffsetsToTransaction(
          [...next].map(([partition, offset]) => ({ topic: input, partition, offset })),
          consumer.groupMetadata(),
        );
        await producer.commitTransaction();
        commits++;
      } catch (e) {
        errors.push(String(e));
        let aborted = false;
        if (e instanceof TransactionAbortableError) {
          try {
            await producer.abortTransaction();
            aborted = true;
          } catch (e2) {
            errors.push(`abort: ${e2}`);
          }
        }
        if (!aborted) {
          await producer.close({ timeoutMs: 0 }).catch(() => {});
          producer = newProducer();
          await init();
        }
        await rewind();
      }
    }
  })();
  return {
    name: 'ours',
    group,
    output,
    commits: () => commits,
    failures: () => errors.length,
    async stop() {
      stop = true;
      await loop;
      await producer.close({ timeoutMs: 5000 }).catch(() => {});
      await consumer.close();
    },
    detail: () => errors.slice(-5).join('\n'),
  };
}

/** The same loop with confluent-kafka-python (librdkafka 2.0.2), as its documentation writes it. */
const CK_COPY = `
import sys, time
from confluent_kafka import Consumer, KafkaException, Producer, TopicPartition, OFFSET_BEGINNING
bootstrap, src, dst, group, tid = sys.argv[1:6]
c = Consumer({'bootstrap.servers': bootstrap, 'group.id': group, 'enable.auto.commit': False,
              'auto.offset.reset': 'earliest', 'isolation.level': 'read_committed',
              'topic.metadata.refresh.interval.ms': 2000})
c.assign([TopicPartition(src, p) for p in range(3)])

def new_producer():
    while True:
        p = Producer({'bootstrap.servers': bootstrap, 'transactional.id': tid,
                      'transaction.timeout.ms': 60000, 'linger.ms': 5,
                      'topic.metadata.refresh.interval.ms': 2000})
        try:
            p.init_transactions(30)
            return p
        except KafkaException as e:
            print('init-error %s' % e, flush=True)
            time.sleep(0.5)

def rewind():
    while True:
        try:
            for tp in c.committed([TopicPartition(src, p) for p in range(3)], 30):
                c.seek(TopicPartition(src, tp.partition, tp.offset if tp.offset >= 0 else OFFSET_BEGINNING))
            return
        except KafkaException as e:
            print('rewind-error %s' % e, flush=True)
            time.sleep(0.5)

p = new_producer()
print('ready', flush=True)
while True:
    msgs = [m for m in c.consume(num_messages=50, timeout=0.2) if m.error() is None]
    if not msgs:
        continue
    try:
        p.begin_transaction()
        for m in msgs:
            p.produce(dst, value=m.value(), partition=m.partition())
        p.send_offsets_to_transaction(c.position(c.assignment()), c.consumer_group_metadata(), 30)
        p.commit_transaction(30)
        print('committed %d' % len(msgs), flush=True)
    except KafkaException as e:
        err = e.args[0]
        print('error %s fatal=%s abortable=%s retriable=%s' % (err.str(), err.fatal(), err.txn_requires_abort(), err.retriable()), flush=True)
        aborted = False
        if err.txn_requires_abort():
            try:
                p.abort_transaction(30)
                aborted = True
            except KafkaException as e2:
                print('abort-error %s' % e2, flush=True)
        if not aborted:
            p = new_producer()
        rewind()
`;

function ckCopyLoop(input: string, output: string, group: string, transactionalId: string): CopyLoop {
  const proc = Proc.python(CK_COPY, [cluster.bootstrap(), input, output, group, transactionalId]);
  return {
    name: 'confluent-kafka-python',
    group,
    output,
    commits: () => proc.lines.filter((l) => l.startsWith('committed')).length,
    failures: () => proc.lines.filter((l) => /^(error|init-error|abort-error|rewind-error) /.test(l)).length,
    async stop() {
      await proc.kill('SIGKILL');
    },
    detail: () =>
      `${proc.lines
        .filter((l) => !l.startsWith('committed'))
        .slice(-8)
        .join('\n')}\n${proc.stderr.slice(-2000)}`,
  };
}

/** A transactional producer (librdkafka) that opens a transaction on `topic` and is never heard of again. */
const ZOMBIE = `
import sys, time
from confluent_kafka import Producer
bootstrap, topic, tid, timeout = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])
p = Producer({'bootstrap.servers': bootstrap, 'transactional.id': tid, 'transaction.timeout.ms': timeout})
p.init_transactions(30)
p.begin_transaction()
p.produce(topic, value=b'zombie', partition=0)
p.flush(30)
print('open', flush=True)
time.sleep(3600)
`;

async function describeTxn(
  transactionalId: string,
): Promise<{ state: string; producerEpoch: number } | null> {
  const node = await coordinatorOf(transactionalId, 1);
  const c = await RawClient.connect(cluster.broker(node).port!).catch(() => null);
  if (c === null) return null;
  try {
    const r = await c.request(describeTransactionsApi, 0, { transactionalIds: [transactionalId] }, 10_000);
    const s = r.transactionStates[0]!;
    return s.errorCode === ErrorCode.NONE
      ? { state: s.transactionState, producerEpoch: s.producerEpoch }
      : null;
  } catch {
    return null;
  } finally {
    c.close();
  }
}

test('transactional copy loops (ours, confluent-kafka-python) through kill -9 of the transaction coordinator’s broker, the leadership’s return, kill -9 of an output leader: every record exactly once', {
  timeout: 400_000,
}, async () => {
  const input = 'copy-in';
  const outputs = { ours: 'copy-out', ck: 'copy-out-ck' };
  await createTopics([input, outputs.ours, outputs.ck]);
  const started = Date.now();
  // Both transactional ids (and the zombie's) on one __transaction_state partition.
  const slot = coordinatorPartition('copier-ours', INTERNAL_PARTITIONS);
  const ids = { ours: idOn('copier-ours', slot), ck: idOn('copier-ck', slot), zombie: idOn('zombie', slot) };
  const feeder = startFeeder(input, 'x', 3);
  const loops = [
    ourCopyLoop(input, outputs.ours, 'copy-ours', ids.ours),
    ckCopyLoop(input, outputs.ck, 'copy-ck', ids.ck),
  ];
  const progress = () => loops.map((l) => `${l.name}: ${l.commits()} transactions\n${l.detail()}`).join('\n');
  const goOn = async (what: string) => {
    const at = loops.map((l) => l.commits());
    await waitFor(
      `transactions committed by both loops ${what}`,
      () => loops.every((l, i) => l.commits() >= at[i]! + 5),
      120_000,
      progress,
    );
  };
  let feederStopped = false;
  const ZOMBIE_TIMEOUT_MS = 15_000;
  let zombie: Proc | null = null;
  try {
    await goOn('at first');

    // Round 1: the transaction coordinator's broker, with a transaction of a vanished producer open on it.
    const coordinator = await coordinatorOf(ids.ours, 1);
    for (const id of Object.values(ids)) assert.equal(await coordinatorOf(id, 1), coordinator);
    const groupCoordinators = await Promise.all(loops.map((l) => coordinatorOf(l.group, 0)));
    say(
      `group coordinators of the loops: ${groupCoordinators} (offsets verified with broker ${coordinator})`,
    );
    zombie = Proc.python(ZOMBIE, [cluster.bootstrap(), outputs.ours, ids.zombie, ZOMBIE_TIMEOUT_MS]);
    await zombie.waitLine((l) => l === 'open', 60_000);
    const opened = Date.now();
    assert.equal((await describeTxn(ids.zombie))?.state, 'Ongoing');
    say(
      `transaction coordinator: broker ${coordinator}; killed ${Date.now() - opened} ms after the zombie's transaction opened`,
    );
    await killAndRestart(cluster, coordinator, SESSION_MS, async () => {
      assert.notEqual(await coordinatorOf(ids.ours, 1), coordinator);
      await goOn(`with broker ${coordinator} (their transaction coordinator) down`);
      // Its successor aborts the zombie's transaction when it times out (bumping the epoch).
      await waitFor('the new coordinator to abort the transaction left open', async () => {
        const d = await describeTxn(ids.zombie);
        return d !== null && d.state === 'CompleteAbort';
      });
      say(
        `zombie transaction aborted ${Date.now() - opened} ms after it opened (timeout ${ZOMBIE_TIMEOUT_MS} ms)`,
      );
    });
    await zombie.kill('SIGKILL');
    await waitForFullIsr(cluster, [outputs.ours, outputs.ck, '__transaction_state']);
    await goOn('after the broker restarted');

    // Round 1b: the restarted broker gets its leadership back (preferred election) while the
    // interim coordinator lives on: that one unloads and answers NOT_COORDINATOR, the loops follow.
    const interim = await coordinatorOf(ids.ours, 1);
    await moveLeadershipTo('__transaction_state', slot, coordinator);
    assert.equal(await coordinatorOf(ids.ours, 1), coordinator);
    await waitFor(`broker ${interim} to answer NOT_COORDINATOR for the transactional ids`, async () => {
      const codes = await Promise.all([ids.ours, ids.ck].map((id) => askDirectly(interim, id, 1)));
      return codes.every((c) => c === ErrorCode.NOT_COORDINATOR);
    });
    await goOn(`after the move from broker ${interim} back to broker ${coordinator}`);

    // Round 2: a broker leading an output partition (not the transaction coordinator, if possible).
    const txnCoordinator = await coordinatorOf(ids.ours, 1);
    const leaders = await Promise.all([0, 1, 2].map((p) => leaderOf(outputs.ours, p)));
    const victim = leaders.find((l) => l !== txnCoordinator) ?? leaders[0]!;
    say(
      `killing broker ${victim}, leader of ${outputs.ours} partitions ${[0, 1, 2].filter((p) => leaders[p] === victim)} (transaction coordinator: ${txnCoordinator})`,
    );
    await killAndRestart(cluster, victim, SESSION_MS, () =>
      goOn(`with broker ${victim} (an output leader) down`),
    );
    await feeder.stop();
    feederStopped = true;

    // Both loops finish the input: their committed offsets reach its end.
    const ends = await endOffsets(input);
    const admin = new Admin({ bootstrapServers: cluster.bootstrap(), requestTimeoutMs: 10_000 });
    try {
      for (const l of loops)
        await waitFor(
          `${l.name} to commit the end of ${input} (${ends})`,
          async () => {
            const c = await committedOffsets(admin, l.group, input);
            return c?.every((o, p) => o === ends[p]) === true;
          },
          120_000,
          progress,
        );
    } finally {
      await admin.close();
    }
  } finally {
    if (!feederStopped) await feeder.stop().catch(() => {});
    await zombie?.kill('SIGKILL');
    await Promise.all(loops.map((l) => l.stop().catch(() => {})));
  }

  const inputs = await kcatRead(cluster.bootstrap(), input, 'read_uncommitted');
  assert.equal(inputs.length, feeder.acked.length);
  for (const l of loops) {
    const out = await kcatRead(cluster.bootstrap(), l.output, 'read_committed');
    for (let p = 0; p < 3; p++) {
      const want = inputs.filter((r) => r.partition === p).map((r) => r.value);
      const got = out.filter((r) => r.partition === p).map((r) => r.value);
      const dup = got.filter((v, i) => got.indexOf(v) !== i);
      assert.deepEqual(dup.slice(0, 10), [], `${l.name}: no record twice in ${l.output}-${p}`);
      assert.deepEqual(got, want, `${l.name}: ${l.output}-${p} holds every input record once, in order`);
    }
    say(
      `${l.name}: ${out.length} records copied exactly once in ${l.commits()} transactions; ${l.failures()} failures recovered from`,
    );
  }
  const raw = await kcatRead(cluster.bootstrap(), outputs.ours, 'read_uncommitted');
  assert.ok(
    raw.some((r) => r.value === 'zombie'),
    'the zombie record is in the log, aborted',
  );
  say(`copy loops: ${Date.now() - started} ms`);
});
