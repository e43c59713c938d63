// Errors raised by coordinator operations carry the Kafka error code the API handler answers
// with; anything else escaping an operation is a bug and is answered UNKNOWN_SERVER_ERROR.
import { ErrorCode } from '../error-codes.js';

export class CoordinatorError extends Error {
  readonly code: number;
  constructor(code: number, message?: string) {
    super(message ?? `coordinator error ${code}`);
    this.name = 'CoordinatorError';
    this.code = code;
  }
}

/** The Kafka error code for any error thrown by or through a coordinator. */
export function errorCodeOf(err: unknown): number {
  return err instanceof CoordinatorError ? err.code : ErrorCode.UNKNOWN_SERVER_ERROR;
}
