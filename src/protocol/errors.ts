// The Kafka error-code table. Codes and names are Kafka's (`Errors.java`, codes -1..133); the
// retriable flag says whether Kafka's exception class for the code extends RetriableException,
// which is what clients use to decide between "retry the request" and "fail the operation".
// Messages are our own short descriptions.

/** Every Kafka error code, keyed by Kafka's enum name. */
export const ErrorCode = {
  UNKNOWN_SERVER_ERROR: -1,
  NONE: 0,
  OFFSET_OUT_OF_RANGE: 1,
  CORRUPT_MESSAGE: 2,
  UNKNOWN_TOPIC_OR_PARTITION: 3,
  INVALID_FETCH_SIZE: 4,
  LEADER_NOT_AVAILABLE: 5,
  NOT_LEADER_OR_FOLLOWER: 6,
  REQUEST_TIMED_OUT: 7,
  BROKER_NOT_AVAILABLE: 8,
  REPLICA_NOT_AVAILABLE: 9,
  MESSAGE_TOO_LARGE: 10,
  STALE_CONTROLLER_EPOCH: 11,
  OFFSET_METADATA_TOO_LARGE: 12,
  NETWORK_EXCEPTION: 13,
  COORDINATOR_LOAD_IN_PROGRESS: 14,
  COORDINATOR_NOT_AVAILABLE: 15,
  NOT_COORDINATOR: 16,
  INVALID_TOPIC_EXCEPTION: 17,
  RECORD_LIST_TOO_LARGE: 18,
  NOT_ENOUGH_REPLICAS: 19,
  NOT_ENOUGH_REPLICAS_AFTER_APPEND: 20,
  INVALID_REQUIRED_ACKS: 21,
  ILLEGAL_GENERATION: 22,
  INCONSISTENT_GROUP_PROTOCOL: 23,
  INVALID_GROUP_ID: 24,
  UNKNOWN_MEMBER_ID: 25,
  INVALID_SESSION_TIMEOUT: 26,
  REBALANCE_IN_PROGRESS: 27,
  INVALID_COMMIT_OFFSET_SIZE: 28,
  TOPIC_AUTHORIZATION_FAILED: 29,
  GROUP_AUTHORIZATION_FAILED: 30,
  CLUSTER_AUTHORIZATION_FAILED: 31,
  INVALID_TIMESTAMP: 32,
  UNSUPPORTED_SASL_MECHANISM: 33,
  ILLEGAL_SASL_STATE: 34,
  UNSUPPORTED_VERSION: 35,
  TOPIC_ALREADY_EXISTS: 36,
  INVALID_PARTITIONS: 37,
  INVALID_REPLICATION_FACTOR: 38,
  INVALID_REPLICA_ASSIGNMENT: 39,
  INVALID_CONFIG: 40,
  NOT_CONTROLLER: 41,
  INVALID_REQUEST: 42,
  UNSUPPORTED_FOR_MESSAGE_FORMAT: 43,
  POLICY_VIOLATION: 44,
  OUT_OF_ORDER_SEQUENCE_NUMBER: 45,
  DUPLICATE_SEQUENCE_NUMBER: 46,
  INVALID_PRODUCER_EPOCH: 47,
  INVALID_TXN_STATE: 48,
  INVALID_PRODUCER_ID_MAPPING: 49,
  INVALID_TRANSACTION_TIMEOUT: 50,
  CONCURRENT_TRANSACTIONS: 51,
  TRANSACTION_COORDINATOR_FENCED: 52,
  TRANSACTIONAL_ID_AUTHORIZATION_FAILED: 53,
  SECURITY_DISABLED: 54,
  OPERATION_NOT_ATTEMPTED: 55,
  KAFKA_STORAGE_ERROR: 56,
  LOG_DIR_NOT_FOUND: 57,
  SASL_AUTHENTICATION_FAILED: 58,
  UNKNOWN_PRODUCER_ID: 59,
  REASSIGNMENT_IN_PROGRESS: 60,
  DELEGATION_TOKEN_AUTH_DISABLED: 61,
  DELEGATION_TOKEN_NOT_FOUND: 62,
  DELEGATION_TOKEN_OWNER_MISMATCH: 63,
  DELEGATION_TOKEN_REQUEST_NOT_ALLOWED: 64,
  DELEGATION_TOKEN_AUTHORIZATION_FAILED: 65,
  DELEGATION_TOKEN_EXPIRED: 66,
  INVALID_PRINCIPAL_TYPE: 67,
  NON_EMPTY_GROUP: 68,
  GROUP_ID_NOT_FOUND: 69,
  FETCH_SESSION_ID_NOT_FOUND: 70,
  INVALID_FETCH_SESSION_EPOCH: 71,
  LISTENER_NOT_FOUND: 72,
  TOPIC_DELETION_DISABLED: 73,
  FENCED_LEADER_EPOCH: 74,
  UNKNOWN_LEADER_EPOCH: 75,
  UNSUPPORTED_COMPRESSION_TYPE: 76,
  STALE_BROKER_EPOCH: 77,
  OFFSET_NOT_AVAILABLE: 78,
  MEMBER_ID_REQUIRED: 79,
  PREFERRED_LEADER_NOT_AVAILABLE: 80,
  GROUP_MAX_SIZE_REACHED: 81,
  FENCED_INSTANCE_ID: 82,
  ELIGIBLE_LEADERS_NOT_AVAILABLE: 83,
  ELECTION_NOT_NEEDED: 84,
  NO_REASSIGNMENT_IN_PROGRESS: 85,
  GROUP_SUBSCRIBED_TO_TOPIC: 86,
  INVALID_RECORD: 87,
  UNSTABLE_OFFSET_COMMIT: 88,
  THROTTLING_QUOTA_EXCEEDED: 89,
  PRODUCER_FENCED: 90,
  RESOURCE_NOT_FOUND: 91,
  DUPLICATE_RESOURCE: 92,
  UNACCEPTABLE_CREDENTIAL: 93,
  INCONSISTENT_VOTER_SET: 94,
  INVALID_UPDATE_VERSION: 95,
  FEATURE_UPDATE_FAILED: 96,
  PRINCIPAL_DESERIALIZATION_FAILURE: 97,
  SNAPSHOT_NOT_FOUND: 98,
  POSITION_OUT_OF_RANGE: 99,
  UNKNOWN_TOPIC_ID: 100,
  DUPLICATE_BROKER_REGISTRATION: 101,
  BROKER_ID_NOT_REGISTERED: 102,
  INCONSISTENT_TOPIC_ID: 103,
  INCONSISTENT_CLUSTER_ID: 104,
  TRANSACTIONAL_ID_NOT_FOUND: 105,
  FETCH_SESSION_TOPIC_ID_ERROR: 106,
  INELIGIBLE_REPLICA: 107,
  NEW_LEADER_ELECTED: 108,
  OFFSET_MOVED_TO_TIERED_STORAGE: 109,
  FENCED_MEMBER_EPOCH: 110,
  UNRELEASED_INSTANCE_ID: 111,
  UNSUPPORTED_ASSIGNOR: 112,
  STALE_MEMBER_EPOCH: 113,
  MISMATCHED_ENDPOINT_TYPE: 114,
  UNSUPPORTED_ENDPOINT_TYPE: 115,
  UNKNOWN_CONTROLLER_ID: 116,
  UNKNOWN_SUBSCRIPTION_ID: 117,
  TELEMETRY_TOO_LARGE: 118,
  INVALID_REGISTRATION: 119,
  TRANSACTION_ABORTABLE: 120,
  INVALID_RECORD_STATE: 121,
  SHARE_SESSION_NOT_FOUND: 122,
  INVALID_SHARE_SESSION_EPOCH: 123,
  FENCED_STATE_EPOCH: 124,
  INVALID_VOTER_KEY: 125,
  DUPLICATE_VOTER: 126,
  VOTER_NOT_FOUND: 127,
  INVALID_REGULAR_EXPRESSION: 128,
  REBOOTSTRAP_REQUIRED: 129,
  STREAMS_INVALID_TOPOLOGY: 130,
  STREAMS_INVALID_TOPOLOGY_EPOCH: 131,
  STREAMS_TOPOLOGY_FENCED: 132,
  SHARE_SESSION_LIMIT_REACHED: 133,
} as const;

