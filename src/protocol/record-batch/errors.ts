// Typed errors for record batches. They carry the Kafka error code a broker should answer with,
// so the produce path can turn a thrown/returned error straight into a partition error.
// (Kept local to the record-batch module because the protocol error table is written in
// parallel; the codes are Kafka's, from `Errors.java`.)

/** The Kafka error codes that record-batch validation and decoding can produce. */
export const RecordErrorCode = {
  CORRUPT_MESSAGE: 2,
  MESSAGE_TOO_LARGE: 10,
  INVALID_TIMESTAMP: 32,
  UNSUPPORTED_FOR_MESSAGE_FORMAT: 43,
  UNSUPPORTED_COMPRESSION_TYPE: 76,
  INVALID_RECORD: 87,
} as const;

export type RecordErrorName = keyof typeof RecordErrorCode;

export class RecordBatchError extends Error {
  override readonly name = 'RecordBatchError';
  /** Kafka error code (e.g. 2 = CORRUPT_MESSAGE, 87 = INVALID_RECORD). */
  readonly code: number;
  /** Kafka error name, e.g. `CORRUPT_MESSAGE`. */
  readonly errorName: RecordErrorName;

  constructor(errorName: RecordErrorName, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.errorName = errorName;
    this.code = RecordErrorCode[errorName];
  }
}

export function corrupt(message: string): RecordBatchError {
  return new RecordBatchError('CORRUPT_MESSAGE', message);
}

export function invalidRecord(message: string): RecordBatchError {
  return new RecordBatchError('INVALID_RECORD', message);
}
