// Typed client errors. Every error carries a stable string `code` and a `retriable` flag; errors
// that come from a broker response also carry Kafka's numeric `errorCode` and take `retriable`
// from Kafka's error table (src/protocol/errors.ts), so callers can branch without string parsing.
import { errorName, isRetriable as isRetriableCode } from '../protocol/errors.js';

export class KafkaClientError extends Error {
  override name = 'KafkaClientError';
  /** Stable identifier, e.g. `CONNECTION`, `REQUEST_TIMED_OUT`, or a Kafka error name. */
  readonly code: string;
  readonly retriable: boolean;

  constructor(code: string, message: string, retriable: boolean, options?: { cause?: unknown }) {
    super(message, options);
    this.code = code;
    this.retriable = retriable;
  }
}

/**
 * The base of the errors that are only a name, a stable code and a retriable flag:
 * `new X(message, cause?)` (the `cause` property is set only when one is given).
 */
export function errorClass(className: string, code: string, retriable: boolean) {
  return class extends KafkaClientError {
    override name = className;
    constructor(message: string, cause?: unknown) {
      super(code, message, retriable, cause === undefined ? undefined : { cause });
    }
  };
}

/** The broker answered with a non-zero Kafka error code. */
export class KafkaResponseError extends KafkaClientError {
  override name = 'KafkaResponseError';
  readonly errorCode: number;

  constructor(errorCode: number, context: string, brokerMessage?: string | null) {
    const n = errorName(errorCode);
    super(
      n,
      `${context}: ${n} (${errorCode})${brokerMessage ? `: ${brokerMessage}` : ''}`,
      isRetriableCode(errorCode),
    );
    this.errorCode = errorCode;
  }
}

/** TCP connect failure, reset, or a protocol violation that forced us to drop the connection. */
export class ConnectionError extends errorClass('ConnectionError', 'CONNECTION', true) {}

/** No response within request.timeout.ms. Retriable like Kafka's REQUEST_TIMED_OUT. */
export class RequestTimeoutError extends errorClass('RequestTimeoutError', 'REQUEST_TIMED_OUT', true) {}

/** The client, producer or connection was closed while the operation was pending. */
export class ClientClosedError extends KafkaClientError {
  override name = 'ClientClosedError';
  constructor(message = 'client closed') {
    super('CLIENT_CLOSED', message, false);
  }
}

/** Invalid option value or combination, reported before anything is sent. */
export class ConfigError extends errorClass('ConfigError', 'INVALID_CONFIG', false) {}

/** The producer could not reserve buffer.memory within max.block.ms (or metadata never came). */
export class BufferExhaustedError extends errorClass('BufferExhaustedError', 'BUFFER_EXHAUSTED', false) {}

/** A record was not acknowledged within delivery.timeout.ms. */
export class DeliveryTimeoutError extends errorClass('DeliveryTimeoutError', 'DELIVERY_TIMEOUT', false) {}

/** A record (or request) exceeds max.request.size / batch limits. */
export class RecordTooLargeError extends errorClass('RecordTooLargeError', 'MESSAGE_TOO_LARGE', false) {}

/** The broker supports no version of an API in the range this client can speak. */
export class UnsupportedVersionError extends errorClass(
  'UnsupportedVersionError',
  'UNSUPPORTED_VERSION',
  false,
) {}

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
