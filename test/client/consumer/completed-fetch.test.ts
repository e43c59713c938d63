// Decoding one partition's fetched data: aborted transactions and control records filtered,
// records below the fetch offset dropped, every codec, legacy magic 0/1 message sets, partial
// drains, and corrupt data → a typed error that repeats until the application seeks.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import { CompletedFetch, scanBatches } from '../../../src/client/consumer/completed-fetch.js';
import type { ConsumerRecord } from '../../../src/client/consumer/index.js';
import { PartitionState } from '../../../src/client/consumer/subscription-state.js';
import { KafkaResponseError } from '../../../src/client/errors.js';
import { crc32c } from '../../../src/protocol/crc32c.js';
import { ErrorCode } from '../../../src/protocol/errors.js';
import {
  encodeControlBatch,
  encodeRecordBatch,
  encodeRecordBatchSync,
} from '../../../src/protocol/record-batch/index.js';

const rec = (v: string) => ({
  key: Buffer.from(`k-${v}`),
  value: Buffer.from(v),
  timestamp: 1_700_000_000_000,
});

function fetchOf(
  data: Buffer,
  fetchOffset: bigint,
  aborted: { producerId: bigint; firstOffset: bigint }[] | null,
  readCommitted: boolean,
  checkCrcs = true,
) {
  const state = new PartitionState('t', 0);
  const scan = scanBatches(data);
  return {
    cf: new CompletedFetch(state, 0, fetchOffset, data, scan.end, aborted, readCommitted, checkCrcs),
    scan,
  };
}

async function drainAll(cf: CompletedFetch, max = 1000): Promise<ConsumerRecord[]> {
  const out: ConsumerRecord[] = [];
  for (;;) {
    const before = out.length;
    await cf.drain(out, out.length + max, null, null);
    if (out.length === before) return out;
  }
}

/** Producer 7: aborted txn (0-2); producer 8 plain (3-4); ABORT marker (5); producer 7 txn (6-7); COMMIT (8). */
function transactionalLog(): Buffer {
  return Buffer.concat([
    encodeRecordBatchSync([rec('a0'), rec('a1'), rec('a2')], {
      baseOffset: 0,
      producerId: 7,
      producerEpoch: 0,
      baseSequence: 0,
      transactional: true,
    }),
    encodeRecordBatchSync([rec('p3'), rec('p4')], {
      baseOffset: 3,
      producerId: 8,
      producerEpoch: 0,
      baseSequence: 0,
    }),
    encodeControlBatch({
      producerId: 7,
      producerEpoch: 0,
      type: 'ABORT',
      coordinatorEpoch: 0,
      baseOffset: 5,
      timestamp: 1,
    }),
    encodeRecordBatchSync([rec('c6'), rec('c7')], {
      baseOffset: 6,
      producerId: 7,
      producerEpoch: 0,
      baseSequence: 3,
      transactional: true,
    }),
    encodeControlBatch({
      producerId: 7,
      producerEpoch: 0,
      type: 'COMMIT',
      coordinatorEpoch: 0,
      baseOffset: 8,
      timestamp: 2,
    }),
  ]);
}

test('read_committed drops aborted transactions and every control record', async () => {
  const { cf, scan } = fetchOf(transactionalLog(), 0n, [{ producerId: 7n, firstOffset: 0n }], true);
  assert.equal(scan.nextOffset, 9n);
  const out = await drainAll(cf);
  assert.deepEqual(
    out.map((r) => r.value!.toString()),
    ['p3', 'p4', 'c6', 'c7'],
  );
  assert.deepEqual(
    out.map((r) => r.offset),
    [3n, 4n, 6n, 7n],
  );
  assert.equal(cf.nextFetchOffset, 9n, 'position moves past the trailing COMMIT marker');
  assert.ok(cf.done);
});

test('read_uncommitted returns aborted data but still never control records', async () => {
  const { cf } = fetchOf(transactionalLog(), 0n, null, false);
  const out = await drainAll(cf);
  assert.deepEqual(
    out.map((r) => r.value!.toString()),
    ['a0', 'a1', 'a2', 'p3', 'p4', 'c6', 'c7'],
  );
});

