// Small shared pieces of the generated codecs: the API descriptor type and the helpers generated
// writers call.

import { EncodeError } from '../primitives/errors.js';
import type { Reader } from '../primitives/reader.js';
import type { Writer } from '../primitives/writer.js';

/** One Kafka API: its version range and the codecs of its request and response bodies. */
export interface ApiDescriptor<Req = unknown, Res = unknown> {
  readonly key: number;
  /** Schema name without the Request/Response suffix, e.g. `ApiVersions`. */
  readonly name: string;
  readonly minVersion: number;
  readonly maxVersion: number;
  /** First flexible (KIP-482) version; `Infinity` when no version is flexible. */
  readonly flexibleMinVersion: number;
  readRequest(r: Reader, version: number): Req;
  writeRequest(w: Writer, version: number, value: Req): void;
  readResponse(r: Reader, version: number): Res;
  writeResponse(w: Writer, version: number, value: Res): void;
}

/** Guards a field that is nullable in some versions but not in the one being written. */
export function notNull<T>(value: T | null, where: string): T {
  if (value === null) throw new EncodeError('NULL_NOT_ALLOWED', `${where} may not be null in this version`);
  return value;
}

export function unsupportedWriteVersion(what: string, version: number): EncodeError {
  return new EncodeError('UNSUPPORTED_VERSION', `${what} has no version ${version}`);
}
