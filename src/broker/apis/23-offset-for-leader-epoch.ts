// OffsetForLeaderEpoch (key 23), v0-4: the end offset of a leader epoch (the start offset of
// the next higher epoch, or the log end offset for the latest), used by consumers to detect
// log truncation (KIP-320) and by followers to truncate. CurrentLeaderEpoch (v2+) is checked.

import { ErrorCode } from '../../protocol/errors.js';
import {
  type OffsetForLeaderEpochRequest,
  type OffsetForLeaderEpochResponse,
  offsetForLeaderEpochApi,
} from '../../protocol/messages/generated/offset-for-leader-epoch.js';
import { defineApi } from './api.js';
import { AclOp, clusterAllowed, deniedNames, ResType } from './authorize.js';
import { leaderEpochError } from './leader-epoch-check.js';
import { notHostedError } from './partition-errors.js';

export default defineApi<OffsetForLeaderEpochRequest, OffsetForLeaderEpochResponse>({
  api: offsetForLeaderEpochApi,
  minVersion: 0,
  maxVersion: 4,
  handle(ctx, req) {
    const { broker } = ctx;
    // Brokers hold CLUSTER_ACTION; consumers (KIP-320) need DESCRIBE on each topic.
    const denied =
      broker.authorizer === undefined || clusterAllowed(ctx, AclOp.CLUSTER_ACTION)
        ? null
        : deniedNames(ctx, AclOp.DESCRIBE, ResType.TOPIC, req.topics, (t) => t.topic);
    const topics = req.topics.map((t) => ({
      topic: t.topic,
      partitions: t.partitions.map((rp) => {
        const out = {
          errorCode: ErrorCode.NONE as number,
          partition: rp.partition,
          leaderEpoch: -1,
          endOffset: -1n,
        };
        const p = denied?.has(t.topic) ? undefined : broker.replicas.get(t.topic, rp.partition);
        if (denied?.has(t.topic)) out.errorCode = ErrorCode.TOPIC_AUTHORIZATION_FAILED;
        else if (!p) out.errorCode = notHostedError(broker, t.topic, rp.partition);
        else if (!p.isLeader) out.errorCode = ErrorCode.NOT_LEADER_OR_FOLLOWER;
        else out.errorCode = leaderEpochError(rp.currentLeaderEpoch, p.leaderEpoch);
        if (p && out.errorCode === ErrorCode.NONE) {
          const r = p.log.endOffsetForEpoch(rp.leaderEpoch);
          out.leaderEpoch = r.leaderEpoch;
          out.endOffset = r.endOffset;
        }
        return out;
      }),
    }));
    return { throttleTimeMs: 0, topics };
  },
});
