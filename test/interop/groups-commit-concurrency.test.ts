// Real clients committing concurrently into the batched __consumer_offsets writes: six kafkajs
// consumer groups (committing every few messages) and three confluent-kafka-python (librdkafka)
// groups (auto-commit every 200 ms) consume one topic at the same time. Every group ends with
// its committed offsets at the end of every partition, read back with our admin client and with
// kafkajs, and again after the broker restarts and replays __consumer_offsets.
import assert from 'node:assert/strict';
import { after, test } from 'node:test';
import { type Consumer, Kafka, logLevel } from 'kafkajs';
import { Admin } from '../../src/client/index.js';
import { startTestBroker, type TestBroker } from '../../src/testkit/index.js';
import { scaled } from '../support/timeouts.js';
import { ConsumerProc, waitFor } from './support/consumer-procs.js';

const TOPIC = 'commit-concurrency';
const PARTITIONS = 4;
const PER_PARTITION = 300;
const KAFKAJS_GROUPS = 6;
const PYTHON_GROUPS = 3;

test('kafkajs and librdkafka groups commit concurrently; every offset lands and survives a restart', {
  timeout: scaled(600_000),
}, async () => {
  let broker: TestBroker = await startTestBroker({
    overrides: { 'group.initial.rebalance.delay.ms': 0, 'offsets.topic.num.partitions': 10 },
  });
  const dataDir = broker.dataDir;
  const procs: ConsumerProc[] = [];
  const consumers: Consumer[] = [];
  after(async () => {
    for (const c of consumers) await c.disconnect().catch(() => {});
    for (const p of procs) await p.kill('SIGKILL');
    await broker.close();
  });
  const kafka = () =>
    new Kafka({
      brokers: [broker.bootstrap],
      logLevel: logLevel.NOTHING,
      retry: { retries: 30, initialRetryTime: 200, maxRetryTime: 2000 },
    });
  const k = kafka();
  const producer = k.producer();
  await producer.connect();
  const admin = k.admin();
  await admin.connect();
  await admin.createTopics({ topics: [{ topic: TOPIC, numPartitions: PARTITIONS }] });
  for (let p = 0; p < PARTITIONS; p++) {
    await producer.send({
      topic: TOPIC,
      messages: Array.from({ length: PER_PARTITION }, (_, i) => ({ partition: p, value: `${p}:${i}` })),
    });
  }
  await producer.disconnect();
  await admin.disconnect();

  // kafkajs: commits every 5 resolved messages (and every 20 ms), so a group commits ~240 times.
  const seen = new Map<string, Set<string>>();
  for (let g = 0; g < KAFKAJS_GROUPS; g++) {
    const groupId = `kafkajs-${g}`;
    const set = new Set<string>();
    seen.set(groupId, set);
    const c = k.consumer({ groupId, sessionTimeout: 30_000, heartbeatInterval: 1000 });
    consumers.push(c);
    await c.connect();
    await c.subscribe({ topic: TOPIC, fromBeginning: true });
    void c.run({
      autoCommitThreshold: 5,
      autoCommitInterval: 20,
      eachMessage: async ({ partition, message }) => {
        set.add(`${partition}:${message.offset}`);
      },
    });
  }
  const python: Array<{ groupId: string; proc: ConsumerProc }> = [];
  for (let g = 0; g < PYTHON_GROUPS; g++) {
    const groupId = `librdkafka-${g}`;
    const proc = ConsumerProc.python(groupId, [broker.bootstrap, groupId, TOPIC, 'range']);
    procs.push(proc);
    python.push({ groupId, proc });
  }
  const total = PARTITIONS * PER_PARTITION;
  await waitFor(
    () =>
      [...seen.values()].every((s) => s.size === total) &&
      python.every(
        ({ proc }) => new Set(proc.records.map((r) => `${r.partition}:${r.offset}`)).size === total,
      ),
    240_000,
    'every group consuming the whole topic',
  );
  // Leaving commits what was consumed last (kafkajs on disconnect, librdkafka on close).
  for (const c of consumers.splice(0)) await c.disconnect();
  for (const { proc } of python) {
    await proc.kill('SIGTERM');
    assert.equal(proc.child.exitCode, 0, proc.stderr);
  }

  const groups = [...seen.keys(), ...python.map((p) => p.groupId)];
  const expectEnds = async (what: string) => {
    const ours = new Admin({ bootstrapServers: broker.bootstrap });
    const theirs = kafka().admin();
    await theirs.connect();
    try {
      for (const groupId of groups) {
        const offsets = (await ours.listConsumerGroupOffsets(groupId))
          .filter((o) => o.topic === TOPIC)
          .sort((a, b) => a.partition - b.partition)
          .map((o) => o.offset);
        assert.deepEqual(offsets, Array(PARTITIONS).fill(BigInt(PER_PARTITION)), `${groupId} ${what}`);
        const [kafkajsView] = await theirs.fetchOffsets({ groupId, topics: [TOPIC] });
        assert.deepEqual(
          kafkajsView?.partitions.sort((a, b) => a.partition - b.partition).map((p) => p.offset),
          Array(PARTITIONS).fill(String(PER_PARTITION)),
          `${groupId} through kafkajs ${what}`,
        );
      }
    } finally {
      await ours.close();
      await theirs.disconnect();
    }
  };
  await expectEnds('after consuming');
  await broker.stop();
  broker = await startTestBroker({
    dataDir,
    overrides: { 'group.initial.rebalance.delay.ms': 0, 'offsets.topic.num.partitions': 10 },
  });
  await expectEnds('after a restart');
});
