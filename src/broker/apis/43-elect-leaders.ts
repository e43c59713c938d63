// ElectLeaders (key 43), v0-2 (KIP-183, KIP-460): PREFERRED (0; the only kind in v0) moves each
// partition's leadership to its first assigned replica when it is alive and in sync; UNCLEAN (1)
// elects a leader for leaderless partitions, from out-of-sync replicas if need be. A null list
// means every partition, and then partitions that needed no election are left out of the answer.
// Served by the active controller; elsewhere every partition answers NOT_CONTROLLER (Kafka's
// ZooKeeper mode; clients send it to the controller Metadata names). As Kafka's
// DelayedElectLeader, the answer waits up to TimeoutMs for this broker's metadata to show each
// new leader; those still missing then answer REQUEST_TIMED_OUT.

import { ErrorCode } from '../../protocol/errors.js';
import {
  type ElectLeadersRequest,
  type ElectLeadersResponse,
  electLeadersApi,
} from '../../protocol/messages/generated/elect-leaders.js';
import type { ElectionOutcome } from '../metadata/controller/elect-leaders.js';
import { defineApi } from './api.js';
import { AclOp, clusterAllowed } from './authorize.js';

const PREFERRED = 0;
const UNCLEAN = 1;

type Outcome = Pick<ElectionOutcome, 'topic' | 'partition' | 'errorCode' | 'errorMessage'>;

export default defineApi<ElectLeadersRequest, ElectLeadersResponse>({
  api: electLeadersApi,
  minVersion: 0,
  maxVersion: 2,
  async handle(ctx, req) {
    const { broker } = ctx;
    if (req.electionType !== PREFERRED && req.electionType !== UNCLEAN)
      return { throttleTimeMs: 0, errorCode: ErrorCode.INVALID_REQUEST, replicaElectionResults: [] };
    // The request names a set: a partition listed twice is elected (and answered) once.
    const named =
      req.topicPartitions === null
        ? null
        : [
            ...new Map(
              req.topicPartitions.flatMap((t) =>
                t.partitions.map((partition) => [
                  `${t.topic}\u0000${partition}`,
                  { topic: t.topic, partition },
                ]),
              ),
            ).values(),
          ];
    if (!clusterAllowed(ctx, AclOp.ALTER)) {
      const results = new Map<string, ElectLeadersResponse['replicaElectionResults'][number]>();
      for (const tp of named ?? []) {
        const t = results.get(tp.topic) ?? { topic: tp.topic, partitionResult: [] };
        results.set(tp.topic, t);
        t.partitionResult.push({
          partitionId: tp.partition,
          errorCode: ErrorCode.CLUSTER_AUTHORIZATION_FAILED,
          errorMessage: null,
        });
      }
      return {
        throttleTimeMs: 0,
        errorCode: ErrorCode.CLUSTER_AUTHORIZATION_FAILED,
        replicaElectionResults: [...results.values()],
      };
    }
    const controller = broker.leadership;
    let outcomes: Outcome[];
    if (controller === undefined || (named === null && !controller.isActive)) {
      const all =
        named ??
        [...broker.image.topics].flatMap((t) =>
          t.partitions.map((p) => ({ topic: t.name, partition: p.partition })),
        );
      outcomes = all.map((tp) => ({ ...tp, errorCode: ErrorCode.NOT_CONTROLLER, errorMessage: null }));
    } else {
      const elected = await controller.electLeaders(req.electionType === PREFERRED, named);
      const done = elected.filter((o) => o.errorCode === ErrorCode.NONE && o.leader >= 0);
      const late = new Set(
        (done.length === 0 ? [] : await broker.commands.awaitLeaders(done, Math.max(0, req.timeoutMs))).map(
          (tp) => `${tp.topic}\u0000${tp.partition}`,
        ),
      );
      outcomes = elected.map((o) =>
        late.has(`${o.topic}\u0000${o.partition}`)
          ? { ...o, errorCode: ErrorCode.REQUEST_TIMED_OUT, errorMessage: null }
          : o,
      );
    }
    if (named === null) outcomes = outcomes.filter((o) => o.errorCode !== ErrorCode.ELECTION_NOT_NEEDED);
    const byTopic = new Map<string, ElectLeadersResponse['replicaElectionResults'][number]>();
    for (const o of outcomes) {
      let t = byTopic.get(o.topic);
      if (t === undefined) {
        t = { topic: o.topic, partitionResult: [] };
        byTopic.set(o.topic, t);
      }
      t.partitionResult.push({
        partitionId: o.partition,
        errorCode: o.errorCode,
        errorMessage: o.errorMessage,
      });
    }
    return { throttleTimeMs: 0, errorCode: ErrorCode.NONE, replicaElectionResults: [...byTopic.values()] };
  },
});
