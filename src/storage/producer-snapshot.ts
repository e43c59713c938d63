// `<offset>.snapshot`: the producer state as of `offset`, Kafka's version-1 layout so an
// operator's tools recognise it: Version int16 (1), Crc uint32 (CRC-32C of everything after
// it), then an int32 count of entries {ProducerId int64, Epoch int16, LastSequence int32,
// LastOffset int64, OffsetDelta int32, Timestamp int64, CoordinatorEpoch int32,
// CurrentTxnFirstOffset int64}. Like Kafka, only each producer's last batch is stored.
import { crc32c } from '../protocol/crc32c.js';

export interface SnapshotEntry {
  producerId: bigint;
  producerEpoch: number;
  lastSequence: number;
  lastOffset: bigint;
  offsetDelta: number;
  timestamp: bigint;
  coordinatorEpoch: number;
  currentTxnFirstOffset: bigint;
}

const VERSION = 1;
const HEADER = 2 + 4 + 4;
const ENTRY = 8 + 2 + 4 + 8 + 4 + 8 + 4 + 8;

export function encodeSnapshot(entries: readonly SnapshotEntry[]): Buffer {
  const buf = Buffer.alloc(HEADER + entries.length * ENTRY);
  buf.writeInt16BE(VERSION, 0);
  buf.writeInt32BE(entries.length, 6);
  let at = HEADER;
  for (const e of entries) {
    buf.writeBigInt64BE(e.producerId, at);
    buf.writeInt16BE(e.producerEpoch, at + 8);
    buf.writeInt32BE(e.lastSequence, at + 10);
    buf.writeBigInt64BE(e.lastOffset, at + 14);
    buf.writeInt32BE(e.offsetDelta, at + 22);
    buf.writeBigInt64BE(e.timestamp, at + 26);
    buf.writeInt32BE(e.coordinatorEpoch, at + 34);
    buf.writeBigInt64BE(e.currentTxnFirstOffset, at + 38);
    at += ENTRY;
  }
  buf.writeUInt32BE(crc32c(buf.subarray(6)), 2);
  return buf;
}

/** Decodes a snapshot; null when the version, size or CRC is wrong. */
export function decodeSnapshot(buf: Buffer): SnapshotEntry[] | null {
  if (buf.length < HEADER || buf.readInt16BE(0) !== VERSION) return null;
  if (crc32c(buf.subarray(6)) !== buf.readUInt32BE(2)) return null;
  const count = buf.readInt32BE(6);
  if (count < 0 || buf.length !== HEADER + count * ENTRY) return null;
  const out: SnapshotEntry[] = [];
  for (let i = 0, at = HEADER; i < count; i++, at += ENTRY) {
    out.push({
      producerId: buf.readBigInt64BE(at),
      producerEpoch: buf.readInt16BE(at + 8),
      lastSequence: buf.readInt32BE(at + 10),
      lastOffset: buf.readBigInt64BE(at + 14),
      offsetDelta: buf.readInt32BE(at + 22),
      timestamp: buf.readBigInt64BE(at + 26),
      coordinatorEpoch: buf.readInt32BE(at + 34),
      currentTxnFirstOffset: buf.readBigInt64BE(at + 38),
    });
  }
  return out;
}