test('a fetch that starts mid-batch drops the records below the requested offset', async () => {
  const batch = encodeRecordBatchSync(
    Array.from({ length: 10 }, (_, i) => rec(`r${i}`)),
    { baseOffset: 100 },
  );
  const { cf } = fetchOf(batch, 104n, null, true);
  const out = await drainAll(cf);
  assert.deepEqual(
    out.map((r) => r.offset),
    [104n, 105n, 106n, 107n, 108n, 109n],
  );
});

test('partial drains resume where they stopped; a trailing partial batch is ignored', async () => {
  const full = Buffer.concat([
    encodeRecordBatchSync(
      Array.from({ length: 5 }, (_, i) => rec(`x${i}`)),
      { baseOffset: 0 },
    ),
    encodeRecordBatchSync(
      Array.from({ length: 5 }, (_, i) => rec(`y${i}`)),
      { baseOffset: 5 },
    ),
  ]);
  const truncated = full.subarray(0, full.length - 7);
  const { cf, scan } = fetchOf(truncated, 0n, null, true);
  assert.equal(scan.nextOffset, 5n);
  const out: ConsumerRecord[] = [];
  await cf.drain(out, 3, null, null);
  assert.equal(out.length, 3);
  assert.equal(cf.nextFetchOffset, 3n);
  await cf.drain(out, 100, null, null);
  assert.deepEqual(
    out.map((r) => r.offset),
    [0n, 1n, 2n, 3n, 4n],
  );
  assert.equal(cf.nextFetchOffset, 5n);
});

test('every codec decodes; headers, null keys and deserializers', async () => {
  for (const compression of ['none', 'gzip', 'snappy', 'lz4', 'zstd'] as const) {
    const batch = await encodeRecordBatch(
      [
        {
          key: null,
          value: Buffer.from('one'),
          headers: [{ key: 'h', value: Buffer.from('x') }],
          timestamp: 5,
        },
        { key: Buffer.from('k'), value: null, timestamp: 6 },
      ],
      { baseOffset: 0, compression },
    );
    const { cf } = fetchOf(batch, 0n, null, true);
    const out: ConsumerRecord<string | null, string | null>[] = [];
    await cf.drain(
      out,
      10,
      (b) => b?.toString() ?? null,
      (b) => b?.toString() ?? null,
    );
    assert.deepEqual(
      out.map((r) => [r.key, r.value, r.headers.map((h) => `${h.key}=${h.value}`), r.timestamp]),
      [
        [null, 'one', ['h=x'], 5],
        ['k', null, [], 6],
      ],
      compression,
    );
  }
});

test('legacy magic 0/1 message sets (kcat captures, every codec)', async () => {
  const lines: string[] = JSON.parse(
    readFileSync('test/fixtures/record-batch/kcat-legacy-lines.json', 'utf8'),
  );
  for (const magic of [0, 1]) {
    for (const codec of ['none', 'gzip', 'snappy', 'lz4']) {
      const data = Buffer.from(readFileSync(`test/fixtures/record-batch/kcat-magic${magic}-${codec}.bin`));
      // These are producer-side sets; a broker stores a compressed wrapper under the offset of
      // its last inner message (offsets are outside the CRC).
      if (codec !== 'none') data.writeBigInt64BE(4n, 0);
      const { cf } = fetchOf(data, 2n, null, true);
      const out = await drainAll(cf);
      const expected = lines.slice(2).map((l) => l.slice(l.indexOf(':') + 1));
      assert.deepEqual(
        out.map((r) => r.value!.toString()),
        expected,
        `magic ${magic} ${codec}`,
      );
      assert.deepEqual(
        out.map((r) => r.offset),
        [2n, 3n, 4n],
      );
    }
  }
});

