// `validateLeaderBatch` and the batches a network thread verified (`markVerifiedBatches`): the
// event loop skips the structural checks only for exactly the bytes that were marked, once, and
// only for client appends; the checks that need config still run.

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ErrorCode, KafkaError } from '../../src/protocol/errors.js';
import { encodeRecordBatchSync } from '../../src/protocol/record-batch/index.js';
import { resolveLogConfig } from '../../src/storage/log-config.js';
import {
  batchesCheckedByNetworkThreads,
  checkClientBatch,
  markVerifiedBatches,
  validateLeaderBatch,
} from '../../src/storage/log-validator.js';

const config = resolveLogConfig({});
const batch = (value = 'v', timestamp = Date.now()): Buffer =>
  encodeRecordBatchSync([{ key: Buffer.from('k'), value: Buffer.from(value) }], { timestamp });

/** `batches` laid out in one ArrayBuffer of their own, as a request frame arrives from a thread. */
function frameOf(...batches: Buffer[]): { frame: ArrayBuffer; views: Buffer[] } {
  const total = batches.reduce((n, b) => n + b.length + 7, 0);
  const frame = new ArrayBuffer(total);
  const views: Buffer[] = [];
  let at = 7; // not at offset 0: ranges are offsets within the frame
  for (const b of batches) {
    const view = Buffer.from(frame, at, b.length);
    b.copy(view);
    views.push(view);
    at += b.length + 7;
  }
  return { frame, views };
}

const corrupt = (b: Buffer): Buffer => {
  b[b.length - 1]! ^= 0xff; // inside the CRC's range
  return b;
};

const code = (fn: () => unknown): number => {
  try {
    fn();
  } catch (e) {
    assert.ok(e instanceof KafkaError, String(e));
    return e.code;
  }
  return ErrorCode.NONE;
};

test('a marked batch skips the structural checks; its header is still read', () => {
  const { frame, views } = frameOf(batch('a'));
  const [good] = views as [Buffer];
  markVerifiedBatches(frame, [good.byteOffset, good.length]);
  const before = batchesCheckedByNetworkThreads();
  const v = validateLeaderBatch(good, config, 'client', Date.now());
  assert.equal(batchesCheckedByNetworkThreads(), before + 1);
  assert.equal(v.header.recordCount, 1);
  assert.equal(v.transactional, false);
  assert.equal(v.marker, null);
});

test('a batch the thread did not mark is checked, even in a frame with marked batches', () => {
  const { frame, views } = frameOf(batch('a'), corrupt(batch('b')), corrupt(batch('c')));
  const [good, bad, other] = views as [Buffer, Buffer, Buffer];
  markVerifiedBatches(frame, [good.byteOffset, good.length]);
  const before = batchesCheckedByNetworkThreads();
  assert.equal(
    code(() => validateLeaderBatch(bad, config, 'client', Date.now())),
    ErrorCode.CORRUPT_MESSAGE,
  );
  // Same start as a marked range, other length: not what was verified.
  const { frame: f2, views: v2 } = frameOf(corrupt(batch('d')));
  const [d] = v2 as [Buffer];
  markVerifiedBatches(f2, [d.byteOffset, d.length + 1]);
  assert.equal(
    code(() => validateLeaderBatch(d, config, 'client', Date.now())),
    ErrorCode.CORRUPT_MESSAGE,
  );
  // The same bytes in another buffer (a copy) are not the verified ones.
  markVerifiedBatches(frame, [other.byteOffset, other.length]);
  assert.equal(
    code(() => validateLeaderBatch(Buffer.from(other), config, 'client', Date.now())),
    ErrorCode.CORRUPT_MESSAGE,
  );
  assert.equal(batchesCheckedByNetworkThreads(), before, 'nothing was skipped');
});

/** A corrupt batch marked as verified: which calls skipped the checks shows in their outcome. */
function markedCorrupt(): Buffer {
  const { frame, views } = frameOf(corrupt(batch('x')));
  const [b] = views as [Buffer];
  markVerifiedBatches(frame, [b.byteOffset, b.length]);
  return b;
}

test('a mark is used once: a second look at the same bytes checks them', () => {
  const b = markedCorrupt();
  assert.equal(
    code(() => validateLeaderBatch(b, config, 'client', Date.now())),
    ErrorCode.NONE,
  );
  assert.equal(
    code(() => validateLeaderBatch(b, config, 'client', Date.now())),
    ErrorCode.CORRUPT_MESSAGE,
  );
});

test('coordinator appends never use a mark', () => {
  const b = markedCorrupt();
  assert.equal(
    code(() => validateLeaderBatch(b, config, 'coordinator', Date.now())),
    ErrorCode.CORRUPT_MESSAGE,
  );
});

test('the checks that need config or the clock still run for a marked batch', () => {
  const big = batch('y'.repeat(2000));
  const { frame, views } = frameOf(big, batch('old', Date.now() - 3_600_000));
  const [large, old] = views as [Buffer, Buffer];
  markVerifiedBatches(frame, [large.byteOffset, large.length, old.byteOffset, old.length]);
  const small = resolveLogConfig({ maxMessageBytes: 1000 });
  assert.equal(
    code(() => validateLeaderBatch(large, small, 'client', Date.now())),
    ErrorCode.MESSAGE_TOO_LARGE,
  );
  const strict = resolveLogConfig({ messageTimestampBeforeMaxMs: 60_000 });
  assert.equal(
    code(() => validateLeaderBatch(old, strict, 'client', Date.now())),
    ErrorCode.INVALID_TIMESTAMP,
  );
});

test('checkClientBatch refuses what the event loop refuses, with the same codes', () => {
  const two = Buffer.concat([batch('a'), batch('b')]);
  const control = encodeRecordBatchSync([{ key: Buffer.alloc(4), value: Buffer.alloc(6) }], {
    isControl: true,
    transactional: true,
    producerId: 1,
    producerEpoch: 0,
  });
  for (const [name, b] of [
    ['CRC', corrupt(batch('c'))],
    ['two batches', two],
    ['control', control],
    ['truncated', batch('t').subarray(0, 40)],
  ] as const) {
    const thread = code(() => checkClientBatch(b));
    assert.notEqual(thread, ErrorCode.NONE, name);
    assert.equal(
      thread,
      code(() => validateLeaderBatch(b, config, 'client', Date.now())),
      name,
    );
  }
});
