// Idempotent producers across leader changes, on simulated replicas (Partition + real logs):
// - what Kafka guarantees: a follower builds the same duplicate window (the producer's last 5
//   batches) from the batches it replicates, also after truncating to its new leader, so a retry
//   of a written batch sent to a new leader is answered with its original offsets;
// - the batches a client pipelines behind one that a replica refused before its log saw it (not
//   the leader yet, fenced, ISR too small) get the same retriable refusal even when the replica
//   takes writes by the time they arrive, instead of OUT_OF_ORDER_SEQUENCE_NUMBER for the gap the
//   refused one left (which librdkafka 2.0.2 takes for fatal, librdkafka #4438) or, for a
//   producer the replica does not know, instead of being written before the refused batch.

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ErrorCode, KafkaError } from '../../../src/protocol/errors.js';
import type { AppendResult } from '../../../src/storage/index.js';
import { batch } from '../../storage/helpers.js';
import { SimBroker, SimEnv } from './support/sim.js';

const PID = 1000n;

/** An idempotent batch of `n` records from producer `pid` (epoch 1) starting at sequence `seq`. */
const idem = (n: number, seq: number, pid = PID, epoch = 1) =>
  batch(n, `p${pid}-s${seq}`, { producerId: pid, producerEpoch: epoch, baseSequence: seq });

const rejectsWith = async (p: Promise<unknown>, code: number, what: string) =>
  assert.rejects(p, (e: unknown) => {
    assert.ok(e instanceof KafkaError, `${what}: ${String(e)}`);
    assert.equal(e.code, code, `${what}: ${e.name} (${e.message})`);
    return true;
  });

async function brokers(): Promise<{ env: SimEnv; b: SimBroker[]; close(): Promise<void> }> {
  const env = new SimEnv();
  const b = [await SimBroker.start(1, env), await SimBroker.start(2, env), await SimBroker.start(3, env)];
  for (const x of b) x.become(1, 1, [1, 2, 3]);
  return { env, b, close: () => Promise.all(b.map((x) => x.close())).then(() => {}) };
}

/** Writes batches of the given sizes from PID through `leader` (acks=1); returns each batch's (seq, n, result). */
async function produce(leader: SimBroker, sizes: number[], firstSeq = 0) {
  const out: { seq: number; n: number; r: AppendResult }[] = [];
  let seq = firstSeq;
  for (const n of sizes) {
    out.push({ seq, n, r: await leader.partition.appendAsLeader(idem(n, seq), 1, 1) });
    seq += n;
  }
  return out;
}

test('a new leader answers a retry of any of the last 5 written batches with its original offsets; other retries are out of order', async () => {
  const { b, close } = await brokers();
  const [l, f2, f3] = b as [SimBroker, SimBroker, SimBroker];
  try {
    const written = await produce(l, [1, 3, 2, 1, 4, 2, 1]);
    await f2.catchUp(l);
    await f3.catchUp(l);
    // Broker 1 is gone; 2 leads, 3 follows it.
    f2.become(2, 2, [2, 3]);
    f3.become(2, 2, [2, 3]);
    for (const w of written.slice(-5)) {
      const r = await f2.partition.appendAsLeader(idem(w.n, w.seq), 1, 1);
      assert.equal(r.duplicate, true, `batch at sequence ${w.seq} is a duplicate`);
      assert.deepEqual([r.baseOffset, r.lastOffset], [w.r.baseOffset, w.r.lastOffset]);
    }
    for (const w of written.slice(0, 2))
      await rejectsWith(
        f2.partition.appendAsLeader(idem(w.n, w.seq), 1, 1),
        ErrorCode.OUT_OF_ORDER_SEQUENCE_NUMBER,
        `retry of batch ${w.seq} (outside the window)`,
      );
    // The same records batched differently (a sequence range no batch had) are not a duplicate.
    const w = written.at(-3)!; // 4 records
    await rejectsWith(
      f2.partition.appendAsLeader(idem(2, w.seq + 2), 1, 1),
      ErrorCode.OUT_OF_ORDER_SEQUENCE_NUMBER,
      'a range inside a written batch',
    );
    assert.equal(f2.log.logEndOffset, l.log.logEndOffset, 'nothing appended by the retries');
    const next = await f2.partition.appendAsLeader(idem(1, 14), 1, 1);
    assert.equal(next.duplicate, undefined);
    assert.equal(next.baseOffset, l.log.logEndOffset);
  } finally {
    await close();
  }
});

