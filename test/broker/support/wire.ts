// Typed shortcuts over RawClient for tests: create a topic, produce one batch, a partition's
// offset from ListOffsets, the one Fetch request body of the tests and benches, fetch a
// partition once or to the end.

import { createTopicsApi } from '../../../src/protocol/messages/generated/create-topics.js';
import { type FetchRequest, fetchApi } from '../../../src/protocol/messages/generated/fetch.js';
import { listOffsetsApi } from '../../../src/protocol/messages/generated/list-offsets.js';
import { produceApi } from '../../../src/protocol/messages/generated/produce.js';
import {
  type DecodedRecord,
  decodeRecords,
  iterateBatches,
} from '../../../src/protocol/record-batch/index.js';
import type { RawClient } from './raw-client.js';

export async function createTopic(
  c: RawClient,
  name: string,
  partitions = 1,
  configs: Record<string, string> = {},
): Promise<number> {
  const r = await c.request(createTopicsApi, 5, {
    topics: [
      {
        name,
        numPartitions: partitions,
        replicationFactor: 1,
        assignments: [],
        configs: Object.entries(configs).map(([k, v]) => ({ name: k, value: v })),
      },
    ],
    timeoutMs: 5000,
    validateOnly: false,
  });
  return r.topics[0]!.errorCode;
}

/** One Produce of `records` to one partition: its partition answer. */
export async function produce(
  c: RawClient,
  topic: string,
  partition: number,
  records: Buffer,
  acks = 1,
  version = 9,
  transactionalId: string | null = null,
) {
  const r = await c.request(produceApi, version, {
    transactionalId,
    acks,
    timeoutMs: 5000,
    topicData: [{ name: topic, partitionData: [{ index: partition, records }] }],
  });
  return r.responses[0]!.partitionResponses[0]!;
}

/** The offset ListOffsets (v7, read_uncommitted) answers for `timestamp` (-1: the log end). */
export async function listOffset(
  c: RawClient,
  topic: string,
  partition: number,
  timestamp = -1n,
): Promise<bigint> {
  const r = await c.request(listOffsetsApi, 7, {
    replicaId: -1,
    isolationLevel: 0,
    timeoutMs: 5000,
    topics: [
      {
        name: topic,
        partitions: [{ partitionIndex: partition, currentLeaderEpoch: -1, timestamp, maxNumOffsets: 1 }],
      },
    ],
  });
  const p = r.topics[0]!.partitions[0]!;
  if (p.errorCode !== 0) throw new Error(`ListOffsets ${topic}-${partition}: error ${p.errorCode}`);
  return p.offset;
}

const ZERO_UUID = 'AAAAAAAAAAAAAAAAAAAAAA';

/** One partition of a Fetch request; the per-partition fields it leaves out come from the options. */
export interface FetchAt {
  partition: number;
  offset: bigint;
  partitionMaxBytes?: number;
  currentLeaderEpoch?: number;
  lastFetchedEpoch?: number;
}

/**
 * What a test's Fetch changes from a consumer's sessionless, read_uncommitted fetch by topic
 * name that does not wait. Per-partition values apply to every partition without its own.
 */
export interface FetchOptions {
  /** `fetchOnce` only: the request version (11). */
  version?: number;
  /** `fetchOnce` only: how long the broker may take, before scaling (RawClient's default). */
  timeoutMs?: number;
  /** A follower's broker id (-1: a consumer). */
  replicaId?: number;
  maxWaitMs?: number;
  minBytes?: number;
  /** 4 MiB. */
  maxBytes?: number;
  /** 0 read_uncommitted, 1 read_committed. */
  isolationLevel?: number;
  sessionId?: number;
  sessionEpoch?: number;
  /** Fetch by topic id (v13+) instead of by name. */
  topicId?: string;
  /** Partitions to drop from the fetch session. */
  forget?: number[];
  /** 1 MiB. */
  partitionMaxBytes?: number;
  currentLeaderEpoch?: number;
  logStartOffset?: bigint;
}

/**
 * The one Fetch request body of the tests and benches: `partitions` of `topic` (none: no topic,
 * as an incremental fetch that changes nothing).
 */
export function fetchRequest(
  topic: string,
  partitions: FetchAt | readonly FetchAt[],
  o: FetchOptions = {},
): FetchRequest {
  const list: readonly FetchAt[] = 'partition' in partitions ? [partitions] : partitions;
  const topicId = o.topicId ?? ZERO_UUID;
  const replicaId = o.replicaId ?? -1;
  return {
    clusterId: null,
    replicaId,
    replicaState: { replicaId, replicaEpoch: -1n },
    maxWaitMs: o.maxWaitMs ?? 0,
    minBytes: o.minBytes ?? 0,
    maxBytes: o.maxBytes ?? 4 << 20,
    isolationLevel: o.isolationLevel ?? 0,
    sessionId: o.sessionId ?? 0,
    sessionEpoch: o.sessionEpoch ?? -1,
    topics:
      list.length === 0
        ? []
        : [
            {
              topic,
              topicId,
              partitions: list.map((at) => ({
                partition: at.partition,
                currentLeaderEpoch: at.currentLeaderEpoch ?? o.currentLeaderEpoch ?? -1,
                fetchOffset: at.offset,
                lastFetchedEpoch: at.lastFetchedEpoch ?? -1,
                logStartOffset: o.logStartOffset ?? -1n,
                partitionMaxBytes: at.partitionMaxBytes ?? o.partitionMaxBytes ?? 1 << 20,
                replicaDirectoryId: ZERO_UUID,
              })),
            },
          ],
    forgottenTopicsData: o.forget ? [{ topic, topicId, partitions: o.forget }] : [],
    rackId: '',
  };
}

/** One Fetch (v11 unless `o.version`) of `partition` from `offset`: its partition answer. */
export async function fetchOnce(
  c: RawClient,
  topic: string,
  partition: number,
  offset: bigint,
  o: FetchOptions = {},
) {
  const version = o.version ?? 11;
  const r = await c.request(fetchApi, version, fetchRequest(topic, { partition, offset }, o), o.timeoutMs);
  return r.responses[0]!.partitions[0]!;
}

/** Every record from `from` to the high watermark (read_uncommitted). */
export async function fetchAll(
  c: RawClient,
  topic: string,
  partition: number,
  from = 0n,
): Promise<DecodedRecord[]> {
  const out: DecodedRecord[] = [];
  let offset = from;
  for (;;) {
    const p = await fetchOnce(c, topic, partition, offset);
    if (p.errorCode !== 0) throw new Error(`fetch error ${p.errorCode}`);
    const records = p.records ?? Buffer.alloc(0);
    let got = 0;
    for (const b of iterateBatches(records)) {
      for (const rec of await decodeRecords(records.subarray(b.position, b.position + b.size))) {
        if (rec.offset >= offset) {
          out.push(rec);
          got++;
        }
      }
    }
    if (out.length > 0) offset = out.at(-1)!.offset + 1n;
    if (got === 0 || offset >= p.highWatermark) return out;
  }
}
