// The replica fetcher fetches in an incremental fetch session (KIP-227), as Kafka's followers do:
// the leader holds one privileged session per follower with that follower's partitions, and the
// follower keeps catching up through it (its epoch advancing) instead of opening a new session
// or going sessionless.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { BrokerHandle } from '../../../src/broker/broker.js';
import { ErrorCode } from '../../../src/protocol/errors.js';
import { batch } from '../../storage/helpers.js';
import { InProcessCluster, produceTo, waitUntil } from './support/cluster.js';

const TOPICS = ['fs-a', 'fs-b', 'fs-c'];

async function createTopics(b: BrokerHandle): Promise<void> {
  for (const name of TOPICS)
    await b.services.commands.createTopic({
      name,
      numPartitions: -1,
      replicationFactor: -1,
      assignments: [{ partitionIndex: 0, brokerIds: [1, 2] }],
      configs: {},
    });
}

async function produceAll(c: InProcessCluster, round: number): Promise<void> {
  for (const topic of TOPICS) {
    const r = await produceTo(
      c.broker(1),
      topic,
      0,
      batch(4, 'x', { values: [`${round}a`, `${round}b`, `${round}c`, `${round}d`] }),
      1,
    );
    assert.equal(r.errorCode, ErrorCode.NONE);
  }
}

async function caughtUp(c: InProcessCluster, end: bigint): Promise<void> {
  await waitUntil(`the follower at offset ${end} of every topic`, () =>
    TOPICS.every(
      (t) => c.partition(2, t)?.log.logEndOffset === end && c.partition(1, t)?.log.highWatermark === end,
    ),
  );
}

test('a follower fetches through one incremental session on its leader, its epoch advancing', async () => {
  const c = await InProcessCluster.start([1, 2], { 'replica.fetch.backoff.ms': 100 });
  try {
    await createTopics(c.broker(1));
    await waitUntil('broker 1 leads and 2 follows every topic', () =>
      TOPICS.every((t) => c.partition(1, t)?.isLeader === true && c.partition(2, t)?.leaderId === 1),
    );
    await produceAll(c, 0);
    await caughtUp(c, 4n);
    const cache = c.broker(1).services.fetchSessions;
    assert.ok(cache !== undefined, 'the broker has a fetch session cache');
    const held = () => [...cache.values()].filter((s) => s.privileged);
    await waitUntil('the leader holds the follower session with its three partitions', () =>
      held().some((s) => s.partitions.size === TOPICS.length),
    );
    assert.equal(held().length, 1, 'one session per follower');
    const session = held()[0]!;
    const { id, epoch } = session;
    for (let round = 1; round <= 5; round++) await produceAll(c, round);
    await caughtUp(c, 24n);
    await waitUntil('the session used again', () => (cache.get(id)?.epoch ?? 0) > epoch + 1);
    assert.equal(held().length, 1, 'still one session: the follower did not open another');
    assert.equal(cache.get(id)?.partitions.size, TOPICS.length);
    // The follower's broker holds no session of its own: nobody fetches from it.
    assert.equal([...(c.broker(2).services.fetchSessions?.values() ?? [])].length, 0);
  } finally {
    await c.close();
  }
});
