// Coordinator operations fail with KafkaError carrying the code the API handler answers with;
// anything else escaping an operation is a bug and is answered UNKNOWN_SERVER_ERROR.
import { ErrorCode, KafkaError } from '../../../protocol/errors.js';

/**
 * The Kafka error code for any error thrown by or through a coordinator. Records too large for
 * one batch of the internal topic are UNKNOWN_SERVER_ERROR, as Kafka's coordinators answer them
 * (OffsetCommit maps them itself, to INVALID_COMMIT_OFFSET_SIZE).
 */
export function errorCodeOf(err: unknown): number {
  if (!(err instanceof KafkaError)) return ErrorCode.UNKNOWN_SERVER_ERROR;
  return err.code === ErrorCode.RECORD_LIST_TOO_LARGE ? ErrorCode.UNKNOWN_SERVER_ERROR : err.code;
}
