// Mixed groups: our consumers share a group with kafkajs 2.2.4 and confluent-kafka-python
// (librdkafka 2.0.2) consumers using a common assignor; whoever leads, the partitions are split
// without overlap or gaps and every record is consumed exactly once.
import assert from 'node:assert/strict';
import { type ChildProcessWithoutNullStreams, spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import { after, before, test } from 'node:test';
import kafkajs from 'kafkajs';
import { roundRobinAssignor } from '../../../src/client/consumer/index.js';
import type { TestBroker } from '../../../src/testkit/index.js';
import { GroupWorker, until } from './group-worker.js';
import { broker, createTopic, produce } from './support.js';

let b: TestBroker;
before(async () => {
  b = await broker();
});
after(async () => {
  await b?.close();
});

interface Member {
  name: string;
  assignment(): number[];
  received(): string[];
  stop(): Promise<void>;
}

function ours(topic: string, group: string, strategy: string, name: string): Member {
  const w = new GroupWorker(name, b, topic, {
    groupId: group,
    partitionAssignmentStrategy: [strategy === 'roundrobin' ? roundRobinAssignor() : strategy],
  }).start();
  return {
    name,
    assignment: () =>
      w.consumer
        .assignment()
        .map((t) => t.partition)
        .sort(),
    received: () => w.received,
    stop: async () => {
      await w.stop();
      assert.equal(w.error, null);
    },
  };
}

function python(topic: string, group: string, strategy: string): Member {
  const child: ChildProcessWithoutNullStreams = spawn('/usr/bin/python3', [
    'test/client/consumer/py-group-consumer.py',
    b.bootstrap,
    group,
    topic,
    strategy,
  ]);
  let assignment: number[] = [];
  const received: string[] = [];
  createInterface({ input: child.stdout }).on('line', (line) => {
    const e = JSON.parse(line) as { assigned?: number[]; revoked?: number[]; record?: string };
    if (e.assigned)
      assignment = strategy === 'cooperative-sticky' ? [...assignment, ...e.assigned] : e.assigned;
    if (e.revoked) assignment = assignment.filter((p) => !e.revoked!.includes(p));
    if (e.record !== undefined) received.push(e.record);
  });
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  return {
    name: 'python',
    assignment: () => [...assignment].sort(),
    received: () => received,
    stop: async () => {
      child.stdin.end();
      const code = await Promise.race([
        exited,
        new Promise<'timeout'>((r) => setTimeout(() => r('timeout'), 15000)),
      ]);
      if (code === 'timeout') child.kill('SIGKILL');
      assert.equal(code, 0);
    },
  };
}

async function kafkajsMember(topic: string, group: string): Promise<Member> {
  const kafka = new kafkajs.Kafka({
    brokers: [b.bootstrap],
    clientId: 'kafkajs-member',
    logLevel: kafkajs.logLevel.NOTHING,
  });
  // kafkajs calls its round robin "RoundRobinAssigner"; give it Kafka's name so the group agrees.
  const rr: kafkajs.PartitionAssigner = (cfg) => ({
    ...kafkajs.PartitionAssigners.roundRobin(cfg),
    name: 'roundrobin',
  });
  const c = kafka.consumer({
    groupId: group,
    partitionAssigners: [rr],
    sessionTimeout: 6000,
    heartbeatInterval: 500,
  });
  let assignment: number[] = [];
  const received: string[] = [];
  c.on(c.events.GROUP_JOIN, (e) => {
    assignment = [...(e.payload.memberAssignment[topic] ?? [])];
  });
  await c.connect();
  await c.subscribe({ topic, fromBeginning: true });
  await c.run({
    eachMessage: async ({ message }) => {
      received.push(message.key!.toString());
    },
  });
  return {
    name: 'kafkajs',
    assignment: () => [...assignment].sort(),
    received: () => received,
    stop: () => c.disconnect(),
  };
}

function splitsCleanly(members: Member[], partitions: number): boolean {
  const all = members.flatMap((m) => m.assignment());
  return (
    all.length === partitions &&
    new Set(all).size === partitions &&
    members.every((m) => m.assignment().length > 0)
  );
}

async function runMixed(
  topic: string,
  members: Member[],
  partitions: number,
  records: number,
): Promise<void> {
  try {
    await until(
      () => splitsCleanly(members, partitions),
      40000,
      `partitions split across ${members.map((m) => m.name).join(', ')}`,
    );
    await produce(b, topic, records, partitions);
    await until(
      () => members.reduce((n, m) => n + m.received().length, 0) >= records,
      30000,
      'all records consumed',
    );
    const keys = members.flatMap((m) => m.received());
    assert.equal(new Set(keys).size, records);
    assert.equal(keys.length, records, 'no record consumed twice');
    for (const m of members) {
      const mine = new Set(m.assignment());
      for (const k of m.received())
        assert.ok(
          mine.has(Number(k.slice(4)) % partitions),
          `${m.name} got ${k} from a partition it does not own`,
        );
    }
  } finally {
    for (const m of members) await m.stop();
  }
}

test('roundrobin: our consumer + kafkajs + confluent-kafka-python in one group', async () => {
  await createTopic(b, 'mixed-rr', 6);
  const members = [
    ours('mixed-rr', 'mixed-rr', 'roundrobin', 'ours'),
    await kafkajsMember('mixed-rr', 'mixed-rr'),
    python('mixed-rr', 'mixed-rr', 'roundrobin'),
  ];
  await runMixed('mixed-rr', members, 6, 600);
});

test('cooperative-sticky: two of ours + confluent-kafka-python', async () => {
  await createTopic(b, 'mixed-coop', 6);
  const members = [
    ours('mixed-coop', 'mixed-coop', 'cooperative-sticky', 'ours-1'),
    python('mixed-coop', 'mixed-coop', 'cooperative-sticky'),
    ours('mixed-coop', 'mixed-coop', 'cooperative-sticky', 'ours-2'),
  ];
  await runMixed('mixed-coop', members, 6, 600);
});

test('range: our consumer + confluent-kafka-python', async () => {
  await createTopic(b, 'mixed-range', 4);
  const members = [
    python('mixed-range', 'mixed-range', 'range'),
    ours('mixed-range', 'mixed-range', 'range', 'ours'),
  ];
  await runMixed('mixed-range', members, 4, 400);
});
