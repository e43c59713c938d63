// describeGroups as Kafka 4's admin does it: ConsumerGroupDescribe first (a KIP-848 consumer
// group, classic members of a mixed group included, with epochs and target assignments), then
// DescribeGroups for the ids it does not know (GROUP_ID_NOT_FOUND: a classic group or none) or
// when the coordinator does not offer it. A group that exists nowhere is described as Dead with
// no members, the answer of DescribeGroups before v6 (v6 says GROUP_ID_NOT_FOUND instead).

import type { BrokerLink } from '../../net/broker-link.js';
import { ErrorCode } from '../../protocol/errors.js';
import {
  type ConsumerGroupDescribeResponseDescribedGroup,
  type ConsumerGroupDescribeResponseTopicPartitions,
  consumerGroupDescribeApi,
} from '../../protocol/messages/generated/consumer-group-describe.js';
import { readConsumerProtocolAssignment } from '../../protocol/messages/generated/data/consumer-protocol-assignment.js';
import { describeGroupsApi } from '../../protocol/messages/generated/describe-groups.js';
import { Reader } from '../../protocol/primitives/reader.js';
import { KafkaResponseError, UnsupportedVersionError } from '../errors.js';
import type { AdminContext, TopicPartition } from './context.js';

export interface GroupMemberDescription {
  memberId: string;
  groupInstanceId: string | null;
  clientId: string;
  clientHost: string;
  /** Decoded for protocol type "consumer"; otherwise empty (see `rawAssignment`). */
  assignment: TopicPartition[];
  /** The classic protocol's assignment bytes; empty for a consumer group. */
  rawAssignment: Buffer;
  /** Consumer group: the member epoch; null in a classic group. */
  memberEpoch: number | null;
  /** Consumer group: what the coordinator is moving the member to; null in a classic group. */
  targetAssignment: TopicPartition[] | null;
  /**
   * Consumer group: true for a member on the consumer protocol (ConsumerGroupHeartbeat), false
   * for a classic member still using JoinGroup; null when not known (classic group, or a broker
   * answering ConsumerGroupDescribe v0). Kafka's MemberDescription.upgraded.
   */
  upgraded: boolean | null;
}

export interface GroupDescription {
  groupId: string;
  /** "classic", or "consumer" for a KIP-848 group. */
  type: 'classic' | 'consumer';
  state: string;
  protocolType: string;
  /** The chosen assignor (e.g. "range"; a consumer group's server assignor, e.g. "uniform"). */
  protocol: string;
  members: GroupMemberDescription[];
  /** The broker that coordinates the group (the one that answered). */
  coordinator: { nodeId: number; host: string; port: number };
  /** Consumer group: the group epoch; null in a classic group. */
  groupEpoch: number | null;
  /** Consumer group: the epoch of the target assignment; null in a classic group. */
  targetAssignmentEpoch: number | null;
}

export async function describeGroups(
  ctx: AdminContext,
  groupIds: readonly string[],
): Promise<GroupDescription[]> {
  return Promise.all(
    groupIds.map((groupId) =>
      ctx.retry(async () => {
        const coordinator = await ctx.groupCoordinator(groupId);
        return (
          (await describeConsumerGroup(ctx, coordinator, groupId)) ??
          (await describeClassicGroup(ctx, coordinator, groupId))
        );
      }),
    ),
  );
}

/** The consumer group, or null when the coordinator knows no consumer group by that id. */
async function describeConsumerGroup(
  ctx: AdminContext,
  coordinator: BrokerLink,
  groupId: string,
): Promise<GroupDescription | null> {
  let res: Awaited<ReturnType<typeof requestConsumerGroup>>;
  try {
    res = await requestConsumerGroup(coordinator, groupId);
  } catch (err) {
    if (err instanceof UnsupportedVersionError) return null; // a broker before KIP-848
    throw err;
  }
  const g = res.groups.find((x) => x.groupId === groupId) ?? res.groups[0];
  if (g === undefined)
    throw new KafkaResponseError(-1, `ConsumerGroupDescribe returned nothing for ${groupId}`);
  if (g.errorCode === ErrorCode.GROUP_ID_NOT_FOUND || g.errorCode === ErrorCode.UNSUPPORTED_VERSION)
    return null;
  ctx.checkGroupError(groupId, g.errorCode, 'describe consumer group');
  return consumerGroupDescription(g, coordinator);
}

