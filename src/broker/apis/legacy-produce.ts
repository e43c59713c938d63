// Produce v0-2: legacy message sets (magic 0/1) up-converted to one RecordBatch v2 before the
// append, as Kafka 3.x's LogValidator does once the message format is 3.0 (stored batches are
// always v2). What Kafka checks, with its error codes (v0-2 answers carry only the code):
// - each outer entry: at most max.message.bytes (MESSAGE_TOO_LARGE), its CRC (CORRUPT_MESSAGE);
//   a magic other than the first entry's: INVALID_RECORD;
// - a compressed set must be the only entry (INVALID_RECORD); its wrapper: codec 1-3 (zstd
//   does not exist before magic 2: INVALID_RECORD), a value, at least one inner message, a
//   magic-1 wrapper offset 0 or ≥ the last inner offset (INVALID_RECORD); inner messages:
//   CRC (CORRUPT_MESSAGE), not compressed and of the wrapper's magic (INVALID_RECORD);
// - per record: a key on compacted topics (INVALID_RECORD); CreateTime topics check every
//   timestamp other than -1 against message.timestamp.before/after.max.ms, and a producer may
//   not claim LogAppendTime (INVALID_TIMESTAMP).
// Inner offsets are not checked (Kafka rewrites non-consecutive magic-1 inner offsets): offsets
// are assigned by the log. Timestamps: magic 0 messages have none (-1 in the v2 batch), magic 1
// keep theirs (an inner message of a LogAppendTime wrapper: the wrapper's), LogAppendTime topics
// get the append time from the log. The batch is compressed per the topic's compression.type
// (`producer`: the codec of the message set), then re-checked against max.message.bytes by the
// log. An empty message set appends nothing and answers offset -1, as Kafka. Deviation: a
// truncated trailing entry is CORRUPT_MESSAGE (Kafka silently drops the partial bytes, or
// answers success for a set with no complete entry, which loses the client's data unnoticed).
// A RecordBatch v2 sent with an old version is appended as it is, as Kafka does.
// Produce v0-2 is not pipelined (see 00-produce.ts), so the conversion may await; conversions
// run one at a time, each inflating at most 16 × max.message.bytes (16-256 MiB).

import { type CompressionName, codecId, decompress } from '../../protocol/compression/index.js';
import { ErrorCode, KafkaError } from '../../protocol/errors.js';
import {
  type EncodeBatchOptions,
  encodeRecordBatch,
  type RecordInput,
} from '../../protocol/record-batch/encode.js';
import { MAGIC_OFFSET, NO_TIMESTAMP, TIMESTAMP_TYPE_MASK } from '../../protocol/record-batch/header.js';
import { iterateBatches } from '../../protocol/record-batch/iterate.js';
import {
  type LegacyMessage,
  legacyCompressedPayload,
  parseLegacyMessage,
} from '../../protocol/record-batch/legacy.js';
import type { AppendResult, LogConfig } from '../../storage/index.js';
import type { Partition } from '../replica/partition.js';
import type { BrokerServices } from './services.js';

/** The topic settings the conversion follows. */
export interface UpConvertRules {
  readonly topic: string;
  /** The topic's `compression.type` (`producer`, `uncompressed`, or a codec name). */
  readonly compressionType: string;
  readonly config: Pick<
    LogConfig,
    | 'messageTimestampType'
    | 'messageTimestampBeforeMaxMs'
    | 'messageTimestampAfterMaxMs'
    | 'maxMessageBytes'
    | 'cleanupPolicy'
  >;
  /** Cap on a decompressed inner message set. */
  readonly maxDecompressedSize?: number;
}

const ZSTD = 4;
/**
 * Bounds on what one compressed legacy set may inflate to: 16 × max.message.bytes, at least
 * 16 MiB, at most 256 MiB (Kafka has none, but every inner message becomes an object here).
 */
const MIN_INFLATED_CAP = 16 << 20;
const MAX_INFLATED = 256 << 20;

/** Conversions run one at a time, so hostile requests cannot make the broker hold many inflated sets. */
let conversions: Promise<unknown> = Promise.resolve();
function oneAtATime<T>(fn: () => Promise<T>): Promise<T> {
  const run = conversions.then(fn, fn);
  conversions = run.catch(() => {});
  return run;
}

function invalid(message: string): KafkaError {
  return new KafkaError(ErrorCode.INVALID_RECORD, message);
}

function corrupt(message: string): KafkaError {
  return new KafkaError(ErrorCode.CORRUPT_MESSAGE, message);
}

