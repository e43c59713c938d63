// Typed compression errors carrying the Kafka error code a broker answers with.

export const CompressionErrorCode = {
  /** Undecodable compressed data. */
  CORRUPT_MESSAGE: 2,
  /** Decompressed data would exceed the caller's limit (decompression bomb guard). */
  MESSAGE_TOO_LARGE: 10,
  /** Codec id outside 0-4, or an operation the codec library cannot do (sync zstd). */
  UNSUPPORTED_COMPRESSION_TYPE: 76,
} as const;

export type CompressionErrorName = keyof typeof CompressionErrorCode;

export class CompressionError extends Error {
  override readonly name = 'CompressionError';
  readonly code: number;
  readonly errorName: CompressionErrorName;

  constructor(errorName: CompressionErrorName, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.errorName = errorName;
    this.code = CompressionErrorCode[errorName];
  }
}