test('a follower that truncated to its new leader keeps the duplicate window of what it still holds', async () => {
  const { b, close } = await brokers();
  const [l, f2, f3] = b as [SimBroker, SimBroker, SimBroker];
  try {
    const committed = await produce(l, [2, 1, 3, 1, 2]);
    await f2.catchUp(l);
    await f3.catchUp(l);
    // Two more batches reach broker 3 only; then broker 1 dies and 2 is elected.
    const lost = await produce(l, [1, 2], 9);
    await f3.catchUp(l);
    assert.equal(f3.log.logEndOffset, l.log.logEndOffset);
    f2.become(2, 2, [2, 3]);
    f3.become(2, 2, [2, 3]);
    // The producer retries the two lost batches on the new leader: new appends there.
    const retried: AppendResult[] = [];
    for (const x of lost) retried.push(await f2.partition.appendAsLeader(idem(x.n, x.seq), 1, 1));
    assert.ok(retried.every((r) => r.duplicate === undefined));
    await f3.catchUp(f2); // truncates the diverging suffix, then fetches the retries
    assert.deepEqual(await f3.batches(), await f2.batches());
    // Broker 3 now leads: every batch of the window is a duplicate with the offsets 2 gave it.
    f3.become(3, 3, [2, 3]);
    f2.become(3, 3, [2, 3]);
    const window = [
      ...committed.slice(-3).map((c) => ({ ...c, at: c.r })),
      ...lost.map((x, i) => ({ ...x, at: retried[i]! })),
    ];
    for (const w of window) {
      const r = await f3.partition.appendAsLeader(idem(w.n, w.seq), 1, 1);
      assert.equal(r.duplicate, true, `batch at sequence ${w.seq}`);
      assert.deepEqual([r.baseOffset, r.lastOffset], [w.at.baseOffset, w.at.lastOffset]);
    }
  } finally {
    await close();
  }
});

test('batches pipelined behind one refused by a not-yet leader are refused alike once it leads (librdkafka #4438)', async () => {
  const { b, close } = await brokers();
  const [l, f2, f3] = b as [SimBroker, SimBroker, SimBroker];
  try {
    const written = await produce(l, [1, 1, 1]);
    await f2.catchUp(l);
    await f3.catchUp(l);
    // Broker 1 died with batches 3 (1 record) and 4..7 unanswered (a transport error: possibly
    // persisted). The producer sends both again to broker 2, which clients already see as the
    // leader while its LeaderAndIsr is still on the way.
    const b1 = idem(1, 3);
    const b2 = idem(4, 4);
    await rejectsWith(
      f2.partition.appendAsLeader(b1, -1, 2),
      ErrorCode.NOT_LEADER_OR_FOLLOWER,
      'first retry',
    );
    f2.become(2, 2, [2, 3]);
    f3.become(2, 2, [2, 3]);
    // Kafka would answer OUT_OF_ORDER_SEQUENCE_NUMBER here (sequence 3 is missing).
    await rejectsWith(
      f2.partition.appendAsLeader(b2, -1, 2),
      ErrorCode.NOT_LEADER_OR_FOLLOWER,
      'the batch pipelined behind it',
    );
    // A third one behind those two, and a gap nothing explains.
    await rejectsWith(
      f2.partition.appendAsLeader(idem(2, 8), -1, 2),
      ErrorCode.NOT_LEADER_OR_FOLLOWER,
      'third',
    );
    await rejectsWith(
      f2.partition.appendAsLeader(idem(1, 20), -1, 2),
      ErrorCode.OUT_OF_ORDER_SEQUENCE_NUMBER,
      'an unexplained gap',
    );
    assert.equal(f2.log.logEndOffset, 3n, 'nothing written');
    // The producer's next round: in order, then its retries are duplicates.
    const r1 = await f2.partition.appendAsLeader(idem(1, 3), -1, 2);
    const r2 = await f2.partition.appendAsLeader(idem(4, 4), -1, 2);
    const r3 = await f2.partition.appendAsLeader(idem(2, 8), -1, 2);
    assert.deepEqual([r1.baseOffset, r2.baseOffset, r2.lastOffset, r3.baseOffset], [3n, 4n, 7n, 8n]);
    const again = await f2.partition.appendAsLeader(idem(4, 4), -1, 2);
    assert.deepEqual([again.duplicate, again.baseOffset], [true, 4n]);
    // Refusals of the past do not hide a real gap later on.
    await rejectsWith(
      f2.partition.appendAsLeader(idem(1, 12), -1, 2),
      ErrorCode.OUT_OF_ORDER_SEQUENCE_NUMBER,
      'a gap after the refused batches were written',
    );
    assert.equal(written.length, 3);
  } finally {
    await close();
  }
});

