// Groups of our consumers against the real coordinator, one run per assignor: members join and
// leave while records keep arriving; every record is received, none twice (each batch is
// committed before the next poll and revoked partitions are committed in onPartitionsRevoked).
// Cooperative-sticky additionally never revokes a partition that stays with its member.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { Producer } from '../../../src/client/producer/producer.js';
import type { TestBroker } from '../../../src/testkit/index.js';
import { GroupWorker, until } from './group-worker.js';
import { broker, createTopic, sleep } from './support.js';

const PARTITIONS = 6;
const RECORDS = 3000;

let b: TestBroker;
before(async () => {
  b = await broker();
});
after(async () => {
  await b?.close();
});

/** Produces RECORDS records over ~2.5 s, keys unique. */
async function produceSlowly(topic: string): Promise<void> {
  const p = new Producer({ bootstrapServers: b.bootstrap, lingerMs: 5 });
  try {
    for (let i = 0; i < RECORDS; i += 100) {
      const batch: Promise<unknown>[] = [];
      for (let j = i; j < i + 100; j++)
        batch.push(
          p.send({ topic, partition: j % PARTITIONS, key: `k${j}`, value: `v${j}` }) as Promise<unknown>,
        );
      await Promise.all(batch);
      await sleep(80);
    }
  } finally {
    await p.close();
  }
}

function balanced(workers: GroupWorker[]): boolean {
  const sizes = workers.map((w) => w.assignment().length);
  return sizes.reduce((a, n) => a + n, 0) === PARTITIONS && Math.max(...sizes) - Math.min(...sizes) <= 1;
}

for (const assignor of ['range', 'roundrobin', 'sticky', 'cooperative-sticky']) {
  test(`${assignor}: members join and leave under load, no loss, no duplicates`, async () => {
    const topic = `reb-${assignor}`;
    await createTopic(b, topic, PARTITIONS);
    const group = `group-${assignor}`;
    const opts = { groupId: group, partitionAssignmentStrategy: [assignor] };
    const production = produceSlowly(topic);
    const all: GroupWorker[] = [];
    const spawn = (name: string) => {
      const w = new GroupWorker(name, b, topic, opts).start();
      all.push(w);
      return w;
    };
    const w1 = spawn('w1');
    await until(() => w1.assignment().length === PARTITIONS, 15000, 'w1 owns everything');
    const w2 = spawn('w2');
    const w3 = spawn('w3');
    await until(() => balanced([w1, w2, w3]), 15000, 'three members balanced');
    const w4 = spawn('w4');
    const w5 = spawn('w5');
    await until(() => balanced([w1, w2, w3, w4, w5]), 15000, 'five members balanced');
    await w2.stop();
    await until(() => balanced([w1, w3, w4, w5]), 15000, 'four members balanced');
    await production;
    const live = [w1, w3, w4, w5];
    await until(
      () => all.reduce((n, w) => n + w.received.length, 0) >= RECORDS,
      20000,
      'every record received',
    );
    for (const w of live) await w.stop();
    for (const w of all) assert.equal(w.error, null, `${w.name} failed: ${String(w.error)}`);
    const keys = all.flatMap((w) => w.received);
    const unique = new Set(keys);
    assert.equal(unique.size, RECORDS, 'no record lost');
    assert.equal(keys.length, RECORDS, `no duplicates (got ${keys.length - unique.size})`);

    if (assignor === 'cooperative-sticky') {
      // A partition is revoked from a member only if the member does not keep it.
      for (const w of all) {
        for (let i = 0; i < w.events.length; i++) {
          const e = w.events[i]!;
          if (e.kind !== 'revoked') continue;
          const nextAssigned = w.events.slice(i + 1).find((x) => x.kind === 'assigned');
          if (nextAssigned === undefined) continue;
          for (const p of e.partitions)
            assert.ok(!nextAssigned.owned.includes(p), `${w.name}: ${p} revoked but kept`);
        }
      }
      assert.ok(!all.some((w) => w.events.some((e) => e.kind === 'lost')), 'no partitions lost');
      const firstRevoke = w1.events.find((e) => e.kind === 'revoked');
      assert.ok(
        firstRevoke !== undefined && firstRevoke.partitions.length < PARTITIONS,
        'cooperative: w1 revoked only what moved when w2/w3 joined',
      );
    } else {
      // Eager protocols revoke everything at each rebalance.
      const firstRevoke = w1.events.find((e) => e.kind === 'revoked');
      assert.equal(firstRevoke?.partitions.length, PARTITIONS);
    }
  });
}