test('a corrupt batch: earlier records first, then CORRUPT_MESSAGE on every drain', async () => {
  const good = encodeRecordBatchSync([rec('ok0'), rec('ok1')], { baseOffset: 0 });
  const bad = Buffer.from(encodeRecordBatchSync([rec('bad')], { baseOffset: 2 }));
  bad[bad.length - 1]! ^= 0xff;
  const { cf } = fetchOf(Buffer.concat([good, bad]), 0n, null, true);
  const out: ConsumerRecord[] = [];
  await assert.rejects(
    cf.drain(out, 10, null, null),
    (e: unknown) => e instanceof KafkaResponseError && e.errorCode === ErrorCode.CORRUPT_MESSAGE,
  );
  assert.equal(out.length, 2, 'records before the bad batch were delivered');
  assert.equal(cf.nextFetchOffset, 2n);
  await assert.rejects(cf.drain([], 10, null, null), KafkaResponseError);
});

// Batches are opened synchronously except zstd ones: fetches that mix both keep record order,
// offsets, the read_committed filtering and the corrupt-batch error, whichever way the bad batch
// was opened.

type Codec = 'none' | 'gzip' | 'zstd';

/**
 * Producer 7: aborted txn (0-2, `txn` codec); producer 8 plain (3-4, `plain` codec); ABORT (5);
 * producer 7 txn (6-7, `txn` codec); COMMIT (8); producer 8 plain (9, `plain` codec).
 */
async function mixedLog(txn: Codec, plain: Codec): Promise<Buffer> {
  const t = { producerId: 7, producerEpoch: 0, transactional: true, compression: txn };
  const p = { producerId: 8, producerEpoch: 0, compression: plain };
  const marker = (type: 'ABORT' | 'COMMIT', baseOffset: number) =>
    encodeControlBatch({
      producerId: 7,
      producerEpoch: 0,
      type,
      coordinatorEpoch: 0,
      baseOffset,
      timestamp: 1,
    });
  return Buffer.concat([
    await encodeRecordBatch([rec('a0'), rec('a1'), rec('a2')], { ...t, baseOffset: 0, baseSequence: 0 }),
    await encodeRecordBatch([rec('p3'), rec('p4')], { ...p, baseOffset: 3, baseSequence: 0 }),
    marker('ABORT', 5),
    await encodeRecordBatch([rec('c6'), rec('c7')], { ...t, baseOffset: 6, baseSequence: 3 }),
    marker('COMMIT', 8),
    await encodeRecordBatch([rec('p9')], { ...p, baseOffset: 9, baseSequence: 2 }),
  ]);
}

const MIXES: [Codec, Codec][] = [
  ['zstd', 'none'],
  ['none', 'zstd'],
  ['gzip', 'zstd'],
  ['zstd', 'zstd'],
  ['none', 'gzip'],
];

test('read_committed over batches opened synchronously and asynchronously', async () => {
  for (const [txn, plain] of MIXES) {
    for (const step of [1, 2, 1000]) {
      const cf = fetchOf(await mixedLog(txn, plain), 0n, [{ producerId: 7n, firstOffset: 0n }], true).cf;
      const out = await drainAll(cf, step);
      const what = `txn ${txn}, plain ${plain}, ${step} per drain`;
      assert.deepEqual(
        out.map((r) => `${r.offset}:${r.value}`),
        ['3:p3', '4:p4', '6:c6', '7:c7', '9:p9'],
        what,
      );
      assert.equal(cf.nextFetchOffset, 10n, what);
      assert.ok(cf.done, what);
    }
  }
});

test('read_uncommitted returns the aborted records, never the markers', async () => {
  for (const [txn, plain] of MIXES) {
    const cf = fetchOf(await mixedLog(txn, plain), 2n, null, false).cf;
    const out = await drainAll(cf, 2);
    assert.deepEqual(
      out.map((r) => `${r.offset}:${r.value}`),
      ['2:a2', '3:p3', '4:p4', '6:c6', '7:c7', '9:p9'],
      `txn ${txn}, plain ${plain}`,
    );
  }
});

/** Flips a byte inside the batch's records (the CRC no longer matches). */
function corruptCrc(batch: Buffer): Buffer {
  const b = Buffer.from(batch);
  b[b.length - 1]! ^= 0xff;
  return b;
}

