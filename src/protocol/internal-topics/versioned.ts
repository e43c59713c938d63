// Internal-topic records (`__consumer_offsets`, `__transaction_state`) store each key and value
// as `int16 schemaVersion` + the schema's body in that version. These helpers add/strip that
// prefix and turn every decoding failure into one error type, so that a coordinator replaying
// its partition handles "this record is damaged" in a single place.

import { ErrorCode, KafkaError } from '../errors.js';
import { Reader } from '../primitives/reader.js';
import { Writer } from '../primitives/writer.js';

/** A damaged internal-topic record: truncated, an unknown value version, or an impossible field. */
export class InternalRecordError extends KafkaError {
  constructor(message: string, options?: { cause?: unknown }) {
    super(ErrorCode.CORRUPT_MESSAGE, message, options);
    this.name = 'InternalRecordError';
  }
}

export function encodeVersioned<T>(
  version: number,
  value: T,
  write: (w: Writer, version: number, value: T) => void,
): Buffer {
  const w = new Writer(128);
  w.int16(version);
  write(w, version, value);
  // Copy: `toBuffer` may return a view of the writer's larger scratch buffer, and these buffers
  // are kept (in logs, in coordinator state) long after the writer is gone.
  return Buffer.from(w.toBuffer());
}

/** Reads the int16 version prefix; fails if fewer than 2 bytes are present. */
export function readVersion(buf: Buffer, what: string): number {
  if (buf.length < 2) throw new InternalRecordError(`${what}: ${buf.length} bytes, no version prefix`);
  return buf.readInt16BE(0);
}

/** Decodes the body after the version prefix with a generated reader, wrapping its errors. */
export function decodeBody<T>(
  buf: Buffer,
  version: number,
  what: string,
  read: (r: Reader, version: number) => T,
): T {
  try {
    return read(new Reader(buf, 2), version);
  } catch (e) {
    if (e instanceof KafkaError) throw e;
    const detail = e instanceof Error ? e.message : String(e);
    throw new InternalRecordError(`${what} v${version}: ${detail}`, { cause: e });
  }
}
