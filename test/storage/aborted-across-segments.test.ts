// read_committed across segment boundaries: an aborted transaction's .txnindex entry lives in
// the segment of its abort marker, which may be many segments after the records a fetch
// returns. Random interleavings of transactional and plain batches over several segment sizes;
// every read_committed walk (a consumer's filtering of what the log returns) must yield exactly
// the records that are not aborted.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { batch, controlBatch, openManager, records, TOPIC_ID, tempDir } from './helpers.js';

/** Deterministic PRNG (mulberry32) so a failure names a reproducible seed. */
function rng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

test('read_committed filters aborted records whose marker is segments later (random logs)', async () => {
  for (const seed of [1, 2, 3, 4, 5, 6]) {
    const rand = rng(seed);
    const segmentBytes = [300, 600, 1500, 20_000][seed % 4]!;
    const { dir, cleanup } = tempDir();
    try {
      const mgr = await openManager(dir, { defaults: { segmentBytes } });
      const log = await mgr.createLog('t', 0, { topicId: TOPIC_ID });
      const open = new Map<bigint, number>(); // producer → its open transaction's number
      const nextSeq = new Map<bigint, number>();
      const txnOutcome = new Map<string, 'commit' | 'abort'>(); // `${pid}-${txn}` → outcome
      const txnCount = new Map<bigint, number>();
      const valueOwner = new Map<string, string>(); // value → txn key (transactional records)
      const appended: string[] = []; // every record value in log order
      let plain = 0;
      for (let step = 0; step < 160; step++) {
        const pid = BigInt(1 + Math.floor(rand() * 3));
        const roll = rand();
        const state = open.get(pid);
        if (roll < 0.2) {
          const n = 1 + Math.floor(rand() * 3);
          await log.appendAsLeader(batch(n, `plain${plain}`), 0);
          for (let i = 0; i < n; i++) appended.push(`plain${plain}-${i}`);
          plain++;
        } else if (state !== undefined && roll < 0.35) {
          const commit = rand() < 0.5;
          await log.appendAsLeader(controlBatch(pid, 0, commit ? 'COMMIT' : 'ABORT'), 0, {
            origin: 'coordinator',
          });
          txnOutcome.set(`${pid}-${state}`, commit ? 'commit' : 'abort');
          open.delete(pid);
        } else {
          const txn = state ?? txnCount.get(pid) ?? 0;
          if (state === undefined) txnCount.set(pid, txn + 1);
          const seq = nextSeq.get(pid) ?? 0;
          const n = 1 + Math.floor(rand() * 4);
          const prefix = `p${pid}-t${txn}-s${seq}`;
          await log.appendAsLeader(
            batch(n, prefix, { producerId: pid, producerEpoch: 0, baseSequence: seq, transactional: true }),
            0,
          );
          for (let i = 0; i < n; i++) {
            valueOwner.set(`${prefix}-${i}`, `${pid}-${txn}`);
            appended.push(`${prefix}-${i}`);
          }
          open.set(pid, txn);
          nextSeq.set(pid, seq + n);
        }
        log.setHighWatermark(log.logEndOffset);
      }
      // Close what is still open so the whole log is stable: abort everything left.
      for (const [pid, txn] of open) {
        await log.appendAsLeader(controlBatch(pid, 0, 'ABORT'), 0, { origin: 'coordinator' });
        txnOutcome.set(`${pid}-${txn}`, 'abort');
      }
      log.setHighWatermark(log.logEndOffset);
      assert.equal(log.lastStableOffset, log.logEndOffset);

      assert.ok(log.segmentCount > 3 || segmentBytes >= 20_000, 'the log spans several segments');
      // Walk the log as a consumer does, with a small maxBytes so fetches end mid-log, and
      // filter with the aborted list each fetch returned (the consumer's algorithm).
      const got: string[] = [];
      let offset = 0n;
      const maxBytes = 200 + Math.floor(rand() * 400);
      while (offset < log.lastStableOffset) {
        const r = await log.read(offset, { maxBytes, upperBound: 'lso', minOneBatch: true });
        assert.ok(r.records.length > 0, `seed ${seed}: empty read at ${offset}`);
        offset = consume(r.records, r.abortedTransactions ?? [], offset, got);
      }
      const expected = appended.filter((v) => {
        const owner = valueOwner.get(v);
        return owner === undefined || txnOutcome.get(owner) === 'commit';
      });
      assert.ok(expected.length < appended.length, 'some records were aborted');
      assert.deepEqual(got, expected, `seed ${seed}, segment.bytes ${segmentBytes}`);
      await mgr.close();
    } finally {
      cleanup();
    }
  }
});

/**
 * A read_committed consumer's filter (Kafka's Fetcher): aborted transactions sorted by first
 * offset; a producer's batches are skipped from its aborted first offset until its ABORT
 * marker. Returns the next fetch offset.
 */
function consume(
  buf: Buffer,
  aborted: { producerId: bigint; firstOffset: bigint }[],
  fetchOffset: bigint,
  out: string[],
): bigint {
  const queue = [...aborted].sort((a, b) => (a.firstOffset < b.firstOffset ? -1 : 1));
  const skipping = new Set<bigint>();
  let next = fetchOffset;
  for (let pos = 0; pos + 61 <= buf.length; ) {
    const size = 12 + buf.readInt32BE(pos + 8);
    const base = buf.readBigInt64BE(pos);
    const attrs = buf.readInt16BE(pos + 21);
    const lastDelta = buf.readInt32BE(pos + 23);
    const pid = buf.readBigInt64BE(pos + 43);
    const control = (attrs & 0x20) !== 0;
    const transactional = (attrs & 0x10) !== 0;
    while (queue.length > 0 && queue[0]!.firstOffset <= base + BigInt(lastDelta)) {
      skipping.add(queue.shift()!.producerId);
    }
    const one = buf.subarray(pos, pos + size);
    if (control) {
      // A marker ends the producer's aborted range (ABORT) — either way it is not a record.
      skipping.delete(pid);
    } else if (!(transactional && skipping.has(pid))) {
      for (const r of records(one)) if (r.offset >= fetchOffset) out.push(r.value!);
    }
    next = base + BigInt(lastDelta) + 1n;
    pos += size;
  }
  return next;
}
