// Group coordinator requests travel on a connection of their own (as Java's consumer does): a
// broker answers one connection's requests in order, so on the fetch connection a commitSync would
// wait behind a Fetch long poll for up to fetch.max.wait.ms. Here that wait is practically
// endless (nothing is produced while the Fetch waits), so a commit that queued behind it would
// time out; it must be answered while the poll is still waiting.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import type { Consumer } from '../../../src/client/consumer/index.js';
import type { TestBroker } from '../../../src/testkit/index.js';
import { scaled, TestTimeoutError } from '../../support/timeouts.js';
import { broker, consumer, createTopic, pollN, produce, sleep } from './support.js';

const ASSIGNED = 'commit-connection-assign';
const SUBSCRIBED = 'commit-connection-group';
/** The Fetch long poll: far longer than any liveness limit below. */
const FETCH_WAIT_MS = 600_000;

let b: TestBroker;
before(async () => {
  b = await broker();
  for (const topic of [ASSIGNED, SUBSCRIBED]) {
    await createTopic(b, topic, 1);
    await produce(b, topic, 10);
  }
});
after(async () => {
  await b?.close();
});

function within<T>(p: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new TestTimeoutError(what, ms)), ms);
  });
  return Promise.race([p, timeout]).finally(() => clearTimeout(timer));
}

/**
 * Consumes the 10 records, starts a poll whose Fetch waits for more, commits while it waits,
 * then produces one record to show the poll was indeed waiting (it returns that record).
 */
async function commitDuringLongPoll(c: Consumer, topic: string): Promise<void> {
  assert.equal((await pollN(c, 10)).length, 10);
  let polled = -1;
  const polling = c.poll(scaled(120_000)).then((records) => {
    polled = records.length;
  });
  await sleep(500); // the consumer sends its Fetch, which the broker parks
  for (let i = 0; i < 3; i++) {
    await within(
      c.commitSync([{ topic, partition: 0, offset: BigInt(3 + i) }]),
      scaled(20_000),
      'commitSync while a Fetch long poll waits on the same broker',
    );
  }
  assert.equal(polled, -1, 'the poll was still waiting when the commits were answered');
  const [committed] = await c.committed([{ topic, partition: 0 }]);
  assert.equal(committed?.offset, 5n);
  await produce(b, topic, 1, 1, 10);
  await within(polling, scaled(30_000), 'the waiting poll to return the new record');
  assert.equal(polled, 1);
}

test('assign(): commitSync is answered while a Fetch long poll waits on the same broker', async () => {
  const c = consumer(b, {
    groupId: 'commit-conn-assign',
    enableAutoCommit: false,
    fetchMaxWaitMs: FETCH_WAIT_MS,
  });
  try {
    c.assign([{ topic: ASSIGNED, partition: 0 }]);
    await commitDuringLongPoll(c, ASSIGNED);
  } finally {
    await c.close({ timeoutMs: 2000 }); // a Fetch still long-polls: do not wait for it
  }
});

test('subscribe(): commitSync and heartbeats are answered while a Fetch long poll waits', async () => {
  const c = consumer(b, {
    groupId: 'commit-conn-group',
    enableAutoCommit: false,
    fetchMaxWaitMs: FETCH_WAIT_MS,
    sessionTimeoutMs: 6000,
    heartbeatIntervalMs: 500,
  });
  try {
    c.subscribe([SUBSCRIBED]);
    await commitDuringLongPoll(c, SUBSCRIBED);
    // Heartbeats went to the coordinator during the long poll too: still the same member.
    assert.deepEqual(
      c.assignment().map((tp) => `${tp.topic}-${tp.partition}`),
      [`${SUBSCRIBED}-0`],
    );
  } finally {
    await c.close({ timeoutMs: 2000 }); // a Fetch still long-polls: do not wait for it
  }
});
