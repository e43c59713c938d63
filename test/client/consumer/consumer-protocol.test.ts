// Our consumer with groupProtocol 'consumer' (KIP-848) against the in-process broker: members
// share partitions and rebalance incrementally (a member keeps what it keeps: nothing of it is
// revoked), listeners run in the order the reconciliation needs (the old owner's revoke before
// the new owner's assign), pattern subscriptions follow topics created later, and every record
// is read exactly once across joins and leaves when each batch is committed.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import type { TopicPartition } from '../../../src/client/consumer/index.js';
import { UnsupportedVersionError } from '../../../src/client/errors.js';
import type { TestBroker } from '../../../src/testkit/index.js';
import { GroupWorker, key, until } from './group-worker.js';
import { broker, consumer, createTopic, pollN, produce, sleep } from './support.js';

const CP = { groupProtocol: 'consumer' as const };

let b: TestBroker;
before(async () => {
  b = await broker({ 'group.consumer.heartbeat.interval.ms': 200 });
});
after(async () => {
  await b?.close();
});

function sizes(workers: GroupWorker[]): number[] {
  return workers.map((w) => w.assignment().length);
}

function balanced(workers: GroupWorker[], partitions: number): boolean {
  const s = sizes(workers);
  return s.reduce((a, n) => a + n, 0) === partitions && Math.max(...s) - Math.min(...s) <= 1;
}

function revokedSince(w: GroupWorker, from: number): Set<string> {
  return new Set(w.events.filter((e) => e.at >= from && e.kind === 'revoked').flatMap((e) => e.partitions));
}

test('members share partitions, a third joins without stop-the-world, one leaves: every record once', async () => {
  const topic = 'cp-share';
  await createTopic(b, topic, 4);
  const opts = { groupId: 'cp-share-group', ...CP };
  const w1 = new GroupWorker('w1', b, topic, opts).start();
  await until(() => w1.assignment().length === 4, 20000, 'w1 owns all 4 partitions');
  const w2 = new GroupWorker('w2', b, topic, opts).start();
  await until(() => balanced([w1, w2], 4), 20000, 'w1 and w2 share the partitions');
  await produce(b, topic, 200, 4);
  await until(() => w1.received.length + w2.received.length >= 200, 20000, 'the first 200 records');

  // A third member: the others give up only what moves to it.
  const before1 = w1.assignment();
  const before2 = w2.assignment();
  const joinedAt = Date.now();
  const w3 = new GroupWorker('w3', b, topic, opts).start();
  await until(() => balanced([w1, w2, w3], 4), 20000, 'three members balanced');
  for (const [w, had] of [
    [w1, before1],
    [w2, before2],
  ] as const) {
    const kept = had.filter((p) => w.assignment().includes(p));
    const revoked = revokedSince(w, joinedAt);
    assert.ok(kept.length > 0, `${w.name} keeps some of ${had.join(',')}`);
    for (const p of kept) assert.ok(!revoked.has(p), `${w.name} kept ${p} but it was revoked from it`);
    assert.deepEqual(
      [...revoked].sort(),
      had.filter((p) => !kept.includes(p)).sort(),
      `${w.name} revoked exactly what moved`,
    );
    assert.ok(!w.events.some((e) => e.kind === 'lost'), `${w.name} lost nothing`);
  }
  await produce(b, topic, 200, 4, 200);
  await until(
    () => w1.received.length + w2.received.length + w3.received.length >= 400,
    20000,
    'the next 200 records',
  );

  // One leaves: its partitions go to the others, after its commits.
  await w2.stop();
  await until(() => balanced([w1, w3], 4), 20000, 'two members balanced after w2 left');
  await produce(b, topic, 200, 4, 400);
  await until(() => w1.received.length + w3.received.length + w2.received.length >= 600, 20000, 'all 600');
  await sleep(300);
  await w1.stop();
  await w3.stop();
  for (const w of [w1, w2, w3]) assert.equal(w.error, null, `${w.name} failed: ${String(w.error)}`);
  const all = [...w1.received, ...w2.received, ...w3.received];
  assert.equal(new Set(all).size, 600, 'no record lost');
  assert.equal(all.length, 600, 'no record read twice');
});

test('listeners: the previous owner revokes before the new owner is assigned; close revokes after committing', async () => {
  const topic = 'cp-order';
  await createTopic(b, topic, 4);
  const log: string[] = [];
  const listener = (name: string) => ({
    onPartitionsAssigned: (tps: TopicPartition[]) => {
      log.push(`${name} assigned ${tps.map(key).sort().join(',')}`);
    },
    onPartitionsRevoked: (tps: TopicPartition[]) => {
      log.push(`${name} revoked ${tps.map(key).sort().join(',')}`);
    },
    onPartitionsLost: (tps: TopicPartition[]) => {
      log.push(`${name} lost ${tps.map(key).sort().join(',')}`);
    },
  });
  const c1 = consumer(b, { groupId: 'cp-order-group', clientId: 'c1', ...CP });
  const c2 = consumer(b, { groupId: 'cp-order-group', clientId: 'c2', ...CP });
  let stop = false;
  const loop = async (c: typeof c1) => {
    while (!stop) await c.poll(100);
  };
  c1.subscribe([topic], listener('c1'));
  const l1 = loop(c1);
  await until(() => c1.assignment().length === 4, 20000, 'c1 owns all');
  assert.deepEqual(log, [`c1 assigned ${[0, 1, 2, 3].map((p) => `${topic}-${p}`).join(',')}`]);
  c2.subscribe([topic], listener('c2'));
  const l2 = loop(c2);
  await until(() => c1.assignment().length === 2 && c2.assignment().length === 2, 20000, 'c1 and c2 share');
  const moved = c2.assignment().map(key).sort().join(',');
  const revokeAt = log.indexOf(`c1 revoked ${moved}`);
  const assignAt = log.indexOf(`c2 assigned ${moved}`);
  assert.ok(revokeAt > 0, `c1 revoked what moved: ${log.join(' | ')}`);
  assert.ok(assignAt > revokeAt, `c2 got it after c1 let go: ${log.join(' | ')}`);
  assert.ok(!log.some((l) => l.includes('lost')), 'nothing lost');

  // c1 leaves: revoked through its listener, then c2 gets its partitions.
  const c1Had = c1.assignment().map(key).sort().join(',');
  stop = true;
  await Promise.all([l1, l2]);
  stop = false;
  const l2b = loop(c2);
  await c1.close();
  await until(() => c2.assignment().length === 4, 20000, 'c2 owns all after c1 left');
  const closeRevokeAt = log.indexOf(`c1 revoked ${c1Had}`);
  assert.ok(closeRevokeAt > assignAt, `c1 revoked on close: ${log.join(' | ')}`);
  assert.ok(log.indexOf(`c2 assigned ${c1Had}`) > closeRevokeAt, log.join(' | '));
  stop = true;
  await l2b;
  await c2.close();
});

