// Typed errors for record batches. They are KafkaErrors carrying the code a broker answers
// with, so the produce path turns a returned/thrown error straight into a partition error.
import { ErrorCode, KafkaError } from '../errors.js';

/** The Kafka errors that record-batch validation and decoding can produce. */
export type RecordErrorName =
  | 'CORRUPT_MESSAGE'
  | 'MESSAGE_TOO_LARGE'
  | 'INVALID_TIMESTAMP'
  | 'UNSUPPORTED_FOR_MESSAGE_FORMAT'
  | 'UNSUPPORTED_COMPRESSION_TYPE'
  | 'INVALID_RECORD';

export class RecordBatchError extends KafkaError {
  declare readonly errorName: RecordErrorName;

  constructor(errorName: RecordErrorName, message: string, options?: { cause?: unknown }) {
    super(ErrorCode[errorName], message, options);
    this.name = 'RecordBatchError';
  }
}

export function corrupt(message: string): RecordBatchError {
  return new RecordBatchError('CORRUPT_MESSAGE', message);
}

export function invalidRecord(message: string): RecordBatchError {
  return new RecordBatchError('INVALID_RECORD', message);
}
