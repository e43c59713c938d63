// Typed shortcuts over RawClient for tests: produce one batch, fetch a partition to the end,
// create a topic.

import { createTopicsApi } from '../../../src/protocol/messages/generated/create-topics.js';
import { fetchApi } from '../../../src/protocol/messages/generated/fetch.js';
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

export async function produce(
  c: RawClient,
  topic: string,
  partition: number,
  records: Buffer,
  acks = 1,
  version = 9,
) {
  const r = await c.request(produceApi, version, {
    transactionalId: null,
    acks,
    timeoutMs: 5000,
    topicData: [{ name: topic, partitionData: [{ index: partition, records }] }],
  });
  return r.responses[0]!.partitionResponses[0]!;
}

/** One Fetch (v11, read_uncommitted, no wait) of `partition` from `offset`: its partition answer. */
export async function fetchOnce(c: RawClient, topic: string, partition: number, offset: bigint) {
  const r = await c.request(fetchApi, 11, {
    clusterId: null,
    replicaId: -1,
    replicaState: { replicaId: -1, replicaEpoch: -1n },
    maxWaitMs: 0,
    minBytes: 0,
    maxBytes: 4 << 20,
    isolationLevel: 0,
    sessionId: 0,
    sessionEpoch: -1,
    topics: [
      {
        topic,
        topicId: 'AAAAAAAAAAAAAAAAAAAAAA',
        partitions: [
          {
            partition,
            currentLeaderEpoch: -1,
            fetchOffset: offset,
            lastFetchedEpoch: -1,
            logStartOffset: -1n,
            partitionMaxBytes: 1 << 20,
            replicaDirectoryId: 'AAAAAAAAAAAAAAAAAAAAAA',
          },
        ],
      },
    ],
    forgottenTopicsData: [],
    rackId: '',
  });
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
