// The leader's bookkeeping of one partition (Partition): the high watermark follows the
// followers' fetches over the maximal ISR, ISR shrink after replica.lag.time.max.ms and expansion
// on catch-up (proposed one at a time, answers applied as Kafka does), and the waits of acks=all
// (min.insync.replicas, timeout, leadership loss). Real logs; a hand-moved clock.

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { FollowerState } from '../../../src/broker/replica/follower-state.js';
import { ErrorCode } from '../../../src/protocol/errors.js';
import { SimBroker, SimEnv } from './support/sim.js';

async function cluster(): Promise<{
  env: SimEnv;
  l: SimBroker;
  f2: SimBroker;
  f3: SimBroker;
  close(): Promise<void>;
}> {
  const env = new SimEnv();
  const [l, f2, f3] = [
    await SimBroker.start(1, env),
    await SimBroker.start(2, env),
    await SimBroker.start(3, env),
  ];
  l.become(1, 1, [1, 2, 3]);
  f2.become(1, 1, [1, 2, 3]);
  f3.become(1, 1, [1, 2, 3]);
  return {
    env,
    l,
    f2,
    f3,
    close: () => Promise.all([l.close(), f2.close(), f3.close()]).then(() => {}),
  };
}

/** Resolves the promise's state without waiting: 'pending' or its value. */
async function peek<T>(p: Promise<T>): Promise<T | 'pending'> {
  return Promise.race([p, new Promise<'pending'>((r) => setImmediate(() => r('pending')))]);
}

test('the high watermark waits for every ISR member to have the data, never moves back', async () => {
  const { l, f2, f3, close } = await cluster();
  try {
    await l.write('a');
    await l.write('b');
    assert.equal(l.log.logEndOffset, 2n);
    assert.equal(l.log.highWatermark, 0n);
    await f2.catchUp(l);
    assert.equal(l.log.highWatermark, 0n, 'follower 3 has not fetched');
    await f3.fetchOnce(l); // gets the data, at offset 0
    assert.equal(l.log.highWatermark, 0n);
    await f3.fetchOnce(l); // now at 2
    assert.equal(l.log.highWatermark, 2n);
    // A follower's fetch answers the HW seen before its own position counted.
    const r = await f3.fetchOnce(l);
    assert.equal(r.highWatermark, 2n);
    assert.equal(f3.log.highWatermark, 2n, 'follower HW = min(leader HW, own log end)');
    // A follower fetching an older offset (after a truncation) cannot pull the HW back.
    l.partition.recordFollowerFetch(2, 1n, 0n, 2n, -1n);
    assert.equal(l.log.highWatermark, 2n);
  } finally {
    await close();
  }
});

test('acks=all waits: committed, timed out, or NOT_LEADER_OR_FOLLOWER when leadership moves', async () => {
  const { l, f2, f3, close } = await cluster();
  try {
    await l.write('a');
    const committed = l.partition.waitForHighWatermark(1n, 60_000, 2);
    const lost = l.partition.waitForHighWatermark(1n, 60_000, 2);
    assert.equal(await peek(committed), 'pending');
    assert.equal(await l.partition.waitForHighWatermark(1n, 30, 2), ErrorCode.REQUEST_TIMED_OUT);
    assert.equal(await l.partition.waitForHighWatermark(1n, 0, 2), ErrorCode.REQUEST_TIMED_OUT);
    await f2.catchUp(l);
    assert.equal(await peek(committed), 'pending');
    await f3.catchUp(l);
    assert.equal(await committed, ErrorCode.NONE);
    assert.equal(await lost, ErrorCode.NONE);
    await l.write('b');
    const moved = l.partition.waitForHighWatermark(2n, 60_000, 2);
    l.become(2, 2, [1, 2, 3]);
    assert.equal(await moved, ErrorCode.NOT_LEADER_OR_FOLLOWER);
    assert.equal(await l.partition.waitForHighWatermark(2n, 60_000), ErrorCode.NOT_LEADER_OR_FOLLOWER);
  } finally {
    await close();
  }
});

test('ISR shrink after replica.lag.time.max.ms: NOT_ENOUGH_REPLICAS_AFTER_APPEND, then NOT_ENOUGH_REPLICAS', async () => {
  const { env, l, f2, close } = await cluster();
  try {
    env.lagMs = 1000;
    await l.write('a');
    await f2.catchUp(l);
    const waiting = l.partition.waitForHighWatermark(1n, 60_000, 3);
    l.partition.maybeShrinkIsr();
    assert.equal(env.proposals.length, 0, 'nobody lags longer than the lag time yet');
    env.nowMs += 1001;
    await f2.fetchOnce(l); // follower 2 is caught up (at the log end), 3 is not
    l.partition.maybeShrinkIsr();
    assert.equal(env.proposals.length, 1);
    const p = env.proposals[0]!;
    assert.deepEqual(p.isr, [1, 2]);
    assert.deepEqual(
      p.isrWithEpochs.map((b) => [b.brokerId, b.brokerEpoch]),
      [
        [1, 7n],
        [2, -1n],
      ],
    );
    assert.equal(p.leaderEpoch, 1);
    // Until the controller answers, the maximal ISR still holds the HW back.
    assert.deepEqual(l.partition.maximalIsr, [1, 2, 3]);
    assert.equal(l.log.highWatermark, 0n);
    l.partition.maybeShrinkIsr();
    assert.equal(env.proposals.length, 1, 'one change in flight at a time');
    assert.equal(env.accept(p), false);
    assert.deepEqual(l.partition.isr, [1, 2]);
    assert.equal(l.partition.partitionEpoch, p.partitionEpoch + 1);
    assert.equal(l.log.highWatermark, 1n);
    assert.equal(await waiting, ErrorCode.NOT_ENOUGH_REPLICAS_AFTER_APPEND);
    await assert.rejects(l.partition.appendAsLeader(Buffer.alloc(0), -1, 3), (e: { code?: number }) => {
      return e.code === ErrorCode.NOT_ENOUGH_REPLICAS;
    });
  } finally {
    await close();
  }
});

