// Typed compression errors: KafkaErrors carrying the code a broker answers with.
//   CORRUPT_MESSAGE               undecodable compressed data
//   MESSAGE_TOO_LARGE             output would exceed the caller's cap (decompression bomb guard)
//   UNSUPPORTED_COMPRESSION_TYPE  codec id outside 0-4, or sync zstd (the library is async-only)
import { ErrorCode, KafkaError } from '../errors.js';

export type CompressionErrorName = 'CORRUPT_MESSAGE' | 'MESSAGE_TOO_LARGE' | 'UNSUPPORTED_COMPRESSION_TYPE';

export class CompressionError extends KafkaError {
  declare readonly errorName: CompressionErrorName;

  constructor(errorName: CompressionErrorName, message: string, options?: { cause?: unknown }) {
    super(ErrorCode[errorName], message, options);
    this.name = 'CompressionError';
  }
}
