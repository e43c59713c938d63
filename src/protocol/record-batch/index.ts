// RecordBatch v2 (header access, validation, encode, lazy decode, control records) and legacy
// magic 0/1 message-set decoding. See CLIENTS.md §2.
export * from './header.js';
export { RecordBatchError, type RecordErrorName } from './errors.js';
export { validateBatch, assertValidBatch, MIN_RECORD_SIZE, type ValidateOptions } from './validate.js';
export { iterateBatches, completeBatchesEnd, type BatchPosition } from './iterate.js';
export {
  encodeRecordBatch,
  encodeRecordBatchSync,
  type EncodeBatchOptions,
  type RecordHeaderInput,
  type RecordInput,
} from './encode.js';
export {
  RecordCursor,
  checkRecords,
  decodeRecordBatch,
  decodeRecordBatchSync,
  decodeRecords,
  type CheckRecordsOptions,
  type DecodedRecord,
  type DecodeOptions,
  type RecordHeader,
} from './decode.js';
export {
  ControlRecordType,
  encodeControlBatch,
  readControlRecord,
  type ControlBatchOptions,
  type ControlRecord,
  type ControlRecordTypeName,
} from './control.js';
export { decodeLegacyMessageSet, decodeLegacyMessageSetSync } from './legacy.js';