/** A message's timestamp as Kafka's LegacyRecord reports it (inner: the LogAppendTime wrapper's). */
function timestampOf(m: LegacyMessage, wrapper: LegacyMessage | null): bigint {
  if (m.magic === 0) return NO_TIMESTAMP;
  if (wrapper !== null && (wrapper.attributes & TIMESTAMP_TYPE_MASK) !== 0) return wrapper.timestamp;
  return m.timestamp;
}

interface Validated {
  records: RecordInput[];
  /** The message set's codec (0 when uncompressed). */
  sourceCodec: number;
}

/** Kafka's per-record checks (`validateKey`, `validateTimestamp`); record errors decide the code. */
function checkRecord(
  m: LegacyMessage,
  timestamp: bigint,
  entryLogAppendTime: boolean,
  rules: UpConvertRules,
  nowMs: number,
): number {
  if (rules.config.cleanupPolicy.includes('compact') && m.key === null) return ErrorCode.INVALID_RECORD;
  if (rules.config.messageTimestampType === 'CreateTime' && timestamp !== NO_TIMESTAMP) {
    const diff = nowMs - Number(timestamp);
    if (diff > rules.config.messageTimestampBeforeMaxMs || -diff > rules.config.messageTimestampAfterMaxMs)
      return ErrorCode.INVALID_TIMESTAMP;
  } else if (entryLogAppendTime) {
    return ErrorCode.INVALID_TIMESTAMP;
  }
  return ErrorCode.NONE;
}

/** Throws the error Kafka's `processRecordErrors` throws for a batch's record errors. */
function throwRecordErrors(codes: number[], topic: string): void {
  if (codes.length === 0) return;
  if (codes.includes(ErrorCode.INVALID_TIMESTAMP))
    throw new KafkaError(
      ErrorCode.INVALID_TIMESTAMP,
      'One or more records have been rejected due to invalid timestamp',
    );
  throw invalid(`One or more records have been rejected due to ${codes.length} record errors in ${topic}`);
}

async function innerMessages(wrapper: LegacyMessage, rules: UpConvertRules): Promise<LegacyMessage[]> {
  const codec = wrapper.attributes & 0x07;
  if (codec === ZSTD) throw invalid('Invalid wrapper compressionType found in legacy deep record iterator');
  if (wrapper.value === null)
    throw invalid(`Found invalid compressed record set with null value (magic = ${wrapper.magic})`);
  let inner: Buffer;
  try {
    const { data } = legacyCompressedPayload(wrapper);
    inner = await decompress(codec, data, { maxSize: rules.maxDecompressedSize });
  } catch (e) {
    if (e instanceof KafkaError) throw e;
    throw corrupt(`cannot decompress the legacy message set: ${(e as Error).message}`);
  }
  const messages: LegacyMessage[] = [];
  let end = 0;
  for (const e of iterateBatches(inner)) {
    // Inner CRCs are checked record by record (`ensureValid` → CORRUPT_MESSAGE).
    messages.push(parseLegacyMessage(inner, e.position, e.size, true));
    end = e.position + e.size;
  }
  if (end !== inner.length) throw corrupt('truncated inner message set in a compressed legacy message');
  if (messages.length === 0) throw invalid('Found invalid compressed record set with no inner records');
  if (wrapper.magic === 1 && wrapper.offset !== 0n) {
    const lastInner = messages[messages.length - 1]!.offset;
    if (wrapper.offset < lastInner)
      throw invalid(
        `Found invalid wrapper offset in compressed v1 message set, wrapper offset '${wrapper.offset}' is less than the last inner message offset '${lastInner}' and it is not zero.`,
      );
  }
  return messages;
}

