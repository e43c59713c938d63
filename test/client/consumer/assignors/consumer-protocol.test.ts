// ConsumerProtocol subscription/assignment bytes: round trips for v0–v3, forward compatibility
// with newer versions, kafkajs's encoding, sticky user data, and hostile input → DecodeError.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import kafkajs from 'kafkajs';
import {
  decodeAssignment,
  decodeStickyUserData,
  decodeSubscription,
  encodeAssignment,
  encodeStickyUserData,
  encodeSubscription,
} from '../../../../src/client/consumer/assignors/consumer-protocol.js';
import { DecodeError } from '../../../../src/protocol/primitives/errors.js';

const sub = {
  topics: ['orders', 'payments'],
  userData: Buffer.from([1, 2, 3]),
  ownedPartitions: [
    { topic: 'orders', partition: 2 },
    { topic: 'orders', partition: 0 },
    { topic: 'payments', partition: 1 },
  ],
  generationId: 7,
  rackId: 'rack-a',
};

test('subscription round trips per version; fields a version lacks take their defaults', () => {
  for (let v = 0; v <= 3; v++) {
    const back = decodeSubscription(encodeSubscription(sub, v));
    assert.deepEqual(back.topics, sub.topics);
    assert.deepEqual(back.userData, sub.userData);
    assert.deepEqual(
      back.ownedPartitions,
      v >= 1
        ? [
            { topic: 'orders', partition: 0 },
            { topic: 'orders', partition: 2 },
            { topic: 'payments', partition: 1 },
          ]
        : [],
    );
    assert.equal(back.generationId, v >= 2 ? 7 : -1);
    assert.equal(back.rackId, v >= 3 ? 'rack-a' : null);
  }
});

test('a newer subscription version is read with the newest layout we know', () => {
  const b = encodeSubscription(sub, 3);
  const future = Buffer.concat([b, Buffer.from([0, 0, 0, 9])]); // a field appended by "v4"
  future.writeInt16BE(4, 0);
  const back = decodeSubscription(future);
  assert.equal(back.rackId, 'rack-a');
  assert.equal(back.generationId, 7);
});

test('kafkajs member metadata and assignments decode', () => {
  const { MemberMetadata, MemberAssignment } = kafkajs.AssignerProtocol;
  const meta = MemberMetadata.encode({ version: 0, topics: ['a', 'b'], userData: Buffer.from('x') });
  const s = decodeSubscription(meta);
  assert.deepEqual(s.topics, ['a', 'b']);
  assert.equal(s.userData?.toString(), 'x');
  const asg = MemberAssignment.encode({
    version: 0,
    assignment: { a: [0, 2], b: [1] },
    userData: Buffer.alloc(0),
  });
  assert.deepEqual(decodeAssignment(asg).partitions, [
    { topic: 'a', partition: 0 },
    { topic: 'a', partition: 2 },
    { topic: 'b', partition: 1 },
  ]);
  // And kafkajs reads ours.
  const ours = MemberAssignment.decode(
    encodeAssignment({ partitions: [{ topic: 'a', partition: 3 }], userData: null }),
  );
  assert.deepEqual(ours?.assignment, { a: [3] });
});

test('assignment round trip; empty bytes mean nothing assigned', () => {
  const a = { partitions: [{ topic: 't', partition: 1 }], userData: Buffer.from('u') };
  for (let v = 0; v <= 3; v++) assert.deepEqual(decodeAssignment(encodeAssignment(a, v)), a);
  assert.deepEqual(decodeAssignment(Buffer.alloc(0)), { partitions: [], userData: null });
});

test('sticky user data round trip, and the generation-less old form', () => {
  const parts = [{ topic: 't', partition: 4 }];
  assert.deepEqual(decodeStickyUserData(encodeStickyUserData(parts, 12)), {
    partitions: parts,
    generation: 12,
  });
  const v0 = encodeStickyUserData(parts, 0).subarray(0, -4);
  assert.deepEqual(decodeStickyUserData(v0), { partitions: parts, generation: -1 });
});

test('truncated, negative-version and oversized-count input throws DecodeError', () => {
  const good = encodeSubscription(sub, 3);
  for (let cut = 0; cut < good.length; cut++) {
    // Some prefixes are themselves complete older-looking messages only if the version allows it.
    assert.throws(() => decodeSubscription(good.subarray(0, cut)), DecodeError, `cut at ${cut}`);
  }
  const neg = Buffer.from(good);
  neg.writeInt16BE(-1, 0);
  assert.throws(() => decodeSubscription(neg), DecodeError);
  const huge = Buffer.from([0, 0, 0x7f, 0xff, 0xff, 0xff]);
  assert.throws(() => decodeSubscription(huge), DecodeError);
  assert.throws(() => decodeAssignment(Buffer.from([0, 1, 0, 0, 0, 5])), DecodeError);
});