test('fenced then unfenced, or the ISR growing back to min.insync.replicas: the batches behind a refused one get its answer', async () => {
  const { b, close } = await brokers();
  const [l, f2, f3] = b as [SimBroker, SimBroker, SimBroker];
  try {
    await produce(l, [2]);
    l.partition.fence(1n); // e.g. this broker found it did not run for half its session
    await rejectsWith(
      l.partition.appendAsLeader(idem(1, 2), 1, 1),
      ErrorCode.NOT_LEADER_OR_FOLLOWER,
      'fenced',
    );
    l.partition.unfence();
    await rejectsWith(
      l.partition.appendAsLeader(idem(1, 3), 1, 1),
      ErrorCode.NOT_LEADER_OR_FOLLOWER,
      'behind it',
    );
    await l.partition.appendAsLeader(idem(1, 2), 1, 1);
    await l.partition.appendAsLeader(idem(1, 3), 1, 1);
    // The ISR shrank to the leader alone: acks=all with min.insync.replicas 2 is refused.
    await f2.catchUp(l);
    await f3.catchUp(l);
    l.become(1, 2, [1]);
    await rejectsWith(
      l.partition.appendAsLeader(idem(2, 4), -1, 2),
      ErrorCode.NOT_ENOUGH_REPLICAS,
      'small ISR',
    );
    l.become(1, 3, [1, 2, 3]);
    await rejectsWith(
      l.partition.appendAsLeader(idem(1, 6), -1, 2),
      ErrorCode.NOT_ENOUGH_REPLICAS,
      'pipelined behind the refused one',
    );
    const r = await l.partition.appendAsLeader(idem(2, 4), -1, 2);
    assert.equal(r.baseOffset, 4n);
    assert.equal((await l.partition.appendAsLeader(idem(1, 6), -1, 2)).baseOffset, 6n);
  } finally {
    await close();
  }
});

test('a producer the new leader does not know yet: its second batch is not written before the refused first one', async () => {
  const { b, close } = await brokers();
  const [, f2, f3] = b as [SimBroker, SimBroker, SimBroker];
  try {
    const fresh = 2000n;
    await rejectsWith(
      f2.partition.appendAsLeader(idem(2, 0, fresh), -1, 2),
      ErrorCode.NOT_LEADER_OR_FOLLOWER,
      'first batch, not leader yet',
    );
    f2.become(2, 2, [2, 3]);
    f3.become(2, 2, [2, 3]);
    // Kafka accepts any sequence from an unknown producer: this one would land before sequences 0-1.
    await rejectsWith(
      f2.partition.appendAsLeader(idem(1, 2, fresh), -1, 2),
      ErrorCode.NOT_LEADER_OR_FOLLOWER,
      'second batch',
    );
    assert.equal((await f2.partition.appendAsLeader(idem(2, 0, fresh), -1, 2)).baseOffset, 0n);
    assert.equal((await f2.partition.appendAsLeader(idem(1, 2, fresh), -1, 2)).baseOffset, 2n);
    // Another unknown producer starting anywhere is still accepted (KIP-360).
    assert.equal((await f2.partition.appendAsLeader(idem(1, 77, 3000n), -1, 2)).baseOffset, 3n);
  } finally {
    await close();
  }
});

test('the refused predecessors are followed across the sequence wrap-around', async () => {
  const { b, close } = await brokers();
  const l = b[0]!;
  try {
    const max = 0x7fffffff;
    await l.partition.appendAsLeader(idem(2, max - 3), 1, 1); // max-3..max-2
    l.partition.fence(1n);
    await rejectsWith(
      l.partition.appendAsLeader(idem(2, max - 1), 1, 1),
      ErrorCode.NOT_LEADER_OR_FOLLOWER,
      'fenced',
    );
    l.partition.unfence();
    await rejectsWith(
      l.partition.appendAsLeader(idem(3, 0), 1, 1),
      ErrorCode.NOT_LEADER_OR_FOLLOWER,
      'after the wrap',
    );
    assert.equal((await l.partition.appendAsLeader(idem(2, max - 1), 1, 1)).baseOffset, 2n);
    assert.equal((await l.partition.appendAsLeader(idem(3, 0), 1, 1)).baseOffset, 4n);
  } finally {
    await close();
  }
});
