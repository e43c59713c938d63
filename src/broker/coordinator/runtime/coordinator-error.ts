// Coordinator operations fail with KafkaError carrying the code the API handler answers with;
// anything else escaping an operation is a bug and is answered UNKNOWN_SERVER_ERROR.
import { ErrorCode, KafkaError } from '../../../protocol/errors.js';

/** The Kafka error code for any error thrown by or through a coordinator. */
export function errorCodeOf(err: unknown): number {
  return err instanceof KafkaError ? err.code : ErrorCode.UNKNOWN_SERVER_ERROR;
}
