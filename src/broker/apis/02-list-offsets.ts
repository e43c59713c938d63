// ListOffsets (key 2), v0-9. Special timestamps: -1 latest (the high watermark, or the LSO for
// read_committed, v2+), -2 earliest (log start), -3 max timestamp (v7+), -4 earliest local
// (v8+; no tiered storage, so the log start), -5 latest tiered (v9+; none, so -1). Any other
// timestamp: the first offset whose timestamp is at or after it, among offsets consumers may
// read (below the high watermark / LSO), else -1. v0 answers in OldStyleOffsets. ReplicaId -2
// (Kafka's DEBUGGING_REPLICA_ID, what tools send to learn each replica's log end) is answered by
// followers too, bounded by the replica's own log end instead of the HW.

import { ErrorCode, KafkaError } from '../../protocol/errors.js';
import {
  type ListOffsetsRequest,
  type ListOffsetsResponse,
  type ListOffsetsResponseListOffsetsPartitionResponse,
  listOffsetsApi,
} from '../../protocol/messages/generated/list-offsets.js';
import { EARLIEST_TIMESTAMP, LATEST_TIMESTAMP, MAX_TIMESTAMP } from '../../storage/index.js';
import type { Partition } from '../replica/partition.js';
import { defineApi } from './api.js';
import { AclOp, deniedNames, ResType } from './authorize.js';
import { leaderEpochError } from './leader-epoch-check.js';
import { notHostedError } from './partition-errors.js';

const EARLIEST_LOCAL_TIMESTAMP = -4n;
const LATEST_TIERED_TIMESTAMP = -5n;
const DEBUGGING_REPLICA_ID = -2;

type Answer = Pick<ListOffsetsResponseListOffsetsPartitionResponse, 'offset' | 'timestamp' | 'leaderEpoch'>;

/** `bound`: the offsets a reader may see end there (HW, LSO, or the log end for debugging). */
async function lookup(p: Partition, ts: bigint, bound: bigint): Promise<Answer> {
  const log = p.log;
  switch (ts) {
    case LATEST_TIMESTAMP:
      return { offset: bound, timestamp: -1n, leaderEpoch: log.latestEpoch };
    case EARLIEST_TIMESTAMP:
    case EARLIEST_LOCAL_TIMESTAMP: {
      const r = await log.offsetForTimestamp(EARLIEST_TIMESTAMP);
      return { offset: log.logStartOffset, timestamp: -1n, leaderEpoch: r?.leaderEpoch ?? -1 };
    }
    case LATEST_TIERED_TIMESTAMP:
      return { offset: -1n, timestamp: -1n, leaderEpoch: -1 };
    default: {
      if (ts < 0n && ts !== MAX_TIMESTAMP)
        throw new KafkaError(ErrorCode.INVALID_REQUEST, `Invalid timestamp ${ts}`);
      const r = await log.offsetForTimestamp(ts);
      if (!r || r.offset >= bound) return { offset: -1n, timestamp: -1n, leaderEpoch: -1 };
      return { offset: r.offset, timestamp: r.timestamp, leaderEpoch: r.leaderEpoch };
    }
  }
}

export default defineApi<ListOffsetsRequest, ListOffsetsResponse>({
  api: listOffsetsApi,
  minVersion: 0,
  maxVersion: 9,
  async handle(ctx, req) {
    const { broker, version } = ctx;
    const readCommitted = version >= 2 && req.isolationLevel === 1;
    const debugging = req.replicaId === DEBUGGING_REPLICA_ID;
    const topics: ListOffsetsResponse['topics'] = [];
    const denied = deniedNames(ctx, AclOp.DESCRIBE, ResType.TOPIC, req.topics, (t) => t.name);
    for (const t of req.topics) {
      const partitions: ListOffsetsResponseListOffsetsPartitionResponse[] = [];
      for (const rp of t.partitions) {
        const out: ListOffsetsResponseListOffsetsPartitionResponse = {
          partitionIndex: rp.partitionIndex,
          errorCode: ErrorCode.NONE,
          oldStyleOffsets: [],
          timestamp: -1n,
          offset: -1n,
          leaderEpoch: -1,
        };
        partitions.push(out);
        if (denied?.has(t.name)) {
          out.errorCode = ErrorCode.TOPIC_AUTHORIZATION_FAILED;
          continue;
        }
        const p = broker.replicas.get(t.name, rp.partitionIndex);
        if (!p) {
          out.errorCode = notHostedError(broker, t.name, rp.partitionIndex);
          continue;
        }
        out.errorCode =
          p.isLeader || debugging
            ? leaderEpochError(rp.currentLeaderEpoch, p.leaderEpoch)
            : ErrorCode.NOT_LEADER_OR_FOLLOWER;
        if (out.errorCode !== ErrorCode.NONE) continue;
        const log = p.log;
        const bound = debugging ? log.logEndOffset : readCommitted ? log.lastStableOffset : log.highWatermark;
        try {
          const a = await lookup(p, rp.timestamp, bound);
          if (version === 0) {
            out.oldStyleOffsets = a.offset >= 0n && rp.maxNumOffsets > 0 ? [a.offset] : [];
          } else {
            out.offset = a.offset;
            out.timestamp = a.timestamp;
            out.leaderEpoch = a.leaderEpoch;
          }
        } catch (e) {
          if (!(e instanceof KafkaError)) throw e;
          out.errorCode = e.code;
        }
      }
      topics.push({ name: t.name, partitions });
    }
    return { throttleTimeMs: 0, topics };
  },
});
