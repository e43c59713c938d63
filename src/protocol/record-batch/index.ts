// RecordBatch v2 (header access, validation, encode, lazy decode, control records) and legacy
// magic 0/1 message sets (decode, encode, down-conversion of v2 batches). See CLIENTS.md §2.

export {
  type ControlBatchOptions,
  type ControlRecord,
  ControlRecordType,
  type ControlRecordTypeName,
  encodeControlBatch,
  readControlRecord,
} from './control.js';
export {
  type CheckRecordsOptions,
  checkRecords,
  type DecodedRecord,
  type DecodeOptions,
  decodeRecordBatch,
  decodeRecordBatchSync,
  decodeRecords,
  RecordCursor,
  type RecordHeader,
} from './decode.js';
export { type DownConvertOptions, downConvertRecords } from './down-convert.js';
export {
  type EncodeBatchOptions,
  encodeRecordBatch,
  encodeRecordBatchSync,
  type RecordHeaderInput,
  type RecordInput,
} from './encode.js';
export { RecordBatchError, type RecordErrorName } from './errors.js';
export * from './header.js';
export { type BatchPosition, completeBatchesEnd, iterateBatches } from './iterate.js';
export {
  decodeLegacyMessageSet,
  decodeLegacyMessageSetSync,
  type LegacyMessage,
  legacyCompressedPayload,
  parseLegacyMessage,
} from './legacy.js';
export {
  encodeLegacyMessageSet,
  encodeLegacyMessageSetSync,
  type LegacyEncodeOptions,
  type LegacyRecordInput,
} from './legacy-encode.js';
export { assertValidBatch, MIN_RECORD_SIZE, type ValidateOptions, validateBatch } from './validate.js';
