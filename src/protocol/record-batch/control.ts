// Control records (CLIENTS.md §2.4): transaction markers written by the coordinator through the
// partition leader. A control batch is transactional + control, carries the producer's id and
// epoch, and holds one record whose key is `int16 version, int16 type` and whose value, for
// ABORT/COMMIT, is `int16 version, int32 coordinator epoch` (EndTransactionMarker.java).
import { encodeRecordBatchSync } from './encode.js';
import { invalidRecord } from './errors.js';

export const ControlRecordType = {
  ABORT: 0,
  COMMIT: 1,
  LEADER_CHANGE: 2,
  SNAPSHOT_HEADER: 3,
  SNAPSHOT_FOOTER: 4,
  KRAFT_VERSION: 5,
  KRAFT_VOTERS: 6,
} as const;

export type ControlRecordTypeName = keyof typeof ControlRecordType | 'UNKNOWN';

const NAMES = Object.keys(ControlRecordType) as (keyof typeof ControlRecordType)[];

export interface ControlRecord {
  type: ControlRecordTypeName;
  /** The raw type id (meaningful when `type` is UNKNOWN). */
  typeId: number;
  /** Version of the key. */
  version: number;
  /** ABORT/COMMIT only: the transaction coordinator's epoch from the marker value. */
  coordinatorEpoch?: number;
}

/**
 * Parses a control record. Unknown key versions are read as version 0 and unknown types
 * reported as UNKNOWN, as Kafka does; a key shorter than 4 bytes, or a marker value shorter
 * than 6 bytes, is INVALID_RECORD.
 */
export function readControlRecord(key: Buffer | null, value: Buffer | null): ControlRecord {
  if (key === null || key.length < 4)
    throw invalidRecord(`control record key of ${key?.length ?? 'null'} bytes`);
  const version = key.readInt16BE(0);
  const typeId = key.readInt16BE(2);
  const type: ControlRecordTypeName = NAMES[typeId] ?? 'UNKNOWN';
  if (type !== 'ABORT' && type !== 'COMMIT') return { type, typeId, version };
  if (value === null || value.length < 6) {
    throw invalidRecord(`end transaction marker value of ${value?.length ?? 'null'} bytes`);
  }
  return { type, typeId, version, coordinatorEpoch: value.readInt32BE(2) };
}

export interface ControlBatchOptions {
  producerId: bigint | number;
  producerEpoch: number;
  type: 'ABORT' | 'COMMIT';
  coordinatorEpoch: number;
  baseOffset?: bigint | number;
  partitionLeaderEpoch?: number;
  /** Marker timestamp in ms (the coordinator's clock). */
  timestamp: bigint | number;
}

/** Builds the one-record control batch of a transaction marker (uncompressed, as Kafka does). */
export function encodeControlBatch(options: ControlBatchOptions): Buffer {
  const key = Buffer.alloc(4);
  key.writeInt16BE(0, 0);
  key.writeInt16BE(ControlRecordType[options.type], 2);
  const value = Buffer.alloc(6);
  value.writeInt16BE(0, 0);
  value.writeInt32BE(options.coordinatorEpoch, 2);
  return encodeRecordBatchSync([{ key, value, timestamp: options.timestamp }], {
    baseOffset: options.baseOffset,
    partitionLeaderEpoch: options.partitionLeaderEpoch,
    producerId: options.producerId,
    producerEpoch: options.producerEpoch,
    transactional: true,
    isControl: true,
    timestamp: options.timestamp,
  });
}