export type ErrorName = keyof typeof ErrorCode;
export type ErrorCodeValue = (typeof ErrorCode)[ErrorName];

export interface ErrorInfo {
  readonly code: number;
  readonly name: ErrorName;
  /** True when Kafka's exception for this code extends RetriableException. */
  readonly retriable: boolean;
  readonly message: string;
}

// [retriable, message]. The mapped type makes the compiler reject a missing or misspelt name.
const DETAILS: { readonly [K in ErrorName]: readonly [boolean, string] } = {
  UNKNOWN_SERVER_ERROR: [false, 'The server hit an unexpected error while handling the request.'],
  NONE: [false, 'No error.'],
  OFFSET_OUT_OF_RANGE: [false, 'The offset lies outside the range the server keeps for this partition.'],
  CORRUPT_MESSAGE: [true, 'The message failed its CRC check, has an invalid size, or is otherwise corrupt.'],
  UNKNOWN_TOPIC_OR_PARTITION: [true, 'This server does not host the topic-partition.'],
  INVALID_FETCH_SIZE: [false, 'The fetch size is invalid.'],
  LEADER_NOT_AVAILABLE: [true, 'The partition has no leader right now (an election is in progress).'],
  NOT_LEADER_OR_FOLLOWER: [true, 'This broker is not the leader (or not a replica) of the partition.'],
  REQUEST_TIMED_OUT: [true, 'The request timed out.'],
  BROKER_NOT_AVAILABLE: [false, 'The broker is not available.'],
  REPLICA_NOT_AVAILABLE: [true, 'The replica is not available for the partition.'],
  MESSAGE_TOO_LARGE: [false, 'The message is larger than the server accepts.'],
  STALE_CONTROLLER_EPOCH: [false, 'The request came from a controller that is no longer current.'],
  OFFSET_METADATA_TOO_LARGE: [false, 'The offset commit metadata is too large.'],
  NETWORK_EXCEPTION: [true, 'The connection closed before a response arrived.'],
  COORDINATOR_LOAD_IN_PROGRESS: [true, 'The coordinator is still loading its state.'],
  COORDINATOR_NOT_AVAILABLE: [true, 'The coordinator is not available.'],
  NOT_COORDINATOR: [true, 'This broker is not the coordinator for the key.'],
  INVALID_TOPIC_EXCEPTION: [false, 'The topic name is invalid or the operation is not allowed on it.'],
  RECORD_LIST_TOO_LARGE: [false, 'The record batch is larger than the segment size.'],
  NOT_ENOUGH_REPLICAS: [true, 'Rejected: fewer in-sync replicas than min.insync.replicas.'],
  NOT_ENOUGH_REPLICAS_AFTER_APPEND: [true, 'Written, but to fewer in-sync replicas than required.'],
  INVALID_REQUIRED_ACKS: [false, 'The acks value is invalid.'],
  ILLEGAL_GENERATION: [false, 'The group generation id is not current.'],
  INCONSISTENT_GROUP_PROTOCOL: [false, "The member's protocols do not match those of the group."],
  INVALID_GROUP_ID: [false, 'The group id is invalid.'],
  UNKNOWN_MEMBER_ID: [false, 'The coordinator does not know this member.'],
  INVALID_SESSION_TIMEOUT: [false, 'The session timeout is outside the range the broker allows.'],
  REBALANCE_IN_PROGRESS: [false, 'The group is rebalancing; the member must rejoin.'],
  INVALID_COMMIT_OFFSET_SIZE: [false, 'The offset commit data size is invalid.'],
  TOPIC_AUTHORIZATION_FAILED: [false, 'Not authorized to access the topic.'],
  GROUP_AUTHORIZATION_FAILED: [false, 'Not authorized to access the group.'],
  CLUSTER_AUTHORIZATION_FAILED: [false, 'Not authorized for this cluster operation.'],
  INVALID_TIMESTAMP: [false, 'The message timestamp is outside the accepted range.'],
  UNSUPPORTED_SASL_MECHANISM: [false, 'The SASL mechanism is not supported.'],
  ILLEGAL_SASL_STATE: [false, 'The request is not allowed in the current SASL state.'],
  UNSUPPORTED_VERSION: [false, 'The API version is not supported.'],
  TOPIC_ALREADY_EXISTS: [false, 'The topic already exists.'],
  INVALID_PARTITIONS: [false, 'The partition count is invalid.'],
  INVALID_REPLICATION_FACTOR: [false, 'The replication factor is invalid.'],
  INVALID_REPLICA_ASSIGNMENT: [false, 'The replica assignment is invalid.'],
  INVALID_CONFIG: [false, 'The configuration is invalid.'],
  NOT_CONTROLLER: [true, 'This broker is not the controller.'],
  INVALID_REQUEST: [false, 'The request is malformed or not valid for this broker.'],
  UNSUPPORTED_FOR_MESSAGE_FORMAT: [false, 'The message format version does not support this request.'],
  POLICY_VIOLATION: [false, 'The request violates a configured policy.'],
  OUT_OF_ORDER_SEQUENCE_NUMBER: [false, 'The producer sequence number is out of order.'],
  DUPLICATE_SEQUENCE_NUMBER: [false, 'The producer sequence number is a duplicate.'],
  INVALID_PRODUCER_EPOCH: [false, 'The producer epoch is older than the current one.'],
  INVALID_TXN_STATE: [false, 'The transactional operation is not valid in the current state.'],
  INVALID_PRODUCER_ID_MAPPING: [false, 'The producer id is not assigned to this transactional id.'],
  INVALID_TRANSACTION_TIMEOUT: [false, 'The transaction timeout exceeds the broker maximum.'],
  CONCURRENT_TRANSACTIONS: [true, 'Another operation on this transaction is still in progress.'],
  TRANSACTION_COORDINATOR_FENCED: [false, 'The transaction coordinator epoch is stale.'],
  TRANSACTIONAL_ID_AUTHORIZATION_FAILED: [false, 'Not authorized to use the transactional id.'],
  SECURITY_DISABLED: [false, 'Security features are disabled.'],
  OPERATION_NOT_ATTEMPTED: [false, 'The broker did not attempt this operation.'],
  KAFKA_STORAGE_ERROR: [true, 'A disk error occurred while accessing the log.'],
  LOG_DIR_NOT_FOUND: [false, 'The log directory is not configured on the broker.'],
  SASL_AUTHENTICATION_FAILED: [false, 'SASL authentication failed.'],
  UNKNOWN_PRODUCER_ID: [false, 'The broker has no state for this producer id.'],
  REASSIGNMENT_IN_PROGRESS: [false, 'A partition reassignment is in progress.'],
  DELEGATION_TOKEN_AUTH_DISABLED: [false, 'Delegation tokens are disabled.'],
  DELEGATION_TOKEN_NOT_FOUND: [false, 'The delegation token does not exist.'],
  DELEGATION_TOKEN_OWNER_MISMATCH: [false, 'The principal is not the owner or renewer of the token.'],
  DELEGATION_TOKEN_REQUEST_NOT_ALLOWED: [false, 'Delegation token requests need an authenticated channel.'],
  DELEGATION_TOKEN_AUTHORIZATION_FAILED: [false, 'Not authorized for the delegation token.'],
  DELEGATION_TOKEN_EXPIRED: [false, 'The delegation token has expired.'],
  INVALID_PRINCIPAL_TYPE: [false, 'The principal type is not supported.'],
  NON_EMPTY_GROUP: [false, 'The group still has members.'],
  GROUP_ID_NOT_FOUND: [false, 'The group does not exist.'],
  FETCH_SESSION_ID_NOT_FOUND: [true, 'The fetch session does not exist.'],
  INVALID_FETCH_SESSION_EPOCH: [true, 'The fetch session epoch is wrong.'],
  LISTENER_NOT_FOUND: [true, "The leader has no listener matching the request's listener."],
  TOPIC_DELETION_DISABLED: [false, 'Topic deletion is disabled.'],
  FENCED_LEADER_EPOCH: [true, "The request's leader epoch is older than the broker's."],
  UNKNOWN_LEADER_EPOCH: [true, "The request's leader epoch is newer than the broker's."],
  UNSUPPORTED_COMPRESSION_TYPE: [false, 'The client does not support the compression type of the data.'],
  STALE_BROKER_EPOCH: [false, 'The broker epoch has changed.'],
  OFFSET_NOT_AVAILABLE: [true, 'The new leader has not caught up yet; the offset is not available.'],
  MEMBER_ID_REQUIRED: [false, 'The member must rejoin with the member id it was given.'],
  PREFERRED_LEADER_NOT_AVAILABLE: [true, 'The preferred leader is not available.'],
  GROUP_MAX_SIZE_REACHED: [false, 'The group has reached its maximum size.'],
  FENCED_INSTANCE_ID: [false, 'Another member with the same group.instance.id has fenced this one.'],
  ELIGIBLE_LEADERS_NOT_AVAILABLE: [true, 'No eligible leader is available for the partition.'],
  ELECTION_NOT_NEEDED: [true, 'The partition already has the desired leader.'],
  NO_REASSIGNMENT_IN_PROGRESS: [false, 'No partition reassignment is in progress.'],
  GROUP_SUBSCRIBED_TO_TOPIC: [false, 'Cannot delete offsets of a topic the group is subscribed to.'],
  INVALID_RECORD: [false, 'The broker rejected a record that failed validation.'],
  UNSTABLE_OFFSET_COMMIT: [true, 'Pending transactional offsets must be resolved first.'],
  THROTTLING_QUOTA_EXCEEDED: [true, 'The throttling quota has been exceeded.'],
  PRODUCER_FENCED: [false, 'A newer producer with the same transactional id has fenced this one.'],
  RESOURCE_NOT_FOUND: [false, 'The request refers to a resource that does not exist.'],
  DUPLICATE_RESOURCE: [false, 'The request names the same resource twice.'],
  UNACCEPTABLE_CREDENTIAL: [false, 'The credential does not meet the acceptance criteria.'],
  INCONSISTENT_VOTER_SET: [false, 'The sender or receiver is not in the voter set.'],
  INVALID_UPDATE_VERSION: [false, 'The update version is invalid.'],
  FEATURE_UPDATE_FAILED: [false, 'Finalized features could not be updated.'],
  PRINCIPAL_DESERIALIZATION_FAILURE: [false, 'The forwarded request principal could not be decoded.'],
  SNAPSHOT_NOT_FOUND: [false, 'The snapshot does not exist.'],
  POSITION_OUT_OF_RANGE: [false, 'The snapshot position is out of range.'],
  UNKNOWN_TOPIC_ID: [true, 'This server does not host the topic id.'],
  DUPLICATE_BROKER_REGISTRATION: [false, 'The broker id is already registered.'],
  BROKER_ID_NOT_REGISTERED: [false, 'The broker id is not registered.'],
  INCONSISTENT_TOPIC_ID: [true, "The topic id does not match the log's topic id."],
  INCONSISTENT_CLUSTER_ID: [false, "The cluster id does not match the server's."],
  TRANSACTIONAL_ID_NOT_FOUND: [false, 'The transactional id does not exist.'],
  FETCH_SESSION_TOPIC_ID_ERROR: [true, 'The fetch session mixed topic ids and topic names inconsistently.'],
  INELIGIBLE_REPLICA: [false, 'The proposed ISR contains an ineligible replica.'],
  NEW_LEADER_ELECTED: [false, 'The partition state was updated but a new leader was elected.'],
  OFFSET_MOVED_TO_TIERED_STORAGE: [false, 'The offset has moved to tiered storage.'],
  FENCED_MEMBER_EPOCH: [false, 'The member epoch is fenced; the member must rejoin.'],
  UNRELEASED_INSTANCE_ID: [false, 'The instance id is still held by another member.'],
  UNSUPPORTED_ASSIGNOR: [false, 'The assignor or its version is not supported by the group.'],
  STALE_MEMBER_EPOCH: [false, 'The member epoch is stale.'],
  MISMATCHED_ENDPOINT_TYPE: [false, 'The request reached an endpoint of the wrong type.'],
  UNSUPPORTED_ENDPOINT_TYPE: [false, 'The endpoint type is not supported.'],
  UNKNOWN_CONTROLLER_ID: [false, 'The controller id is not known.'],
  UNKNOWN_SUBSCRIPTION_ID: [false, 'The telemetry subscription id is unknown or outdated.'],
  TELEMETRY_TOO_LARGE: [false, 'The telemetry payload is too large.'],
  INVALID_REGISTRATION: [false, 'The controller rejected the broker registration.'],
  TRANSACTION_ABORTABLE: [
    false,
    'The transaction hit an error; abort it to keep using the transactional id.',
  ],
  INVALID_RECORD_STATE: [false, 'The record state is invalid for this acknowledgement.'],
  SHARE_SESSION_NOT_FOUND: [true, 'The share session does not exist.'],
  INVALID_SHARE_SESSION_EPOCH: [true, 'The share session epoch is wrong.'],
  FENCED_STATE_EPOCH: [false, 'The share-group state epoch does not match.'],
  INVALID_VOTER_KEY: [false, "The voter key does not match the receiver's."],
  DUPLICATE_VOTER: [false, 'The voter is already in the voter set.'],
  VOTER_NOT_FOUND: [false, 'The voter is not in the voter set.'],
  INVALID_REGULAR_EXPRESSION: [false, 'The regular expression is invalid.'],
  REBOOTSTRAP_REQUIRED: [false, 'Client metadata is stale; the client must bootstrap again.'],
  STREAMS_INVALID_TOPOLOGY: [false, 'The streams topology is invalid.'],
  STREAMS_INVALID_TOPOLOGY_EPOCH: [false, 'The streams topology epoch is invalid.'],
  STREAMS_TOPOLOGY_FENCED: [false, 'The streams topology epoch is outdated.'],
  SHARE_SESSION_LIMIT_REACHED: [true, 'The share session limit has been reached.'],
};

