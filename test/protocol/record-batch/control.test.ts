import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import {
  decodeRecordBatchSync,
  encodeControlBatch,
  isControl,
  isTransactional,
  RecordBatchError,
  readControlRecord,
  validateBatch,
} from '../../../src/protocol/record-batch/index.js';

describe('control batches', () => {
  test('COMMIT marker: layout, attributes and round trip', () => {
    const b = encodeControlBatch({
      producerId: 4000n,
      producerEpoch: 7,
      type: 'COMMIT',
      coordinatorEpoch: 12,
      baseOffset: 55n,
      partitionLeaderEpoch: 3,
      timestamp: 1_700_000_000_000,
    });
    const h = validateBatch(b, 0, b.length, { fromClient: false });
    assert.ok(!(h instanceof RecordBatchError));
    assert.ok(isControl(h.attributes) && isTransactional(h.attributes));
    assert.equal(h.attributes & 7, 0);
    assert.deepEqual(
      [h.producerId, h.producerEpoch, h.baseSequence, h.recordCount, h.baseOffset],
      [4000n, 7, -1, 1, 55n],
    );
    const c = decodeRecordBatchSync(b);
    assert.ok(c.next());
    assert.deepEqual(c.key(), Buffer.from([0, 0, 0, 1]));
    assert.deepEqual(c.value(), Buffer.from([0, 0, 0, 0, 0, 12]));
    assert.deepEqual(readControlRecord(c.key(), c.value()), {
      type: 'COMMIT',
      typeId: 1,
      version: 0,
      coordinatorEpoch: 12,
    });
    // A client may not produce control batches.
    assert.ok(validateBatch(b, 0) instanceof RecordBatchError);
  });
  test('ABORT marker', () => {
    const c = decodeRecordBatchSync(
      encodeControlBatch({
        producerId: 1,
        producerEpoch: 0,
        type: 'ABORT',
        coordinatorEpoch: -1,
        timestamp: 5n,
      }),
    );
    c.next();
    assert.equal(c.timestamp, 5n);
    assert.deepEqual(readControlRecord(c.key(), c.value()), {
      type: 'ABORT',
      typeId: 0,
      version: 0,
      coordinatorEpoch: -1,
    });
  });
  test('other and unknown types; newer key versions read as v0', () => {
    assert.deepEqual(readControlRecord(Buffer.from([0, 0, 0, 2]), Buffer.alloc(0)), {
      type: 'LEADER_CHANGE',
      typeId: 2,
      version: 0,
    });
    assert.deepEqual(readControlRecord(Buffer.from([0, 0, 0, 99]), null), {
      type: 'UNKNOWN',
      typeId: 99,
      version: 0,
    });
    assert.deepEqual(
      readControlRecord(Buffer.from([0, 5, 0, 1, 9, 9]), Buffer.from([0, 1, 0, 0, 0, 3, 42])),
      {
        type: 'COMMIT',
        typeId: 1,
        version: 5,
        coordinatorEpoch: 3,
      },
    );
  });
  test('short keys and marker values → INVALID_RECORD', () => {
    const invalid = (e: unknown) => e instanceof RecordBatchError && e.errorName === 'INVALID_RECORD';
    assert.throws(() => readControlRecord(Buffer.from([0, 0, 0]), null), invalid);
    assert.throws(() => readControlRecord(null, null), invalid);
    assert.throws(() => readControlRecord(Buffer.from([0, 0, 0, 1]), Buffer.from([0, 0, 0])), invalid);
    assert.throws(() => readControlRecord(Buffer.from([0, 0, 0, 0]), null), invalid);
  });
});
