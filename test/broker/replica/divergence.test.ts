// Leader epochs and truncation (KIP-101, KIP-279): the scenarios where a follower's log went on
// differently from its new leader's all end with identical logs, batch for batch. Real logs on
// disk; the leader side is `readForFollower` (the Fetch handler's), the follower side
// `applyFetchedPartition` (the replica fetcher's) — see support/sim.ts.

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { followerTruncation } from '../../../src/broker/replica/divergence.js';
import { ErrorCode } from '../../../src/protocol/errors.js';
import type { EpochEndOffset } from '../../../src/storage/index.js';
import { batch } from '../../storage/helpers.js';
import { SimBroker, SimEnv } from './support/sim.js';

async function brokers(n: number): Promise<{ env: SimEnv; b: SimBroker[]; close(): Promise<void> }> {
  const env = new SimEnv();
  const b: SimBroker[] = [];
  for (let i = 1; i <= n; i++) b.push(await SimBroker.start(i, env));
  return { env, b, close: async () => Promise.all(b.map((x) => x.close())).then(() => {}) };
}

async function assertIdentical(a: SimBroker, b: SimBroker, expected: string[]): Promise<void> {
  assert.deepEqual(await a.entries(), expected);
  assert.deepEqual(await b.entries(), expected);
  const [x, y] = [await a.batches(), await b.batches()];
  assert.equal(x.length, y.length);
  x.forEach((bytes, i) => {
    assert.ok(bytes.equals(y[i]!), `batch ${i} differs`);
  });
}

test('followerTruncation: no epoch here → the leader offset; another epoch → intermediate; same → the smaller end', () => {
  const log = (entries: Record<number, EpochEndOffset>, leo: bigint) => ({
    logEndOffset: leo,
    endOffsetForEpoch: (e: number) => entries[e] ?? { leaderEpoch: -1, endOffset: -1n },
  });
  assert.deepEqual(followerTruncation({ epoch: 3, endOffset: 7n }, log({}, 10n)), {
    offset: 7n,
    complete: true,
  });
  assert.deepEqual(followerTruncation({ epoch: 3, endOffset: 70n }, log({}, 10n)), {
    offset: 10n,
    complete: true,
  });
  assert.deepEqual(
    followerTruncation({ epoch: 3, endOffset: 7n }, log({ 3: { leaderEpoch: 2, endOffset: 5n } }, 10n)),
    {
      offset: 5n,
      complete: false,
    },
  );
  assert.deepEqual(
    followerTruncation({ epoch: 3, endOffset: 7n }, log({ 3: { leaderEpoch: 3, endOffset: 9n } }, 10n)),
    {
      offset: 7n,
      complete: true,
    },
  );
  assert.deepEqual(
    followerTruncation({ epoch: 3, endOffset: 9n }, log({ 3: { leaderEpoch: 3, endOffset: 6n } }, 10n)),
    {
      offset: 6n,
      complete: true,
    },
  );
});

test('KIP-101 #1: a follower whose high watermark lagged keeps what it has across a leader change', async () => {
  const { b, close } = await brokers(2);
  const [a, f] = b as [SimBroker, SimBroker];
  try {
    a.become(1, 0, [1, 2], [1, 2]);
    f.become(1, 0, [1, 2], [1, 2]);
    await a.write('m1');
    await a.write('m2');
    await f.catchUp(a);
    assert.equal(a.log.highWatermark, 2n);
    // The follower learns the HW one fetch later: here it still has less.
    assert.ok(f.log.highWatermark < 2n);
    // The follower restarts (a new LeaderAndIsr, same leader): no truncation to its HW.
    a.become(1, 1, [1, 2], [1, 2]);
    f.become(1, 1, [1, 2], [1, 2]);
    await f.catchUp(a);
    assert.equal(f.log.logEndOffset, 2n);
    // The old leader dies; the follower leads and keeps both records.
    f.become(2, 2, [2], [1, 2]);
    await f.write('m3');
    a.become(2, 2, [2], [1, 2]);
    await a.catchUp(f);
    await assertIdentical(a, f, ['0:e0:m1', '1:e0:m2', '2:e2:m3']);
  } finally {
    await close();
  }
});

