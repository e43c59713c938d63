// ConsumerGroupHeartbeat requests as a KIP-848 member sends them (Kafka's HeartbeatState):
// everything on a join (epoch 0) and on the first heartbeat after a failure, otherwise only the
// fields that changed since the last request — the coordinator reads an absent field as
// "unchanged", so resending the owned partitions on every beat would be harmless but sending a
// subscription only once and then losing that request is not: after any error or transport
// failure the next request carries everything again.
//
// The owned partitions are resent whenever the local assignment changes, including its local
// epoch (a counter of assignments received): that resend is the acknowledgement that ends a
// revocation on the coordinator.
import { randomBytes } from 'node:crypto';
import {
  type ConsumerGroupHeartbeatRequest,
  type ConsumerGroupHeartbeatResponse,
  consumerGroupHeartbeatApi,
} from '../../protocol/messages/generated/consumer-group-heartbeat.js';
import { UnsupportedVersionError } from '../errors.js';
import type { ResolvedConsumerOptions } from './consumer-config.js';
import type { GroupRpc } from './group-rpc.js';

/** Epochs with a meaning of their own in ConsumerGroupHeartbeat. */
export const JOIN_EPOCH = 0;
export const LEAVE_EPOCH = -1;
export const STATIC_LEAVE_EPOCH = -2;

/** Partitions by topic id, as the protocol carries them. */
export type TopicIdPartitions = Map<string, number[]>;

/** What this member owns, and which received assignment (`localEpoch`) it reconciled. */
export interface LocalAssignment {
  localEpoch: number;
  partitions: TopicIdPartitions;
}

/** The member's view that a heartbeat reports. */
export interface HeartbeatView {
  groupId: string;
  memberId: string;
  memberEpoch: number;
  instanceId: string | null;
  rackId: string | null;
  rebalanceTimeoutMs: number;
  /** Exactly one of topics (sorted) and regex is set. */
  topics: string[] | null;
  regex: string | null;
  serverAssignor: string | null;
  owned: LocalAssignment;
}

/**
 * Kafka's member ids are its Uuid type printed as URL-safe base64 (22 characters); like Java,
 * an id starting with '-' is drawn again so that it can never be mistaken for a command-line flag.
 */
export function newMemberId(): string {
  for (;;) {
    const id = randomBytes(16).toString('base64url');
    if (!id.startsWith('-')) return id;
  }
}

export class HeartbeatFields {
  #rebalanceTimeoutMs = -1;
  #topics: string | null = null;
  #regex: string | null = null;
  #assignor: string | null = null;
  #owned: string | null = null;

  /** The next request carries every field (after a failure, a fencing, or a rejoin). */
  reset(): void {
    this.#rebalanceTimeoutMs = -1;
    this.#topics = null;
    this.#regex = null;
    this.#assignor = null;
    this.#owned = null;
  }

  build(v: HeartbeatView): ConsumerGroupHeartbeatRequest {
    const all = v.memberEpoch === JOIN_EPOCH;
    const req: ConsumerGroupHeartbeatRequest = {
      groupId: v.groupId,
      memberId: v.memberId,
      memberEpoch: v.memberEpoch,
      // Always sent for a static member: the coordinator checks it on every heartbeat.
      instanceId: v.instanceId,
      rackId: all ? v.rackId : null,
      rebalanceTimeoutMs: -1,
      subscribedTopicNames: null,
      subscribedTopicRegex: null,
      serverAssignor: null,
      topicPartitions: null,
    };
    if (all || this.#rebalanceTimeoutMs !== v.rebalanceTimeoutMs) {
      req.rebalanceTimeoutMs = v.rebalanceTimeoutMs;
      this.#rebalanceTimeoutMs = v.rebalanceTimeoutMs;
    }
    if (v.topics !== null) {
      const key = v.topics.join('\u0000');
      if (all || this.#topics !== key) req.subscribedTopicNames = [...v.topics];
      this.#topics = key;
      this.#regex = null;
    }
    if (v.regex !== null) {
      if (all || this.#regex !== v.regex) req.subscribedTopicRegex = v.regex;
      this.#regex = v.regex;
      this.#topics = null;
    }
    if (v.serverAssignor !== null && (all || this.#assignor !== v.serverAssignor)) {
      req.serverAssignor = v.serverAssignor;
      this.#assignor = v.serverAssignor;
    }
    const owned = ownedKey(v.owned);
    if (all || this.#owned !== owned) {
      req.topicPartitions = [...v.owned.partitions]
        .filter(([, ps]) => ps.length > 0)
        .map(([topicId, partitions]) => ({ topicId, partitions: [...partitions] }));
      this.#owned = owned;
    }
    return req;
  }
}

function ownedKey(a: LocalAssignment): string {
  const topics = [...a.partitions]
    .filter(([, ps]) => ps.length > 0)
    .map(([id, ps]) => `${id}:${[...ps].sort((x, y) => x - y).join(',')}`)
    .sort();
  return `${a.localEpoch}|${topics.join(';')}`;
}

/** Raised when the coordinator does not speak ConsumerGroupHeartbeat (or has it disabled). */
export function consumerProtocolUnsupported(groupId: string, detail: string, cause?: unknown): Error {
  return new UnsupportedVersionError(
    `group ${groupId}: the broker does not support the consumer group protocol (KIP-848, ConsumerGroupHeartbeat): ` +
      `${detail}. Use groupProtocol: 'classic' with this cluster.`,
    cause,
  );
}

/** Sends one heartbeat to the group coordinator. A regex subscription needs v1 (KIP-848 in Kafka 4). */
export async function sendHeartbeat(
  rpc: GroupRpc,
  req: ConsumerGroupHeartbeatRequest,
  opts: ResolvedConsumerOptions,
  timeoutMs = opts.requestTimeoutMs,
): Promise<ConsumerGroupHeartbeatResponse> {
  const link = await rpc.coordinator();
  try {
    return await link.request(consumerGroupHeartbeatApi, req, {
      minVersion: req.subscribedTopicRegex !== null ? 1 : 0,
      timeoutMs,
    });
  } catch (err) {
    if (err instanceof UnsupportedVersionError)
      throw consumerProtocolUnsupported(rpc.groupId, err.message, err);
    throw err;
  }
}