const BY_CODE: ReadonlyMap<number, ErrorInfo> = new Map(
  (Object.keys(ErrorCode) as ErrorName[]).map((name) => {
    const [retriable, message] = DETAILS[name];
    const info: ErrorInfo = Object.freeze({ code: ErrorCode[name], name, retriable, message });
    return [info.code, info] as const;
  }),
);

/** All known errors in code order. */
export const ALL_ERRORS: readonly ErrorInfo[] = [...BY_CODE.values()].sort((a, b) => a.code - b.code);

export function isKnownErrorCode(code: number): boolean {
  return BY_CODE.has(code);
}

/**
 * The table entry for a code. An unknown code (a newer broker, or garbage) is reported the way
 * Kafka's `Errors.forCode` does — as UNKNOWN_SERVER_ERROR, not retriable — but keeps the
 * original number so that logs still show what arrived.
 */
export function errorInfo(code: number): ErrorInfo {
  const known = BY_CODE.get(code);
  if (known !== undefined) return known;
  return {
    code,
    name: 'UNKNOWN_SERVER_ERROR',
    retriable: false,
    message: `Unrecognised Kafka error code ${code}.`,
  };
}

export function errorName(code: number): ErrorName {
  return errorInfo(code).name;
}

export function isRetriable(code: number): boolean {
  return errorInfo(code).retriable;
}

/** An error that carries a Kafka error code, for both sides of the wire. */
export class KafkaError extends Error {
  readonly code: number;
  readonly errorName: ErrorName;
  readonly retriable: boolean;

  constructor(code: number, message?: string, options?: { cause?: unknown }) {
    const info = errorInfo(code);
    super(message ?? info.message, options);
    this.name = 'KafkaError';
    this.code = code;
    this.errorName = info.name;
    this.retriable = info.retriable;
  }

  static fromCode(code: number, message?: string): KafkaError {
    return new KafkaError(code, message);
  }
}