test('KIP-101 #2: replicas that diverged after a double failure end identical (the old leader truncates)', async () => {
  const { b, close } = await brokers(2);
  const [a, f] = b as [SimBroker, SimBroker];
  try {
    a.become(1, 0, [1, 2], [1, 2]);
    f.become(1, 0, [1, 2], [1, 2]);
    await a.write('m1');
    await f.catchUp(a);
    await a.write('m2'); // never replicated
    // Both fail; the follower comes back first and leads (epoch 1), writes at offset 1.
    f.become(2, 1, [2], [1, 2]);
    await f.write('m3');
    a.become(2, 1, [2], [1, 2]);
    const first = await a.fetchOnce(f);
    assert.deepEqual(first.divergingEpoch, { epoch: 0, endOffset: 1n });
    assert.equal(a.log.logEndOffset, 1n, 'truncated to the end of epoch 0 on the leader');
    await a.catchUp(f);
    await assertIdentical(a, f, ['0:e0:m1', '1:e1:m3']);
  } finally {
    await close();
  }
});

test('KIP-279: two fast leader changes — the follower truncates in the epoch both know', async () => {
  const { b, close } = await brokers(2);
  const [a, f] = b as [SimBroker, SimBroker];
  try {
    a.become(1, 1, [1, 2], [1, 2]);
    f.become(1, 1, [1, 2], [1, 2]);
    await a.write('m1');
    await f.catchUp(a);
    await a.write('m2'); // A only
    // A fails: B leads epoch 2 and writes at offset 1.
    f.become(2, 2, [2], [1, 2]);
    await f.write('m3');
    // A comes back as follower but B fails before A fetched: A leads epoch 3 with its own offset 1.
    a.become(2, 2, [2], [1, 2]);
    a.become(1, 3, [1], [1, 2]);
    await a.write('m4');
    // B returns as follower: the leader answers epoch 1 (the largest it has ≤ 2), ending at 2;
    // B's epoch 1 ends at 1, so B truncates to 1, not to 2 (which would keep its m3).
    f.become(1, 3, [1], [1, 2]);
    const first = await f.fetchOnce(a);
    assert.deepEqual(first.divergingEpoch, { epoch: 1, endOffset: 2n });
    assert.equal(f.log.logEndOffset, 1n);
    await f.catchUp(a);
    await assertIdentical(a, f, ['0:e1:m1', '1:e1:m2', '2:e3:m4']);
  } finally {
    await close();
  }
});

test('a follower that was ahead (the old leader) truncates to where the new leader started, even before its first write', async () => {
  const { b, close } = await brokers(2);
  const [a, f] = b as [SimBroker, SimBroker];
  try {
    a.become(1, 1, [1, 2], [1, 2]);
    f.become(1, 1, [1, 2], [1, 2]);
    await a.write('m1');
    await f.fetchOnce(a);
    await a.write('m2');
    await a.write('m3');
    // A fails; B leads epoch 2 with nothing written yet.
    f.become(2, 2, [2], [1, 2]);
    a.become(2, 2, [2], [1, 2]);
    const first = await a.fetchOnce(f);
    assert.deepEqual(first.divergingEpoch, { epoch: 1, endOffset: 1n });
    assert.equal(a.log.logEndOffset, 1n);
    await f.write('m4');
    await a.catchUp(f);
    await assertIdentical(a, f, ['0:e1:m1', '1:e2:m4']);
  } finally {
    await close();
  }
});

