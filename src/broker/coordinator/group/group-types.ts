// Protocol-neutral request and response shapes of the classic group operations. API handlers
// translate between these and the generated codecs of each version.

export interface Protocol {
  name: string;
  metadata: Buffer;
}

/** Who sent a request (for DescribeGroups' client id / host columns). */
export interface RequestOrigin {
  clientId: string;
  clientHost: string;
  apiVersion: number;
}

export interface JoinGroupRequest {
  groupId: string;
  sessionTimeoutMs: number;
  /** -1 (JoinGroup v0) means "same as the session timeout". */
  rebalanceTimeoutMs: number;
  memberId: string;
  groupInstanceId: string | null;
  protocolType: string;
  protocols: Protocol[];
}

export interface JoinGroupMember {
  memberId: string;
  groupInstanceId: string | null;
  metadata: Buffer;
}

export interface JoinGroupResult {
  errorCode: number;
  generationId: number;
  protocolType: string | null;
  protocolName: string | null;
  leader: string;
  skipAssignment: boolean;
  memberId: string;
  members: JoinGroupMember[];
}

export interface SyncGroupRequest {
  groupId: string;
  generationId: number;
  memberId: string;
  groupInstanceId: string | null;
  protocolType: string | null;
  protocolName: string | null;
  assignments: Array<{ memberId: string; assignment: Buffer }>;
}

export interface SyncGroupResult {
  errorCode: number;
  protocolType: string | null;
  protocolName: string | null;
  assignment: Buffer;
}

export interface HeartbeatRequest {
  groupId: string;
  generationId: number;
  memberId: string;
  groupInstanceId: string | null;
}

export interface LeaveMember {
  memberId: string;
  groupInstanceId: string | null;
}

export interface LeaveGroupResult {
  errorCode: number;
  members: Array<LeaveMember & { errorCode: number }>;
}

export interface DescribedMember {
  memberId: string;
  groupInstanceId: string | null;
  clientId: string;
  clientHost: string;
  metadata: Buffer;
  assignment: Buffer;
}

export interface DescribedGroup {
  errorCode: number;
  /** DescribeGroups v6+: Kafka's text for GROUP_ID_NOT_FOUND. */
  errorMessage: string | null;
  groupId: string;
  state: string;
  protocolType: string;
  protocolData: string;
  members: DescribedMember[];
}

/** A group DescribeGroups could not describe: the error alone (Kafka's groupError). */
export function describeGroupError(groupId: string, errorCode: number): DescribedGroup {
  return {
    errorCode,
    errorMessage: null,
    groupId,
    state: '',
    protocolType: '',
    protocolData: '',
    members: [],
  };
}

export interface ListedGroup {
  groupId: string;
  protocolType: string;
  state: string;
  /** ListGroups v5 GroupType; absent = "classic". */
  groupType?: 'classic' | 'consumer';
}

export interface OffsetCommitRequest {
  groupId: string;
  generationId: number;
  memberId: string;
  groupInstanceId: string | null;
  /** OffsetCommit v2–v4 retention override, -1 for the broker default. */
  retentionTimeMs: number;
  /** The OffsetCommit version (a KIP-848 member must use v9+); absent = transactional/internal. */
  apiVersion?: number;
  topics: Array<{
    name: string;
    partitions: Array<{ partition: number; offset: bigint; leaderEpoch: number; metadata: string | null }>;
  }>;
}

export interface TopicPartitionsResult {
  name: string;
  partitions: Array<{ partition: number; errorCode: number }>;
}

export interface OffsetFetchPartition {
  partition: number;
  offset: bigint;
  leaderEpoch: number;
  metadata: string | null;
  errorCode: number;
}

export interface OffsetFetchGroupResult {
  groupId: string;
  errorCode: number;
  topics: Array<{ name: string; partitions: OffsetFetchPartition[] }>;
}

export const EMPTY_BUFFER: Buffer = Buffer.alloc(0);
