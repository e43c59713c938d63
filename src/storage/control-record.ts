// The marker of a control batch (transaction COMMIT/ABORT, CLIENTS.md §2.4), read with the
// protocol layer's record cursor. Control batches are never compressed and hold one record.
import { readControlRecord } from '../protocol/record-batch/control.js';
import { RecordCursor } from '../protocol/record-batch/decode.js';
import {
  compressionOf,
  isControl,
  RECORDS_OFFSET,
  readBatchHeader,
} from '../protocol/record-batch/header.js';

export const ControlType = { ABORT: 0, COMMIT: 1 } as const;

export interface ControlMarker {
  /** 0 ABORT, 1 COMMIT; other values are control types this layer does not interpret. */
  type: number;
  /** -1 when the record is not a transaction marker. */
  coordinatorEpoch: number;
}

/**
 * Reads the marker of the control batch `buf[pos, pos + size)`. Returns null when the batch is
 * not a control batch or its record cannot be parsed.
 */
export function readControlMarker(buf: Buffer, pos: number, size: number): ControlMarker | null {
  const header = readBatchHeader(buf, pos);
  if (!isControl(header.attributes) || compressionOf(header.attributes) !== 0) return null;
  try {
    const cursor = new RecordCursor(header, buf.subarray(pos + RECORDS_OFFSET, pos + size));
    if (!cursor.next()) return null;
    const rec = readControlRecord(cursor.key(), cursor.value());
    return { type: rec.typeId, coordinatorEpoch: rec.coordinatorEpoch ?? -1 };
  } catch {
    return null;
  }
}
