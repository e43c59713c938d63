// librdkafka 2.0.2 consumer groups (confluent-kafka-python 1.7.0 and kcat -G) against a real
// broker: range and roundrobin split the partitions; a static member restarting within its
// session timeout gets its partitions back with no rebalance of the others. Cooperative-sticky
// (incremental) rebalancing has its own file: groups-librdkafka-coop.test.ts.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { after, before, test } from 'node:test';
import { Kafka, logLevel } from 'kafkajs';
import { startTestBroker, type TestBroker } from '../../src/testkit/index.js';
import { scaled } from '../support/timeouts.js';
import { ConsumerProc, waitFor } from './support/consumer-procs.js';

let broker: TestBroker;
let kafka: Kafka;
const procs: ConsumerProc[] = [];

before(async () => {
  broker = await startTestBroker({ overrides: { 'group.initial.rebalance.delay.ms': 0 } });
  kafka = new Kafka({ brokers: [broker.bootstrap], logLevel: logLevel.NOTHING });
  const admin = kafka.admin();
  await admin.connect();
  await admin.createTopics({
    topics: ['t-range', 't-rr', 't-static', 't-kcat'].map((topic) => ({ topic, numPartitions: 6 })),
  });
  const producer = kafka.producer();
  await producer.connect();
  for (const topic of ['t-range', 't-rr', 't-kcat']) {
    await producer.send({
      topic,
      messages: Array.from({ length: 600 }, (_, i) => ({ key: String(i), value: 'v' })),
    });
  }
  await producer.disconnect();
  await admin.disconnect();
});

after(async () => {
  for (const p of procs) await p.kill('SIGKILL');
  await broker.close();
});

const py = (name: string, group: string, topic: string, strategy: string, instance?: string) => {
  const p = ConsumerProc.python(name, [
    broker.bootstrap,
    group,
    topic,
    strategy,
    ...(instance ? [instance] : []),
  ]);
  procs.push(p);
  return p;
};

const describe = async (group: string) => {
  const admin = kafka.admin();
  await admin.connect();
  try {
    return (await admin.describeGroups([group])).groups[0];
  } finally {
    await admin.disconnect();
  }
};

for (const strategy of ['range', 'roundrobin']) {
  test(`confluent-kafka ${strategy}: two members split 6 partitions and consume everything once`, {
    timeout: 60_000,
  }, async () => {
    const topic = strategy === 'range' ? 't-range' : 't-rr';
    const group = `g-${strategy}`;
    const [a, b] = [py('a', group, topic, strategy), py('b', group, topic, strategy)];
    await waitFor(() => a.owned(false).length === 3 && b.owned(false).length === 3, 40_000, 'a 3/3 split');
    assert.deepEqual([...a.owned(false), ...b.owned(false)].sort(), [0, 1, 2, 3, 4, 5]);
    const all = () => new Set([...a.records, ...b.records].map((r) => `${r.partition}:${r.offset}`)).size;
    await waitFor(() => all() === 600, 20_000, 'all 600 consumed');
    const d = await describe(group);
    assert.equal(d?.state, 'Stable');
    assert.equal(d?.protocol, strategy);
    await Promise.all([a.kill('SIGTERM'), b.kill('SIGTERM')]);
  });
}

test('static member restarting within its session gets its partitions back without a rebalance', {
  timeout: 60_000,
}, async () => {
  const a = py('a', 'g-static', 't-static', 'range', 'inst-a');
  const b = py('b', 'g-static', 't-static', 'range', 'inst-b');
  await waitFor(() => a.owned(false).length === 3 && b.owned(false).length === 3, 40_000, 'a 3/3 split');
  const bOwned = b.owned(false);
  const aEvents = a.events.length;
  await b.kill('SIGKILL');
  const b2 = py('b2', 'g-static', 't-static', 'range', 'inst-b');
  await waitFor(() => b2.owned(false).length === 3, 9_000, 'restarted b assigned');
  assert.deepEqual(b2.owned(false), bOwned);
  await new Promise((r) => setTimeout(r, 1500));
  assert.equal(a.events.length, aEvents, 'the other member saw no rebalance');
  assert.equal((await describe('g-static'))?.members.length, 2);
});

test('kcat -G: two balanced consumers share the topic', { timeout: scaled(180_000) }, async () => {
  const kcat = (name: string) => {
    const child = spawn(
      'kcat',
      [
        '-b',
        broker.bootstrap,
        '-u',
        '-G',
        'g-kcat',
        '-X',
        'auto.offset.reset=earliest',
        '-X',
        'session.timeout.ms=10000',
        '-f',
        'm %p %o\\n',
        't-kcat',
      ],
      {
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    );
    const p = new ConsumerProc(name, child);
    procs.push(p);
    return p;
  };
  const [a, b] = [kcat('a'), kcat('b')];
  const seen = () => new Set([...a.records, ...b.records].map((r) => `${r.partition}:${r.offset}`)).size;
  await waitFor(() => seen() === 600, 40_000, 'all 600 consumed by kcat');
  // Both end up with a share (kcat reports each assignment on stderr).
  const lastAssignment = (p: ConsumerProc) => (p.stderr.match(/assigned: ([^\n]*)/g) ?? []).at(-1) ?? '';
  await waitFor(
    () => [a, b].every((p) => /t-kcat \[\d\]/.test(lastAssignment(p))),
    30_000,
    'both kcat assigned',
  );
  let state = '';
  for (let i = 0; i < 40 && state !== 'Stable/2'; i++) {
    const d = await describe('g-kcat');
    state = `${d?.state}/${d?.members.length}`;
    if (state !== 'Stable/2') await new Promise((r) => setTimeout(r, 500));
  }
  assert.equal(state, 'Stable/2');
  const parts = [a, b].map((p) => (lastAssignment(p).match(/\[(\d)\]/g) ?? []).length);
  assert.deepEqual(parts, [3, 3]);
  await Promise.all([a.kill('SIGTERM'), b.kill('SIGTERM')]);
});
