// The bytes of one committed-offset record of __consumer_offsets, written directly: the key as
// OffsetCommitKey v1 and the value as OffsetCommitValue v3 (v1 when an explicit expire timestamp
// exists), the versions Kafka writes. Byte for byte what the generated codecs produce
// (encodeOffsetCommitKey/Value, checked by test/broker/coordinator/offset-record-encoder.test.ts),
// at a third of their cost: every OffsetCommit partition costs one. Both are built in a scratch
// buffer (ASCII strings copied char by char, no BigInt arithmetic for the timestamps) and copied
// out once, so nothing references the scratch buffer afterwards.
import { EncodeError } from '../../../protocol/primitives/errors.js';
import type { SerializedRecord } from '../runtime/partition-writer.js';
import type { OffsetValue } from './group-records.js';

const INT16_MAX = 0x7fff;
const TWO_32 = 2 ** 32;
/** Three strings of at most 32767 bytes each plus the fixed fields. */
const scratch = Buffer.allocUnsafe(3 * (2 + INT16_MAX) + 128);
const view = new DataView(scratch.buffer, scratch.byteOffset, scratch.byteLength);

/** Writes an int16-length string at `at`; returns the position after it. */
function putString(s: string, at: number): number {
  const n = s.length;
  if (n < 256) {
    let i = 0;
    for (; i < n; i++) {
      const c = s.charCodeAt(i);
      if (c > 0x7f) break;
      scratch[at + 2 + i] = c;
    }
    if (i === n) {
      view.setInt16(at, n);
      return at + 2 + n;
    }
  } else if (Buffer.byteLength(s, 'utf8') > INT16_MAX) {
    throw new EncodeError('STRING_TOO_LONG', `string of ${Buffer.byteLength(s, 'utf8')} bytes exceeds 32767`);
  }
  const bytes = scratch.write(s, at + 2, 'utf8');
  view.setInt16(at, bytes);
  return at + 2 + bytes;
}

/** A millisecond timestamp (a safe integer) as int64. */
function putTimestamp(ms: number, at: number): number {
  if (ms < 0) {
    view.setBigInt64(at, BigInt(ms));
    return at + 8;
  }
  view.setUint32(at, Math.floor(ms / TWO_32));
  view.setUint32(at + 4, ms >>> 0);
  return at + 8;
}

/** Longest copy done byte by byte (a record's key or value is usually well under it). */
const LOOP_COPY_MAX = 256;

function copyOut(from: number, to: number): Buffer {
  const n = to - from;
  const b = Buffer.allocUnsafe(n);
  // Buffer#copy of part of a buffer makes a Uint8Array view of it first: for a few dozen bytes
  // that view, not the copy, is the cost.
  if (n <= LOOP_COPY_MAX) for (let i = 0; i < n; i++) b[i] = scratch[from + i] as number;
  else scratch.copy(b, 0, from, to);
  return b;
}

export function encodeOffsetRecord(
  group: string,
  topic: string,
  partition: number,
  value: OffsetValue | null,
): SerializedRecord {
  view.setInt16(0, 1);
  let o = putString(group, 2);
  o = putString(topic, o);
  view.setInt32(o, partition);
  o += 4;
  const key = copyOut(0, o);
  if (value === null) return { key, value: null };
  const start = o;
  const withExpiry = value.expireTimestamp >= 0;
  // v1: offset, metadata, commit and expire timestamps; v3: offset, leader epoch, metadata, commit timestamp.
  view.setInt16(o, withExpiry ? 1 : 3);
  view.setBigInt64(o + 2, value.offset);
  o += 10;
  if (!withExpiry) {
    view.setInt32(o, value.leaderEpoch);
    o += 4;
  }
  o = putString(value.metadata, o);
  o = putTimestamp(value.commitTimestamp, o);
  if (withExpiry) o = putTimestamp(value.expireTimestamp, o);
  return { key, value: copyOut(start, o) };
}
