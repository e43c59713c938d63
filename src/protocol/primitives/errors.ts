// Typed failures of the wire codecs. Decoding hostile bytes must never surface a RangeError or a
// TypeError: callers (the broker's network layer) map a DecodeError to "close this connection"
// or INVALID_REQUEST/CORRUPT_MESSAGE without guessing what went wrong.

export type DecodeErrorCode =
  | 'TRUNCATED'
  | 'NEGATIVE_LENGTH'
  | 'INVALID_UTF8'
  | 'COUNT_TOO_LARGE'
  | 'VARINT_TOO_LONG'
  | 'NULL_NOT_ALLOWED'
  | 'UNSUPPORTED_VERSION'
  | 'UNSAFE_INTEGER';

export class DecodeError extends Error {
  override readonly name = 'DecodeError';
  readonly code: DecodeErrorCode;
  /** Byte offset in the buffer being decoded where the problem was found. */
  readonly offset: number;

  constructor(code: DecodeErrorCode, message: string, offset = -1) {
    super(message);
    this.code = code;
    this.offset = offset;
  }
}

export type EncodeErrorCode =
  | 'NULL_NOT_ALLOWED'
  | 'STRING_TOO_LONG'
  | 'BYTES_TOO_LONG'
  | 'INVALID_UUID'
  | 'UNSUPPORTED_VERSION';

/** Thrown when a value cannot be represented in the requested version (a caller bug, not bad input). */
export class EncodeError extends Error {
  override readonly name = 'EncodeError';
  readonly code: EncodeErrorCode;

  constructor(code: EncodeErrorCode, message: string) {
    super(message);
    this.code = code;
  }
}
