// `precheckProduce`, a network thread's checks of a Produce frame before the event loop sees it:
// for every version the broker accepts with v2 batches, exactly the records fields that pass the
// client batch checks are reported (as byte ranges of the frame's buffer), and nothing for
// frames it cannot read.

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { precheckProduce } from '../../../src/broker/network/threads/produce-precheck.js';
import { encodeRequest } from '../../../src/protocol/messages/frame.js';
import { fetchApi } from '../../../src/protocol/messages/generated/fetch.js';
import { type ProduceRequest, produceApi } from '../../../src/protocol/messages/generated/produce.js';
import { encodeRecordBatchSync } from '../../../src/protocol/record-batch/index.js';

const batch = (value: string): Buffer => encodeRecordBatchSync([{ value: Buffer.from(value) }]);
const corrupt = (b: Buffer): Buffer => {
  b[b.length - 1]! ^= 0xff;
  return b;
};

/** A request frame (no size prefix) in an ArrayBuffer of its own, at offset 0 as a thread has it. */
function frameOf(chunks: Buffer[]): Buffer {
  const bytes = Buffer.concat(chunks).subarray(4);
  const frame = Buffer.from(new ArrayBuffer(bytes.length));
  bytes.copy(frame);
  return frame;
}

function request(good: Buffer[]): ProduceRequest {
  return {
    transactionalId: null,
    acks: 1,
    timeoutMs: 1000,
    topicData: [
      {
        name: 'a',
        partitionData: [
          { index: 0, records: good[0]! },
          { index: 1, records: corrupt(batch('bad crc')) },
          { index: 2, records: null },
        ],
      },
      {
        name: 'b',
        partitionData: [
          { index: 0, records: Buffer.concat([batch('one'), batch('two')]) },
          { index: 1, records: good[1]! },
        ],
      },
    ],
  };
}

test('every Produce version with v2 batches: exactly the good batches are reported', () => {
  for (let version = 3; version <= produceApi.maxVersion; version++) {
    const good = [batch(`good-0-v${version}`), batch(`good-1-v${version}`)];
    const frame = frameOf(encodeRequest(produceApi, version, 7, 'client', request(good)));
    const expected = good.flatMap((g) => [frame.indexOf(g), g.length]);
    assert.ok(expected[0]! > 0 && expected[2]! > 0, `v${version}: both batches are in the frame`);
    assert.deepEqual(precheckProduce(frame), expected, `v${version}`);
  }
});

test('nothing is reported for legacy versions, other APIs, cut frames or all-bad requests', () => {
  const legacy = frameOf(
    encodeRequest(produceApi, 2, 1, null, {
      transactionalId: null,
      acks: 1,
      timeoutMs: 1000,
      topicData: [{ name: 'a', partitionData: [{ index: 0, records: batch('v2 batch in v2') }] }],
    }),
  );
  assert.equal(precheckProduce(legacy), undefined, 'Produce v2: converted on the event loop');
  const fetch = frameOf(
    encodeRequest(fetchApi, 12, 1, null, {
      clusterId: null,
      replicaId: -1,
      replicaState: { replicaId: -1, replicaEpoch: -1n },
      maxWaitMs: 0,
      minBytes: 1,
      maxBytes: 1 << 20,
      isolationLevel: 0,
      sessionId: 0,
      sessionEpoch: -1,
      topics: [],
      forgottenTopicsData: [],
      rackId: '',
    }),
  );
  assert.equal(precheckProduce(fetch), undefined, 'not a Produce');
  const whole = frameOf(encodeRequest(produceApi, 9, 1, null, request([batch('g0'), batch('g1')])));
  for (const cut of [whole.length - 3, 40, 5, 2]) {
    const part = frameOf([Buffer.alloc(4), whole.subarray(0, cut)]);
    assert.equal(precheckProduce(part), undefined, `cut at ${cut}`);
  }
  const allBad = frameOf(
    encodeRequest(produceApi, 9, 1, null, {
      transactionalId: null,
      acks: 1,
      timeoutMs: 1000,
      topicData: [{ name: 'a', partitionData: [{ index: 0, records: corrupt(batch('x')) }] }],
    }),
  );
  assert.equal(precheckProduce(allBad), undefined);
});
