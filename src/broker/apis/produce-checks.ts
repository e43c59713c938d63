// Request-level checks Kafka applies to produced records before the log sees them
// (`ProduceRequest.validateRecords`): from Produce v3 the records of a partition must be exactly
// one magic-2 batch; zstd needs Produce v7+; the batch may not exceed the topic's
// `max.message.bytes`. CRC, counts, timestamps and sequences are the log's checks.
// Internal topics are written by their coordinators only (ReplicaManager's
// `internalTopicsAllowed`).

import { ErrorCode, KafkaError } from '../../protocol/errors.js';
import {
  ATTRIBUTES_OFFSET,
  COMPRESSION_CODEC_MASK,
  LENGTH_OFFSET,
  LOG_OVERHEAD,
  MAGIC_OFFSET,
} from '../../protocol/record-batch/header.js';
import { INTERNAL_TOPICS } from '../metadata/types.js';

const ZSTD = 4;
/** The client id Kafka's own admin tooling uses; the only client allowed to write internal topics. */
const ADMIN_CLIENT_ID = '__admin_client';
/** Smallest size at which the attributes byte can be read. */
const ATTRIBUTES_END = ATTRIBUTES_OFFSET + 2;

export function checkProducedRecords(
  records: Buffer | null,
  produceVersion: number,
  maxMessageBytes: number,
): void {
  if (records === null || records.length === 0) {
    throw new KafkaError(ErrorCode.INVALID_RECORD, 'Produce request contains no records for this partition');
  }
  if (records.length < ATTRIBUTES_END)
    throw new KafkaError(
      ErrorCode.CORRUPT_MESSAGE,
      `Record data of ${records.length} bytes is too short for a batch`,
    );
  const magic = records.readInt8(MAGIC_OFFSET);
  if (magic !== 2) {
    throw new KafkaError(
      ErrorCode.INVALID_RECORD,
      `Produce requests with version ${produceVersion} are only allowed to contain record batches with magic version 2`,
    );
  }
  const batchSize = LOG_OVERHEAD + records.readInt32BE(LENGTH_OFFSET);
  if (batchSize !== records.length) {
    if (batchSize < records.length) {
      throw new KafkaError(
        ErrorCode.INVALID_RECORD,
        `Produce requests with version ${produceVersion} must have exactly one record batch per partition`,
      );
    }
    throw new KafkaError(
      ErrorCode.CORRUPT_MESSAGE,
      `Batch length ${batchSize} exceeds the ${records.length} bytes of record data`,
    );
  }
  if (records.length > maxMessageBytes) {
    throw new KafkaError(
      ErrorCode.MESSAGE_TOO_LARGE,
      `The batch size ${records.length} is larger than the topic's max.message.bytes ${maxMessageBytes}`,
    );
  }
  const codec = records.readInt16BE(ATTRIBUTES_OFFSET) & COMPRESSION_CODEC_MASK;
  if (codec === ZSTD && produceVersion < 7) {
    throw new KafkaError(
      ErrorCode.UNSUPPORTED_COMPRESSION_TYPE,
      'Produce requests with version < 7 cannot use ZStandard compression',
    );
  }
}

/**
 * A client may not append to `__consumer_offsets` or `__transaction_state`: Kafka answers
 * INVALID_TOPIC_EXCEPTION after the record checks, except for the `__admin_client` client id.
 */
export function checkNotInternalTopic(topic: string, clientId: string | null): void {
  if (INTERNAL_TOPICS.has(topic) && clientId !== ADMIN_CLIENT_ID) {
    throw new KafkaError(ErrorCode.INVALID_TOPIC_EXCEPTION, `Cannot append to internal topic ${topic}`);
  }
}
