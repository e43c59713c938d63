// Typed client errors. Every error carries a stable string `code` and a `retriable` flag; errors
// that come from a broker response also carry Kafka's numeric `errorCode` and take `retriable`
// from Kafka's error table (src/protocol/errors.ts), so callers can branch without string parsing.
// The base class and the transport errors live in src/net (the broker's outbound links use them
// too) and are re-exported here unchanged: one class each, so `instanceof` works from either path.
import { errorClass, KafkaClientError } from '../net/errors.js';

export {
  ClientClosedError,
  ConnectionError,
  errorClass,
  KafkaClientError,
  KafkaResponseError,
  RequestTimeoutError,
  UnsupportedVersionError,
} from '../net/errors.js';

/** Invalid option value or combination, reported before anything is sent. */
export class ConfigError extends errorClass('ConfigError', 'INVALID_CONFIG', false) {}

/** The producer could not reserve buffer.memory within max.block.ms (or metadata never came). */
export class BufferExhaustedError extends errorClass('BufferExhaustedError', 'BUFFER_EXHAUSTED', false) {}

/** A record was not acknowledged within delivery.timeout.ms. */
export class DeliveryTimeoutError extends errorClass('DeliveryTimeoutError', 'DELIVERY_TIMEOUT', false) {}

/** A record (or request) exceeds max.request.size / batch limits. */
export class RecordTooLargeError extends errorClass('RecordTooLargeError', 'MESSAGE_TOO_LARGE', false) {}

/**
 * The producer can no longer be used: another instance with the same transactional.id fenced
 * it (PRODUCER_FENCED / INVALID_PRODUCER_EPOCH), or authorization failed. Only close() works.
 */
export class FatalProducerError extends KafkaClientError {
  override name = 'FatalProducerError';
  constructor(code: string, message: string, cause?: unknown) {
    super(code, message, false, { cause });
  }
}

/** The current transaction must be aborted (an earlier send in it failed). */
export class TransactionAbortableError extends errorClass(
  'TransactionAbortableError',
  'TRANSACTION_ABORTABLE',
  false,
) {}

/** An operation was called in the wrong transaction state (e.g. commit with no transaction). */
export class IllegalStateError extends errorClass('IllegalStateError', 'ILLEGAL_STATE', false) {}

export function isRetriable(err: unknown): boolean {
  return err instanceof KafkaClientError && err.retriable;
}
