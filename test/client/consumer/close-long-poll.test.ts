// close() with a Fetch long poll in flight returns as soon as the group work is done — the final
// auto commit and LeaveGroup — instead of waiting for the poll to end (Kafka's consumer abandons
// in-flight fetches on close). The long poll here lasts FETCH_WAIT_MS on an idle topic, and a
// close bounded well below it shows the poll was not awaited; a broker reads a connection's next
// request only after answering the previous one, so the fetch session is closed over a
// connection of its own. A child process shows that nothing keeps the process alive after close.
// Producer.close() and Admin.close() with nothing to do are prompt as well.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { Admin } from '../../../src/client/admin/admin.js';
import type { GroupProtocol } from '../../../src/client/consumer/consumer-config.js';
import { Producer } from '../../../src/client/producer/producer.js';
import type { TestBroker } from '../../../src/testkit/index.js';
import { spawnModule } from '../patterns/crash-support.js';
import { until } from '../patterns/support.js';
import { broker, consumer, createTopic, pollN, produce, sleep } from './support.js';

/** The Fetch long poll: a close that waited for it would take this long. */
const FETCH_WAIT_MS = 30_000;
/** How long a close may take: a third of the long poll (generous: it takes milliseconds). */
const CLOSE_BOUND_MS = 10_000;

let b: TestBroker;
before(async () => {
  b = await broker();
});
after(async () => {
  await b?.close();
});

/**
 * Consumes the topic's 5 records in group `group`, lets the next Fetch park (nothing more is
 * produced), then closes, and checks: close() was prompt, the fetch session is gone, the member
 * left the group (no session timeout involved), and the final positions were committed — the
 * only commit, auto.commit.interval.ms being far longer than the test — so that a new member of
 * the group starts there.
 */
async function closeDuringLongPoll(groupProtocol: GroupProtocol): Promise<void> {
  const topic = `close-long-poll-${groupProtocol}`;
  const group = `close-long-poll-${groupProtocol}`;
  await createTopic(b, topic, 1);
  await produce(b, topic, 5);
  const c = consumer(b, {
    groupId: group,
    groupProtocol,
    fetchMaxWaitMs: FETCH_WAIT_MS,
    autoCommitIntervalMs: 600_000,
    sessionTimeoutMs: 45_000,
  });
  let closeMs: number;
  try {
    c.subscribe([topic]);
    assert.equal((await pollN(c, 5)).length, 5);
    // The Fetch that followed the records' waits for more, which never come.
    assert.deepEqual(await c.poll(500), []);
    assert.equal(b.services.fetchSessions!.size, 1, 'the consumer holds a fetch session');
  } finally {
    const started = Date.now();
    await c.close();
    closeMs = Date.now() - started;
  }
  assert.ok(
    closeMs < CLOSE_BOUND_MS,
    `close() took ${closeMs} ms with a ${FETCH_WAIT_MS} ms long poll in flight: it waited for the poll`,
  );
  assert.equal(b.services.fetchSessions!.size, 0, 'close() closed the fetch session');

  const admin = new Admin({ bootstrapServers: b.bootstrap });
  try {
    const [g] = await admin.describeGroups([group]);
    assert.deepEqual(g?.members, [], 'the member left the group on close');
    assert.deepEqual(
      (await admin.listConsumerGroupOffsets(group)).map((o) => `${o.topic}-${o.partition}@${o.offset}`),
      [`${topic}-0@5`],
      'close() committed the final position',
    );
  } finally {
    await admin.close();
  }
  await produce(b, topic, 3, 1, 5);
  const next = consumer(b, { groupId: group, groupProtocol });
  try {
    next.subscribe([topic]);
    const records = await pollN(next, 3);
    assert.deepEqual(
      records.map((r) => r.offset),
      [5n, 6n, 7n],
      'a new member starts at the committed position',
    );
  } finally {
    await next.close();
  }
}

test('classic group: close() during a Fetch long poll commits, leaves and returns at once', async () => {
  await closeDuringLongPoll('classic');
});

test("groupProtocol 'consumer': close() during a Fetch long poll commits, leaves and returns at once", async () => {
  await closeDuringLongPoll('consumer');
});

test('a process exits right after close(): no connection waits for an abandoned long poll', async () => {
  const topic = 'close-long-poll-exit';
  await createTopic(b, topic, 1);
  await produce(b, topic, 5);
  const child = spawnModule('test/client/consumer/close-long-poll-child.ts', [
    b.bootstrap,
    topic,
    String(FETCH_WAIT_MS),
  ]);
  try {
    const line = await child.waitLine((l) => l.startsWith('closed '), 120_000);
    const closedAt = Date.now();
    await until(() => !child.running, 60_000, 'the consumer child to exit after close()');
    const exitMs = Date.now() - closedAt;
    assert.equal(await child.exited, 0, child.stderr);
    const closeMs = Number(line.slice('closed '.length));
    assert.ok(closeMs < CLOSE_BOUND_MS, `close() in the child took ${closeMs} ms`);
    assert.ok(exitMs < CLOSE_BOUND_MS, `the child exited ${exitMs} ms after close()`);
  } finally {
    if (child.running) await child.kill('SIGKILL');
  }
});

test('Producer.close() and Admin.close() with nothing in flight are prompt', async () => {
  const topic = 'close-idle-clients';
  await createTopic(b, topic, 1);
  const p = new Producer({ bootstrapServers: b.bootstrap });
  await p.send({ topic, value: 'one' });
  await sleep(200);
  let started = Date.now();
  await p.close();
  const producerMs = Date.now() - started;
  const admin = new Admin({ bootstrapServers: b.bootstrap });
  await admin.listTopics();
  started = Date.now();
  await admin.close();
  const adminMs = Date.now() - started;
  assert.ok(producerMs < CLOSE_BOUND_MS, `Producer.close() took ${producerMs} ms`);
  assert.ok(adminMs < CLOSE_BOUND_MS, `Admin.close() took ${adminMs} ms`);
});
