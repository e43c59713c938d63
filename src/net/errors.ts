// Errors of the outbound Kafka connection, shared by the client and the broker (controller channel,
// replica fetcher). Every error carries a stable string `code` and a `retriable` flag; errors that
// come from a broker response also carry Kafka's numeric `errorCode` and take `retriable` from
// Kafka's error table (src/protocol/errors.ts), so callers can branch without string parsing.
//
// These classes are part of the client's public API: src/client/errors.ts re-exports them (they
// are defined only here, so `instanceof` holds whichever path an error was imported from).
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

/** The broker supports no version of an API in the range this client can speak. */
export class UnsupportedVersionError extends errorClass(
  'UnsupportedVersionError',
  'UNSUPPORTED_VERSION',
  false,
) {}
