// One consumer in a group against the real coordinator: join, consume, commit (sync, async,
// auto, explicit with metadata), resume from committed offsets, listener order, static members.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import type { TopicPartition } from '../../../src/client/consumer/index.js';
import type { TestBroker } from '../../../src/testkit/index.js';
import { broker, consumer, createTopic, pollN, produce, str } from './support.js';

let b: TestBroker;
before(async () => {
  b = await broker();
  await createTopic(b, 'g-basic', 4);
  await produce(b, 'g-basic', 400, 4);
});
after(async () => {
  await b?.close();
});

const tps = (list: TopicPartition[]) => list.map((t) => `${t.topic}-${t.partition}`).sort();

test('subscribe: a lone member gets every partition; commitSync; a successor resumes there', async () => {
  const events: string[] = [];
  const c1 = consumer(b, { groupId: 'g1', enableAutoCommit: false });
  c1.subscribe(['g-basic'], {
    onPartitionsAssigned: (p) => {
      events.push(`assigned ${tps(p).join(',')}`);
    },
    onPartitionsRevoked: (p) => {
      events.push(`revoked ${tps(p).join(',')}`);
    },
  });
  const first = await pollN(c1, 200);
  assert.ok(first.length >= 200);
  assert.deepEqual(tps(c1.assignment()), ['g-basic-0', 'g-basic-1', 'g-basic-2', 'g-basic-3']);
  assert.equal(events[0], 'assigned g-basic-0,g-basic-1,g-basic-2,g-basic-3');
  await c1.commitSync();
  const committed = await c1.committed(c1.assignment());
  const positions = await Promise.all(c1.assignment().map((tp) => c1.position(tp)));
  assert.deepEqual(
    committed.map((c) => c?.offset ?? 0n),
    positions,
  );
  const consumedCount = positions.reduce((a, p) => a + Number(p), 0);
  await c1.close();
  assert.equal(events.at(-1), 'revoked g-basic-0,g-basic-1,g-basic-2,g-basic-3');

  const c2 = consumer(b, { groupId: 'g1' });
  c2.subscribe(['g-basic']);
  const rest = await pollN(c2, 400 - consumedCount);
  assert.equal(rest.length, 400 - consumedCount, 'nothing re-delivered, nothing missing');
  const keys = new Set([...first.slice(0, consumedCount), ...rest].map((r) => str(r.key)));
  assert.equal(keys.size, 400);
  await c2.close();
});

test('commitAsync with explicit offsets and metadata; committed() reads them back', async () => {
  const c = consumer(b, { groupId: 'g2', enableAutoCommit: false });
  c.subscribe(['g-basic']);
  await pollN(c, 1);
  const result = await new Promise<Error | null>((resolve) => {
    void c.commitAsync([{ topic: 'g-basic', partition: 1, offset: 42n, metadata: 'checkpoint-7' }], (err) =>
      resolve(err),
    );
  });
  assert.equal(result, null);
  const [got, none] = await c.committed([
    { topic: 'g-basic', partition: 1 },
    { topic: 'g-basic', partition: 2 },
  ]);
  assert.equal(got?.offset, 42n);
  assert.equal(got?.metadata, 'checkpoint-7');
  assert.equal(none, null);
  await c.close();
});

test('auto commit commits what was polled, also on close', async () => {
  const c = consumer(b, { groupId: 'g3', autoCommitIntervalMs: 100 });
  c.subscribe(['g-basic']);
  const got = await pollN(c, 400);
  assert.equal(got.length, 400);
  await c.close();
  const check = consumer(b, { groupId: 'g3', enableAutoCommit: false });
  check.assign([0, 1, 2, 3].map((partition) => ({ topic: 'g-basic', partition })));
  const committed = await check.committed(check.assignment());
  assert.deepEqual(
    committed.map((x) => x?.offset),
    [100n, 100n, 100n, 100n],
  );
  await check.close();
});

test('static membership: a restarted member with the same group.instance.id keeps its partitions without a new generation', async () => {
  const mk = (id: string) =>
    consumer(b, {
      groupId: 'g-static',
      groupInstanceId: id,
      enableAutoCommit: false,
      sessionTimeoutMs: 10000,
    });
  const a = mk('instance-a');
  const bb = mk('instance-b');
  a.subscribe(['g-basic']);
  bb.subscribe(['g-basic']);
  const deadline = Date.now() + 15000;
  while ((a.assignment().length !== 2 || bb.assignment().length !== 2) && Date.now() < deadline) {
    await Promise.all([a.poll(100), bb.poll(100)]);
  }
  assert.equal(a.assignment().length + bb.assignment().length, 4);
  const before = tps(bb.assignment());
  const gen = bb.groupMetadata().generationId;
  await bb.close(); // static: no LeaveGroup
  const again = mk('instance-b');
  again.subscribe(['g-basic']);
  const deadline2 = Date.now() + 15000;
  while (again.assignment().length === 0 && Date.now() < deadline2)
    await Promise.all([a.poll(100), again.poll(100)]);
  assert.deepEqual(tps(again.assignment()), before);
  assert.equal(
    again.groupMetadata().generationId,
    gen,
    'rejoining static member does not trigger a rebalance',
  );
  await a.close();
  await again.close();
});