/** A batch whose only record claims a value longer than itself, with a CRC that matches. */
function badRecord(batch: Buffer): Buffer {
  const b = Buffer.from(batch);
  // Records area of `rec('x')` uncompressed: length, attributes, ts, offset, key len, key, value len…
  const valueLenPos = 61 + 1 + 1 + 1 + 1 + 1 + 3;
  b[valueLenPos] = 0x7e; // zig-zag 63: beyond the record
  b.writeUInt32BE(crc32c(b.subarray(21)), 17);
  return b;
}

test('a corrupt batch after good ones, opened either way: records first, then the same error', async () => {
  for (const [first, bad] of [
    ['zstd', 'none'],
    ['none', 'zstd'],
    ['zstd', 'zstd'],
  ] as [Codec, Codec][]) {
    const good = await encodeRecordBatch([rec('ok0'), rec('ok1')], { baseOffset: 0, compression: first });
    const broken = corruptCrc(await encodeRecordBatch([rec('bad')], { baseOffset: 2, compression: bad }));
    const { cf } = fetchOf(Buffer.concat([good, broken]), 0n, null, true);
    const out: ConsumerRecord[] = [];
    const isCorrupt = (e: unknown) =>
      e instanceof KafkaResponseError && e.errorCode === ErrorCode.CORRUPT_MESSAGE;
    await assert.rejects(cf.drain(out, 10, null, null), isCorrupt);
    assert.deepEqual(
      out.map((r) => r.value!.toString()),
      ['ok0', 'ok1'],
      `${first} then bad ${bad}`,
    );
    assert.equal(cf.nextFetchOffset, 2n);
    await assert.rejects(cf.drain([], 10, null, null), isCorrupt);
    assert.equal(cf.done, false);
  }
});

test('a record that overruns its batch (valid CRC) → INVALID_RECORD, position kept', async () => {
  const good = await encodeRecordBatch([rec('ok0')], { baseOffset: 0, compression: 'zstd' });
  const broken = badRecord(await encodeRecordBatch([rec('x')], { baseOffset: 1 }));
  const { cf } = fetchOf(Buffer.concat([good, broken]), 0n, null, true);
  const out: ConsumerRecord[] = [];
  const isInvalid = (e: unknown) =>
    e instanceof KafkaResponseError && e.errorCode === ErrorCode.INVALID_RECORD;
  await assert.rejects(cf.drain(out, 10, null, null), isInvalid);
  assert.deepEqual(
    out.map((r) => r.offset),
    [0n],
  );
  assert.equal(cf.nextFetchOffset, 1n);
  await assert.rejects(cf.drain([], 10, null, null), isInvalid);
});

test('checkCrcs false: a batch whose CRC does not match is delivered as it is (kafkajs never checks)', async () => {
  for (const first of ['none', 'zstd'] as Codec[]) {
    const good = await encodeRecordBatch([rec('ok0')], { baseOffset: 0, compression: first });
    // A value byte changed after the CRC was computed: the records still parse.
    const broken = encodeRecordBatchSync([rec('bad1'), rec('bad2')], { baseOffset: 1 });
    const at = broken.lastIndexOf('bad2'); // the value (the key k-bad2 comes first)
    broken[at + 1] = 'X'.charCodeAt(0);
    const data = Buffer.concat([good, broken]);
    const checked = fetchOf(data, 0n, null, true).cf;
    const out0: ConsumerRecord[] = [];
    await assert.rejects(
      checked.drain(out0, 10, null, null),
      (e: unknown) => e instanceof KafkaResponseError && e.errorCode === ErrorCode.CORRUPT_MESSAGE,
    );
    assert.deepEqual(
      out0.map((r) => r.offset),
      [0n],
    );
    const { cf } = fetchOf(data, 0n, null, true, false);
    const out = await drainAll(cf);
    assert.deepEqual(
      out.map((r) => `${r.offset}:${r.value}`),
      ['0:ok0', '1:bad1', '2:bXd2'],
      first,
    );
    assert.equal(cf.done, true);
    assert.equal(cf.nextFetchOffset, 3n);
  }
});