/** Parses and validates a legacy message set; null when it has no entry. */
async function validateMessageSet(
  buf: Buffer,
  rules: UpConvertRules,
  nowMs: number,
): Promise<Validated | null> {
  const entries: LegacyMessage[] = [];
  let end = 0;
  let sourceCodec = 0;
  for (const e of iterateBatches(buf)) {
    if (e.magic !== 0 && e.magic !== 1) throw corrupt(`Invalid magic found in record: ${e.magic}`);
    if (e.size > rules.config.maxMessageBytes) {
      throw new KafkaError(
        ErrorCode.MESSAGE_TOO_LARGE,
        `The record batch size in the append to ${rules.topic} is ${e.size} bytes which exceeds the maximum configured value of ${rules.config.maxMessageBytes}.`,
      );
    }
    const m = parseLegacyMessage(buf, e.position, e.size, true);
    entries.push(m);
    const codec = m.attributes & 0x07;
    if (codec !== 0) sourceCodec = codec;
    end = e.position + e.size;
  }
  if (end !== buf.length) {
    throw corrupt(`the message set ends with a truncated entry (${buf.length - end} bytes)`);
  }
  if (entries.length === 0) return null;
  if (sourceCodec !== 0 && entries.length > 1)
    throw invalid('Compressed outer record has more than one batch');
  if (sourceCodec > ZSTD) throw corrupt(`Unknown compression type id: ${sourceCodec}`);
  const first = entries[0]!;
  const records: RecordInput[] = [];
  for (const entry of entries) {
    if (entry.magic !== first.magic) {
      throw invalid(
        `Batch magic ${entry.magic} is not the same as the first batch's magic byte ${first.magic}`,
      );
    }
    const entryLogAppendTime = entry.magic > 0 && (entry.attributes & TIMESTAMP_TYPE_MASK) !== 0;
    const compressed = (entry.attributes & 0x07) !== 0;
    const messages = compressed ? await innerMessages(entry, rules) : [entry];
    const codes: number[] = [];
    for (const m of messages) {
      if (compressed && (m.attributes & 0x07) !== 0) throw invalid('Inner messages must not be compressed');
      if (m.magic !== entry.magic) {
        codes.push(ErrorCode.INVALID_RECORD);
        continue;
      }
      const timestamp = timestampOf(m, compressed ? entry : null);
      const code = checkRecord(m, timestamp, entryLogAppendTime, rules, nowMs);
      if (code !== ErrorCode.NONE) codes.push(code);
      else records.push({ key: m.key, value: m.value, timestamp });
    }
    throwRecordErrors(codes, rules.topic);
  }
  return { records, sourceCodec };
}

/** The codec of the stored batch: the topic's compression.type, `producer` keeping the source's. */
function targetCodec(compressionType: string, sourceCodec: number): number {
  if (compressionType === 'producer') return sourceCodec;
  if (compressionType === 'uncompressed') return 0;
  const id = codecId(compressionType as CompressionName);
  return id < 0 ? sourceCodec : id;
}

/**
 * Converts the records of one Produce v0-2 partition into one RecordBatch v2 (offsets from 0,
 * CreateTime: the log sets LogAppendTime); null for an empty message set. Throws KafkaError.
 */
export async function upConvertMessageSet(
  records: Buffer | null,
  rules: UpConvertRules,
  nowMs: number,
): Promise<Buffer | null> {
  if (records === null || records.length === 0) return null;
  // Errors are KafkaErrors (RecordBatchError and CompressionError included).
  const validated = await validateMessageSet(records, rules, nowMs);
  if (validated === null) return null;
  const options: EncodeBatchOptions = {
    compression: targetCodec(rules.compressionType, validated.sourceCodec),
  };
  return encodeRecordBatch(validated.records, options);
}

/**
 * The append of one Produce v0-2 partition: leadership first (as Kafka checks it before the
 * records), then the conversion, then the usual leader append.
 */
export async function appendLegacy(
  broker: BrokerServices,
  topic: string,
  partition: Partition,
  records: Buffer | null,
  acks: number,
  minIsr: number,
): Promise<AppendResult> {
  if (!partition.isLeader) throw new KafkaError(ErrorCode.NOT_LEADER_OR_FOLLOWER);
  // A v2 batch in an old request is appended as it is (Kafka checks the magic only from v3).
  if (records !== null && records.length > MAGIC_OFFSET && records.readInt8(MAGIC_OFFSET) === 2)
    return partition.appendAsLeader(records, acks, minIsr);
  const image = broker.image.topic(topic);
  const compressionType = String(
    broker.configs.topicValue('compression.type', image?.configs ?? {}) ?? 'producer',
  );
  const config = partition.log.config;
  const maxDecompressedSize = Math.min(MAX_INFLATED, Math.max(MIN_INFLATED_CAP, 16 * config.maxMessageBytes));
  const batch = await oneAtATime(() =>
    upConvertMessageSet(records, { topic, compressionType, config, maxDecompressedSize }, Date.now()),
  );
  if (batch === null) {
    return {
      baseOffset: -1n,
      lastOffset: -1n,
      logAppendTime: -1n,
      logStartOffset: partition.log.logStartOffset,
    };
  }
  return partition.appendAsLeader(batch, acks, minIsr);
}
