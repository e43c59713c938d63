// kafkajs consumer groups against a real broker: 3 consumers share a 6-partition topic; one is
// stopped, later one is SIGKILLed; the survivors take over within the session timeout and
// every one of the 60,000 messages is consumed, duplicates only from the killed member's
// last uncommitted batch.
import assert from 'node:assert/strict';
import { after, test } from 'node:test';
import { Kafka, logLevel } from 'kafkajs';
import { startTestBroker } from '../../src/testkit/index.js';
import { ConsumerProc, waitFor } from './support/consumer-procs.js';

const TOPIC = 'orders';
const SESSION_TIMEOUT = 6000;
const PER_ROUND = 20_000;

test('kafkajs group of 3: stop one, kill one, nothing lost, duplicates only after the crash', {
  timeout: 120_000,
}, async () => {
  const broker = await startTestBroker({ overrides: { 'group.initial.rebalance.delay.ms': 0 } });
  const procs: ConsumerProc[] = [];
  after(async () => {
    for (const p of procs) await p.kill('SIGKILL');
    await broker.close();
  });
  const kafka = new Kafka({ brokers: [broker.bootstrap], logLevel: logLevel.NOTHING });
  const admin = kafka.admin();
  await admin.connect();
  await admin.createTopics({ topics: [{ topic: TOPIC, numPartitions: 6 }] });
  const producer = kafka.producer();
  await producer.connect();
  let produced = 0;
  const produce = async (n: number) => {
    for (let i = 0; i < n; i += 1000) {
      const messages = Array.from({ length: 1000 }, (_, j) => ({
        key: String(produced + i + j),
        value: 'x'.repeat(50),
      }));
      await producer.send({ topic: TOPIC, messages });
    }
    produced += n;
  };
  const seen = () => {
    const s = new Set<string>();
    for (const p of procs) for (const r of p.records) s.add(`${r.partition}:${r.offset}`);
    return s.size;
  };
  const start = (name: string) => {
    const p = ConsumerProc.node(name, 'kafkajs-consumer.ts', [
      broker.bootstrap,
      'g1',
      TOPIC,
      String(SESSION_TIMEOUT),
    ]);
    procs.push(p);
    return p;
  };

  await produce(PER_ROUND);
  const [a, b, c] = [start('a'), start('b'), start('c')];
  await waitFor(() => seen() === produced, 60_000, 'round 1 consumed');
  await waitFor(
    () => [a, b, c].every((p) => (p.assignments.at(-1)?.length ?? 0) === 2),
    20_000,
    'balanced 2/2/2',
  );

  // Graceful stop: a leaves the group, b and c take its partitions.
  await a.kill('SIGTERM');
  await produce(PER_ROUND);
  await waitFor(() => seen() === produced, 60_000, 'round 2 consumed after a stopped');
  assert.deepEqual(
    [b, c].map((p) => p.assignments.at(-1)?.length),
    [3, 3],
  );

  // Crash: b is killed; c must own all 6 partitions within the session timeout (+ rebalance).
  const bCountAtKill = b.records.length;
  await b.kill('SIGKILL');
  const killedAt = Date.now();
  await produce(PER_ROUND);
  await waitFor(() => c.assignments.at(-1)?.length === 6, SESSION_TIMEOUT + 15_000, 'c takes over');
  const takeover = Date.now() - killedAt;
  await waitFor(() => seen() === produced, 60_000, 'round 3 consumed after b crashed');
  assert.ok(takeover < SESSION_TIMEOUT + 15_000, `takeover took ${takeover} ms`);

  // Exactly once, except what b consumed after its last commit.
  const firstBy = new Map<string, string>();
  const dupes: string[] = [];
  for (const p of procs) {
    for (const r of p.records) {
      const k = `${r.partition}:${r.offset}`;
      const prev = firstBy.get(k);
      if (prev === undefined) firstBy.set(k, p.name);
      else dupes.push(`${k} first by ${prev}, again by ${p.name}`);
    }
  }
  assert.equal(firstBy.size, 3 * PER_ROUND);
  const notFromCrash = dupes.filter((d) => !d.includes('first by b'));
  assert.deepEqual(notFromCrash, [], 'only the killed member may leave records to consume twice');
  assert.ok(dupes.length <= bCountAtKill, `duplicates ${dupes.length}`);

  const groups = await admin.describeGroups(['g1']);
  assert.equal(groups.groups[0]?.state, 'Stable');
  assert.equal(groups.groups[0]?.members.length, 1);
  await producer.disconnect();
  await admin.disconnect();
});
