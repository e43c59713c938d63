// Liveness: heartbeats run on their own timer, so a handler slower than session.timeout.ms (but
// within max.poll.interval.ms) keeps its membership; a consumer that stops polling for longer
// than max.poll.interval.ms leaves the group, says so, and gets its partitions reported lost.
// Also: pattern subscriptions pick up new matching topics after a metadata refresh.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import type { ConsumerRecord } from '../../../src/client/consumer/index.js';
import type { TestBroker } from '../../../src/testkit/index.js';
import { until } from './group-worker.js';
import { broker, consumer, createTopic, pollN, produce, sleep } from './support.js';

let b: TestBroker;
before(async () => {
  b = await broker();
  await createTopic(b, 'live', 2);
  await produce(b, 'live', 20, 2);
});
after(async () => {
  await b?.close();
});

test('a handler slower than the session timeout keeps its membership', async () => {
  const slow = consumer(b, {
    groupId: 'slow',
    sessionTimeoutMs: 6000,
    heartbeatIntervalMs: 1000,
    maxPollIntervalMs: 30000,
    maxPollRecords: 1,
  });
  const other = consumer(b, { groupId: 'slow', sessionTimeoutMs: 6000, heartbeatIntervalMs: 1000 });
  let lost = 0;
  slow.subscribe(['live'], { onPartitionsLost: () => void lost++ });
  other.subscribe(['live']);
  let stop = false;
  const otherLoop = (async () => {
    while (!stop) await other.poll(100);
  })();
  try {
    const deadline = Date.now() + 15000;
    const first: ConsumerRecord[] = [];
    while (
      (slow.assignment().length !== 1 || other.assignment().length !== 1 || first.length === 0) &&
      Date.now() < deadline
    ) {
      first.push(...(await slow.poll(100)));
    }
    assert.equal(first.length, 1);
    const gen = slow.groupMetadata().generationId;
    await sleep(7500); // "processing" longer than session.timeout.ms
    const next = await slow.poll(1000);
    assert.equal(next.length, 1, 'still consuming its partition');
    assert.equal(slow.groupMetadata().generationId, gen, 'no rebalance happened');
    assert.equal(lost, 0);
    assert.equal(slow.assignment().length, 1);
  } finally {
    stop = true;
    await otherLoop;
    await slow.close();
    await other.close();
  }
});

test('exceeding max.poll.interval.ms leaves the group, logs why, and loses the partitions', async () => {
  const warnings: string[] = [];
  const stalled = consumer(b, {
    groupId: 'stall',
    maxPollIntervalMs: 1500,
    logger: (level, message) => {
      if (level === 'warn') warnings.push(message);
    },
  });
  const other = consumer(b, { groupId: 'stall' });
  const events: string[] = [];
  stalled.subscribe(['live'], {
    onPartitionsAssigned: (p) => void events.push(`assigned ${p.length}`),
    onPartitionsRevoked: (p) => void events.push(`revoked ${p.length}`),
    onPartitionsLost: (p) => void events.push(`lost ${p.length}`),
  });
  other.subscribe(['live']);
  let stop = false;
  const otherLoop = (async () => {
    while (!stop) await other.poll(100);
  })();
  try {
    const deadline = Date.now() + 15000;
    while ((stalled.assignment().length !== 1 || other.assignment().length !== 1) && Date.now() < deadline)
      await stalled.poll(100);
    assert.equal(stalled.assignment().length, 1);
    await sleep(3500); // no poll: the heartbeat timer notices and leaves
    assert.ok(
      warnings.some((w) => w.includes('max.poll.interval.ms')),
      `warned: ${warnings.join(' | ')}`,
    );
    await until(() => other.assignment().length === 2, 10000, 'the other member takes every partition');
    // The next poll reports the partitions lost (not revoked: no commit possible) and rejoins.
    const deadline2 = Date.now() + 15000;
    while ((!events.includes('lost 1') || stalled.assignment().length !== 1) && Date.now() < deadline2)
      await stalled.poll(100);
    assert.ok(events.includes('lost 1'), `events: ${events.join(', ')}`);
    assert.ok(!events.includes('revoked 1'));
    assert.equal(stalled.assignment().length, 1, 'rejoined');
  } finally {
    stop = true;
    await otherLoop;
    await stalled.close();
    await other.close();
  }
});

test('subscribe(RegExp): a new matching topic joins the subscription after a metadata refresh', async () => {
  await createTopic(b, 'pat-a', 1);
  await produce(b, 'pat-a', 5, 1);
  const c = consumer(b, { groupId: 'pattern', metadataMaxAgeMs: 300 });
  try {
    c.subscribe(/^pat-/);
    const first = await pollN(c, 5);
    assert.deepEqual([...new Set(first.map((r) => r.topic))], ['pat-a']);
    await createTopic(b, 'pat-b', 2);
    await createTopic(b, 'other-b', 1);
    await produce(b, 'pat-b', 6, 2);
    const more = await pollN(c, 6);
    assert.deepEqual([...new Set(more.map((r) => r.topic))], ['pat-b']);
    assert.deepEqual(c.subscription().sort(), ['pat-a', 'pat-b']);
    assert.deepEqual(
      c
        .assignment()
        .map((t) => `${t.topic}-${t.partition}`)
        .sort(),
      ['pat-a-0', 'pat-b-0', 'pat-b-1'],
    );
  } finally {
    await c.close();
  }
});
