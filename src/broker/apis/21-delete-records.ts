// DeleteRecords (key 21), v0-2: moves each partition's log start offset forward. Offset -1
// means "up to the high watermark"; beyond the high watermark is OFFSET_OUT_OF_RANGE. The
// answer's LowWatermark is the new log start offset.

import { ErrorCode, KafkaError } from '../../protocol/errors.js';
import {
  type DeleteRecordsRequest,
  type DeleteRecordsResponse,
  deleteRecordsApi,
} from '../../protocol/messages/generated/delete-records.js';
import { defineApi } from './api.js';
import { AclOp, deniedNames, ResType } from './authorize.js';
import { notHostedError } from './partition-errors.js';

export default defineApi<DeleteRecordsRequest, DeleteRecordsResponse>({
  api: deleteRecordsApi,
  minVersion: 0,
  maxVersion: 2,
  async handle(ctx, req) {
    const { broker } = ctx;
    const topics: DeleteRecordsResponse['topics'] = [];
    const denied = deniedNames(ctx, AclOp.DELETE, ResType.TOPIC, req.topics, (t) => t.name);
    for (const t of req.topics) {
      const partitions: DeleteRecordsResponse['topics'][number]['partitions'] = [];
      for (const rp of t.partitions) {
        if (denied?.has(t.name)) {
          partitions.push({
            partitionIndex: rp.partitionIndex,
            lowWatermark: -1n,
            errorCode: ErrorCode.TOPIC_AUTHORIZATION_FAILED,
          });
          continue;
        }
        const p = broker.replicas.get(t.name, rp.partitionIndex);
        if (!p) {
          partitions.push({
            partitionIndex: rp.partitionIndex,
            lowWatermark: -1n,
            errorCode: notHostedError(broker, t.name, rp.partitionIndex),
          });
          continue;
        }
        try {
          if (!p.isLeader) throw new KafkaError(ErrorCode.NOT_LEADER_OR_FOLLOWER);
          const target = rp.offset === -1n ? p.log.highWatermark : rp.offset;
          if (target < 0n || target > p.log.highWatermark)
            throw new KafkaError(ErrorCode.OFFSET_OUT_OF_RANGE);
          const low = await p.log.deleteRecordsBefore(target);
          partitions.push({
            partitionIndex: rp.partitionIndex,
            lowWatermark: low,
            errorCode: ErrorCode.NONE,
          });
        } catch (e) {
          if (!(e instanceof KafkaError)) throw e;
          partitions.push({ partitionIndex: rp.partitionIndex, lowWatermark: -1n, errorCode: e.code });
        }
      }
      topics.push({ name: t.name, partitions });
    }
    return { throttleTimeMs: 0, topics };
  },
});
