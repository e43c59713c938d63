// What Kafka 3.9's KafkaApis does to a Fetch answer for old request versions, after the read
// (`maybeConvertFetchedData`, `maybeDownConvertStorageError`):
// - v0-5: KAFKA_STORAGE_ERROR becomes NOT_LEADER_OR_FOLLOWER (older clients do not retry it);
// - v0-9: a topic whose compression.type is zstd answers UNSUPPORTED_COMPRESSION_TYPE;
// - v0-3: stored batches are v2, so the records are down-converted (`downConvertRecords`): to
//   magic 0 for v0-1, magic 1 for v2-3, control batches dropped, compression kept. A consumer's
//   fetch of a topic with `message.downconversion.enable=false` answers UNSUPPORTED_VERSION.
//   These versions have no isolation level: they read up to the high watermark like any
//   read_uncommitted consumer, aborted transactional records included (Kafka does not filter
//   them either; only the markers are dropped).
// Only topics this broker knows are touched (Kafka: no log config, no conversion).

import { ErrorCode, KafkaError } from '../../protocol/errors.js';
import type { FetchRequest, FetchResponsePartitionData } from '../../protocol/messages/generated/fetch.js';
import { downConvertRecords } from '../../protocol/record-batch/down-convert.js';
import type { BrokerServices } from './services.js';

/** The first Fetch version that may carry zstd (KIP-110). */
const FIRST_ZSTD_VERSION = 10;
/** The first Fetch version whose records are RecordBatch v2. */
const FIRST_V2_VERSION = 4;

/** Whether `adaptOldFetchAnswer` has anything to do for this version. */
export function needsOldFetchAdaptation(version: number): boolean {
  return version < FIRST_ZSTD_VERSION;
}

function enabled(value: string | null): boolean {
  return value === null || value.trim().toLowerCase() !== 'false';
}

/** Kafka's `FetchResponse.partitionResponse(tp, error)`: the error alone. */
function errorOnly(p: FetchResponsePartitionData, errorCode: number): void {
  p.errorCode = errorCode;
  p.highWatermark = -1n;
  p.lastStableOffset = -1n;
  p.logStartOffset = -1n;
  p.abortedTransactions = null;
  p.records = Buffer.alloc(0);
}

/** Adapts the answer in place, partition by partition (the request's order). */
export async function adaptOldFetchAnswer(
  broker: BrokerServices,
  version: number,
  req: FetchRequest,
  responses: { topic: string; partitions: FetchResponsePartitionData[] }[],
  fromFollower: boolean,
): Promise<void> {
  for (let t = 0; t < responses.length; t++) {
    const topic = responses[t]!;
    const image = broker.image.topic(topic.topic);
    const requested = req.topics[t]?.partitions ?? [];
    for (let i = 0; i < topic.partitions.length; i++) {
      const p = topic.partitions[i]!;
      if (version <= 5 && p.errorCode === ErrorCode.KAFKA_STORAGE_ERROR)
        p.errorCode = ErrorCode.NOT_LEADER_OR_FOLLOWER;
      if (image === undefined) continue;
      if (broker.configs.topicValue('compression.type', image.configs) === 'zstd') {
        errorOnly(p, ErrorCode.UNSUPPORTED_COMPRESSION_TYPE);
        continue;
      }
      if (version >= FIRST_V2_VERSION) continue;
      if (
        !fromFollower &&
        !enabled(broker.configs.topicValue('message.downconversion.enable', image.configs))
      ) {
        errorOnly(p, ErrorCode.UNSUPPORTED_VERSION);
        continue;
      }
      if (p.records === null || p.records.length === 0) continue;
      const asked = requested[i];
      const fetchOffset =
        asked !== undefined && asked.partition === p.partitionIndex ? asked.fetchOffset : 0n;
      try {
        p.records = await downConvertRecords(p.records, version <= 1 ? 0 : 1, fetchOffset);
      } catch (e) {
        if (!(e instanceof KafkaError)) throw e;
        errorOnly(p, e.code === ErrorCode.UNSUPPORTED_COMPRESSION_TYPE ? e.code : ErrorCode.CORRUPT_MESSAGE);
      }
    }
  }
}