test('ISR expansion once a follower reaches the HW and this epoch start; the maximal ISR counts meanwhile', async () => {
  const { env, l, f2, f3, close } = await cluster();
  try {
    await l.write('a');
    await l.write('b');
    // Epoch 2 with ISR {1, 2}: the epoch starts at 2, the HW is 0 (2 has not fetched yet).
    l.become(1, 2, [1, 2]);
    f2.become(1, 2, [1, 2]);
    f3.become(1, 2, [1, 2]);
    // Follower 3 is out of the ISR of this epoch: it does not hold the HW back as one about to join.
    assert.equal(l.partition.leaderEpochStartOffset, 2n);
    await f3.fetchOnce(l); // at 0: ≥ HW (0) but below the epoch start
    assert.equal(env.proposals.length, 0);
    await f2.catchUp(l);
    assert.equal(l.log.highWatermark, 2n);
    await f3.fetchOnce(l); // reaches 2
    assert.equal(env.proposals.length, 1);
    const p = env.proposals[0]!;
    assert.deepEqual(p.isr, [1, 2, 3]);
    assert.deepEqual(l.partition.maximalIsr, [1, 2, 3]);
    // While the expansion is pending, the HW also waits for follower 3.
    await l.write('c');
    await f2.catchUp(l);
    assert.equal(l.log.highWatermark, 2n);
    await f3.catchUp(l);
    assert.equal(l.log.highWatermark, 3n);
    env.accept(p);
    assert.deepEqual(l.partition.isr, [1, 2, 3]);
    assert.equal(l.partition.isrChangePending, false);
  } finally {
    await close();
  }
});

test('AlterPartition answers: reverted, kept until LeaderAndIsr, retried, or moot after a LeaderAndIsr', async () => {
  const { env, l, f2, close } = await cluster();
  try {
    env.lagMs = 1000;
    await l.write('a');
    await f2.catchUp(l);
    env.nowMs += 1001;
    await f2.fetchOnce(l);
    const answer = (errorCode: number) => ({
      partitionIndex: 0,
      errorCode,
      leaderId: -1,
      leaderEpoch: -1,
      isr: [],
      leaderRecoveryState: 0,
      partitionEpoch: -1,
    });
    l.partition.maybeShrinkIsr();
    const p1 = env.proposals.at(-1)!;
    assert.equal(p1.onAnswer(answer(ErrorCode.OPERATION_NOT_ATTEMPTED)), false);
    assert.equal(l.partition.isrChangePending, false, 'reverted: may propose again');
    l.partition.maybeShrinkIsr();
    const p2 = env.proposals.at(-1)!;
    assert.notEqual(p2, p1);
    assert.equal(p2.onAnswer(answer(ErrorCode.NETWORK_EXCEPTION)), true, 'unexpected: retried');
    assert.equal(p2.onAnswer(answer(ErrorCode.INVALID_UPDATE_VERSION)), false);
    assert.equal(l.partition.isrChangePending, true, 'waits for the LeaderAndIsr');
    l.partition.maybeShrinkIsr();
    assert.equal(env.proposals.at(-1), p2);
    // The controller's LeaderAndIsr (same leader, newer epoch) replaces the pending change.
    l.become(1, 2, [1, 2]);
    assert.equal(l.partition.isrChangePending, false);
    assert.equal(env.accept(p2), false);
    assert.deepEqual(l.partition.isr, [1, 2], 'a late answer to a replaced proposal is ignored');
  } finally {
    await close();
  }
});

test("FollowerState: Kafka's lastCaughtUpTime rules", () => {
  const f = new FollowerState(0);
  f.updateFetchState(5n, 0n, 1000, 5n, -1n);
  assert.equal(f.lastCaughtUpTimeMs, 1000, 'at the leader end');
  f.updateFetchState(5n, 0n, 2000, 9n, -1n);
  assert.equal(f.lastCaughtUpTimeMs, 1000, 'behind, but had what the leader had at the previous fetch');
  f.updateFetchState(9n, 0n, 3000, 12n, -1n);
  assert.equal(f.lastCaughtUpTimeMs, 2000, 'caught up to the previous fetch time');
  assert.equal(f.isCaughtUp(12n, 2000 + 1000, 1000), true);
  assert.equal(f.isCaughtUp(12n, 2000 + 1001, 1000), false);
  assert.equal(f.isCaughtUp(9n, 99_999, 1000), true, 'at the leader end');
});
