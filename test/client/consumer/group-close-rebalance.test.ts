// A cooperative member that closes while a rebalance is in flight still commits its work in
// onPartitionsRevoked. Its JoinGroup is pending on the coordinator connection, so a commit sent
// at once would wait behind it and then carry a generation that is gone: close() lets the join
// finish first, and the member takes the new generation from the SyncGroup response (before any
// poll() applies the assignment), so the commit is accepted and nothing is re-delivered.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import type { Consumer } from '../../../src/client/consumer/index.js';
import type { TestBroker } from '../../../src/testkit/index.js';
import { until } from './group-worker.js';
import { broker, consumer, createTopic, pollN, produce } from './support.js';

const TOPIC = 'close-reb';
const GROUP = 'close-reb-group';
let b: TestBroker;
before(async () => {
  b = await broker();
  await createTopic(b, TOPIC, 2);
  await produce(b, TOPIC, 20, 2);
});
after(async () => {
  await b?.close();
});

const opts = { groupId: GROUP, partitionAssignmentStrategy: ['cooperative-sticky'], enableAutoCommit: false };

/** Polls in the background until stopped (a member that keeps up with the group). */
function pollLoop(c: Consumer): () => Promise<void> {
  let stop = false;
  const loop = (async () => {
    while (!stop) await c.poll(50);
  })();
  return async () => {
    stop = true;
    await loop;
  };
}

test('cooperative: closing during a rebalance commits under the new generation', async () => {
  const aLog: string[] = [];
  const a = consumer(b, { ...opts, clientId: 'a', logger: (_l, msg) => void aLog.push(msg) });
  a.subscribe([TOPIC], {
    // Commit what was consumed from the partitions that go, and only from those.
    onPartitionsRevoked: async (tps) => {
      await a.commitSync(await Promise.all(tps.map(async (tp) => ({ ...tp, offset: await a.position(tp) }))));
    },
  });
  const c = consumer(b, { ...opts, clientId: 'c' });
  c.subscribe([TOPIC]);
  const n = consumer(b, { ...opts, clientId: 'n' });
  const loops: (() => Promise<void>)[] = [];
  try {
    // a and c share the partitions.
    assert.equal((await pollN(a, 20)).length, 20);
    const stopA = pollLoop(a);
    const stopC = pollLoop(c);
    await until(() => a.assignment().length === 1 && c.assignment().length === 1, 15000, 'a and c balanced');
    await stopA();
    await stopC();
    const mine = a.assignment()[0]!;
    // More records; a consumes those of its partition and commits nothing.
    await produce(b, TOPIC, 20, 2, 20);
    assert.equal((await pollN(a, 10)).length, 10);
    const position = await a.position(mine);
    assert.equal(position, 20n);

    // A third member joins; a learns of the rebalance from its heartbeat and one poll() sends its
    // JoinGroup, which the coordinator holds until c (not polling now) rejoins too.
    aLog.length = 0;
    n.subscribe([TOPIC]);
    loops.push(pollLoop(n));
    await until(() => aLog.includes('requesting a rebalance'), 10000, 'a hears of the rebalance');
    await a.poll(0);

    const closing = a.close();
    loops.push(pollLoop(c));
    await closing;
    const [committed] = await c.committed([mine]);
    assert.equal(committed?.offset, position, 'a committed its position while leaving');
  } finally {
    for (const stop of loops) await stop();
    await Promise.all([a.close(), c.close(), n.close()]);
  }
});