test('epochs the leader never saw: an intermediate truncation, then the final one', async () => {
  const { b, close } = await brokers(2);
  const [l, f] = b as [SimBroker, SimBroker];
  try {
    // Leader: e1 at 0-1, e3 at 2-3, e5 at 4. Follower: e1 at 0, e2 at 1-2, e4 at 3.
    for (const [epoch, v] of [
      [1, 'a'],
      [1, 'b'],
      [3, 'c'],
      [3, 'd'],
      [5, 'e'],
    ] as const)
      await l.log.appendAsLeader(batch(1, 'x', { values: [v], timestamp: 1000 }), epoch);
    for (const [epoch, v] of [
      [1, 'a'],
      [2, 'B'],
      [2, 'C'],
      [4, 'D'],
    ] as const)
      await f.log.appendAsLeader(batch(1, 'x', { values: [v], timestamp: 1000 }), epoch);
    l.become(1, 5, [1], [1, 2]);
    f.become(1, 5, [1], [1, 2]);
    const r1 = await f.fetchOnce(l);
    assert.deepEqual(r1.divergingEpoch, { epoch: 3, endOffset: 4n });
    assert.equal(f.log.logEndOffset, 3n, 'end of its epoch 2 (below 3): intermediate');
    const r2 = await f.fetchOnce(l);
    assert.deepEqual(r2.divergingEpoch, { epoch: 1, endOffset: 2n });
    assert.equal(f.log.logEndOffset, 1n);
    await f.catchUp(l);
    await assertIdentical(l, f, ['0:e1:a', '1:e1:b', '2:e3:c', '3:e3:d', '4:e5:e']);
  } finally {
    await close();
  }
});

test('the leader checks a follower fetch: current leader epoch, leadership, assigned replica, last fetched epoch', async () => {
  const { b, close } = await brokers(3);
  const [l, f] = b as [SimBroker, SimBroker];
  try {
    l.become(1, 4, [1, 2], [1, 2]);
    f.become(1, 4, [1, 2], [1, 2]);
    await l.write('m1');
    const { readForFollower } = await import('../../../src/broker/replica/follower-read.js');
    const fetch = (over: Partial<Parameters<typeof readForFollower>[1]>, on = l) =>
      readForFollower(on.partition, {
        replicaId: 2,
        replicaEpoch: -1n,
        fetchOffset: 0n,
        currentLeaderEpoch: 4,
        lastFetchedEpoch: -1,
        logStartOffset: 0n,
        maxBytes: 1 << 20,
        minOneBatch: true,
        updateFetchState: false,
        ...over,
      });
    assert.equal((await fetch({ currentLeaderEpoch: 3 })).errorCode, ErrorCode.FENCED_LEADER_EPOCH);
    assert.equal((await fetch({ currentLeaderEpoch: 5 })).errorCode, ErrorCode.UNKNOWN_LEADER_EPOCH);
    assert.equal((await fetch({}, f)).errorCode, ErrorCode.NOT_LEADER_OR_FOLLOWER);
    assert.equal((await fetch({ replicaId: 3 })).errorCode, ErrorCode.UNKNOWN_LEADER_EPOCH);
    assert.equal(
      (await fetch({ replicaId: 3, currentLeaderEpoch: -1 })).errorCode,
      ErrorCode.NOT_LEADER_OR_FOLLOWER,
    );
    // Above the HW (0): a follower reads up to the log end.
    const ok = await fetch({});
    assert.equal(ok.errorCode, ErrorCode.NONE);
    assert.equal(ok.highWatermark, 0n);
    assert.ok(ok.records.length > 0);
    // A last fetched epoch the leader cannot place (newer than all it has): out of range.
    assert.equal(
      (await fetch({ fetchOffset: 1n, lastFetchedEpoch: 9 })).errorCode,
      ErrorCode.OFFSET_OUT_OF_RANGE,
    );
    // Beyond the end of the follower's epoch on the leader: the diverging epoch, no records.
    const div = await fetch({ fetchOffset: 3n, lastFetchedEpoch: 4 });
    assert.deepEqual(div.divergingEpoch, { epoch: 4, endOffset: 1n });
    assert.equal(div.records.length, 0);
  } finally {
    await close();
  }
});

test('a new leader starts its epoch at its log end before writing; truncateTo(log end) drops such an empty epoch', async () => {
  const { b, close } = await brokers(1);
  const [a] = b as [SimBroker];
  try {
    a.become(1, 1, [1], [1]);
    await a.write('m1');
    a.become(1, 4, [1], [1]);
    assert.equal(a.log.latestEpoch, 4);
    assert.deepEqual(a.log.endOffsetForEpoch(1), { leaderEpoch: 1, endOffset: 1n });
    assert.deepEqual(a.log.endOffsetForEpoch(3), { leaderEpoch: 1, endOffset: 1n });
    await a.log.truncateTo(a.log.logEndOffset);
    assert.equal(a.log.latestEpoch, 1);
    assert.equal(a.log.logEndOffset, 1n);
  } finally {
    await close();
  }
});