test('a pattern subscription is evaluated by the coordinator and picks up a topic created later', async () => {
  await createTopic(b, 'cp-pat-a', 2);
  await produce(b, 'cp-pat-a', 10, 2);
  const c = consumer(b, { groupId: 'cp-pat-group', ...CP, metadataMaxAgeMs: 500 });
  try {
    c.subscribe(/^cp-pat-/);
    const first = await pollN(c, 10);
    assert.equal(first.length, 10);
    await createTopic(b, 'cp-pat-b', 3);
    await produce(b, 'cp-pat-b', 9, 3);
    const later = await pollN(c, 9);
    assert.deepEqual([...new Set(later.map((r) => r.topic))], ['cp-pat-b']);
    assert.equal(later.length, 9);
    assert.deepEqual(c.assignment().map(key).sort(), [
      'cp-pat-a-0',
      'cp-pat-a-1',
      'cp-pat-b-0',
      'cp-pat-b-1',
      'cp-pat-b-2',
    ]);
  } finally {
    await c.close();
  }
});

test('commits carry the member epoch; a restarted member continues after what was committed', async () => {
  const topic = 'cp-commit';
  await createTopic(b, topic, 2);
  await produce(b, topic, 20, 2);
  const group = 'cp-commit-group';
  const c = consumer(b, { groupId: group, enableAutoCommit: false, ...CP });
  c.subscribe([topic]);
  const got = await pollN(c, 20);
  assert.equal(got.length, 20);
  await c.commitSync();
  const meta = c.groupMetadata();
  assert.ok(meta.generationId > 0, `member epoch ${meta.generationId}`);
  assert.notEqual(meta.memberId, '');
  await c.close();
  await produce(b, topic, 10, 2, 20);
  const d = consumer(b, { groupId: group, enableAutoCommit: false, ...CP });
  try {
    d.subscribe([topic]);
    const next = await pollN(d, 10);
    assert.deepEqual(
      next.map((r) => r.key!.toString()).sort(),
      [...Array(10).keys()].map((i) => `key-${i + 20}`).sort(),
    );
  } finally {
    await d.close();
  }
});

test('a broker with only the classic protocol: a clear UnsupportedVersionError', async () => {
  const classic = await broker({ 'group.coordinator.rebalance.protocols': 'classic' });
  const c = consumer(classic, { groupId: 'cp-classic-only', ...CP });
  try {
    await createTopic(classic, 'cp-classic-t', 1);
    c.subscribe(['cp-classic-t']);
    let err: unknown = null;
    const deadline = Date.now() + 20000;
    while (err === null && Date.now() < deadline) {
      try {
        await c.poll(200);
      } catch (e) {
        err = e;
      }
    }
    assert.ok(err instanceof UnsupportedVersionError, `got ${String(err)}`);
    assert.match((err as Error).message, /groupProtocol: 'classic'/);
  } finally {
    await c.close();
    await classic.close();
  }
});

test('static members: close leaves with epoch -2 (partitions wait for it), the instance id is not shared', async () => {
  const topic = 'cp-static';
  await createTopic(b, topic, 4);
  const group = 'cp-static-group';
  const start = (instance: string) => {
    const c = consumer(b, { groupId: group, groupInstanceId: instance, ...CP });
    c.subscribe([topic]);
    let stop = false;
    let error: unknown = null;
    const loop = (async () => {
      while (!stop) {
        try {
          await c.poll(100);
        } catch (err) {
          error = err;
          return;
        }
      }
    })();
    return {
      c,
      error: () => error,
      stop: async () => {
        stop = true;
        await loop;
        await c.close();
      },
    };
  };
  const s1 = start('static-1');
  const s2 = start('static-2');
  try {
    await until(
      () => s1.c.assignment().length === 2 && s2.c.assignment().length === 2,
      20000,
      'two static members share',
    );
    const had = s1.c.assignment().map(key).sort();
    // A second consumer with a live member's instance id is refused (UNRELEASED_INSTANCE_ID).
    const dup = start('static-2');
    await until(() => dup.error() !== null, 20000, 'the duplicate instance id is refused');
    assert.match(String(dup.error()), /UNRELEASED_INSTANCE_ID/);
    await dup.stop();

    await s1.stop();
    await sleep(1500);
    assert.equal(s2.c.assignment().length, 2, 'the away static member keeps its partitions');
    const back = start('static-1');
    await until(() => back.c.assignment().length === 2, 20000, 'the static member returns');
    assert.deepEqual(back.c.assignment().map(key).sort(), had, 'and gets its partitions back');
    await back.stop();
  } finally {
    await s2.stop();
  }
});