function requestConsumerGroup(coordinator: BrokerLink, groupId: string) {
  return coordinator.request(consumerGroupDescribeApi, {
    groupIds: [groupId],
    includeAuthorizedOperations: false,
  });
}

function consumerGroupDescription(
  g: ConsumerGroupDescribeResponseDescribedGroup,
  coordinator: BrokerLink,
): GroupDescription {
  return {
    groupId: g.groupId,
    type: 'consumer',
    state: g.groupState,
    protocolType: 'consumer',
    protocol: g.assignorName,
    members: g.members.map((m) => ({
      memberId: m.memberId,
      groupInstanceId: m.instanceId,
      clientId: m.clientId,
      clientHost: m.clientHost,
      assignment: partitionsOf(m.assignment.topicPartitions),
      rawAssignment: Buffer.alloc(0),
      memberEpoch: m.memberEpoch,
      targetAssignment: partitionsOf(m.targetAssignment.topicPartitions),
      upgraded: m.memberType < 0 ? null : m.memberType === 1,
    })),
    coordinator: { nodeId: coordinator.nodeId, host: coordinator.host, port: coordinator.port },
    groupEpoch: g.groupEpoch,
    targetAssignmentEpoch: g.assignmentEpoch,
  };
}

function partitionsOf(topics: readonly ConsumerGroupDescribeResponseTopicPartitions[]): TopicPartition[] {
  return topics.flatMap((t) => t.partitions.map((partition) => ({ topic: t.topicName, partition })));
}

async function describeClassicGroup(
  ctx: AdminContext,
  coordinator: BrokerLink,
  groupId: string,
): Promise<GroupDescription> {
  const res = await coordinator.request(describeGroupsApi, {
    groups: [groupId],
    includeAuthorizedOperations: false,
  });
  const g = res.groups.find((x) => x.groupId === groupId) ?? res.groups[0];
  if (g === undefined) throw new KafkaResponseError(-1, `DescribeGroups returned nothing for ${groupId}`);
  const missing = g.errorCode === ErrorCode.GROUP_ID_NOT_FOUND;
  if (!missing) ctx.checkGroupError(groupId, g.errorCode, 'describe group');
  return {
    groupId,
    type: 'classic',
    state: missing ? 'Dead' : g.groupState,
    protocolType: g.protocolType,
    protocol: g.protocolData,
    members: g.members.map((m) => ({
      memberId: m.memberId,
      groupInstanceId: m.groupInstanceId,
      clientId: m.clientId,
      clientHost: m.clientHost,
      assignment: decodeAssignment(g.protocolType, m.memberAssignment),
      rawAssignment: m.memberAssignment,
      memberEpoch: null,
      targetAssignment: null,
      upgraded: null,
    })),
    coordinator: { nodeId: coordinator.nodeId, host: coordinator.host, port: coordinator.port },
    groupEpoch: null,
    targetAssignmentEpoch: null,
  };
}

function decodeAssignment(protocolType: string, buf: Buffer): TopicPartition[] {
  if (protocolType !== 'consumer' || buf.length < 2) return [];
  try {
    const r = new Reader(buf);
    const version = r.int16();
    const a = readConsumerProtocolAssignment(r, Math.min(Math.max(version, 0), 3));
    return a.assignedPartitions.flatMap((t) =>
      t.partitions.map((partition) => ({ topic: t.topic, partition })),
    );
  } catch {
    return []; // an assignor we do not understand: the raw bytes are still returned
  }
}
