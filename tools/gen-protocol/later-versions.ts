// Versions Kafka added after the schema snapshot in ../shared/kafka-protocol (apache/kafka trunk
// of 2024-10-24, before 4.0). The loader widens those messages' validVersions, so the generator
// emits the versions and the tests check them against the same ranges. A version whose wire
// layout is exactly the previous version's (only the meaning changed) needs nothing else; a
// version that adds fields lists them in LATER_FIELDS, which the loader inserts where Kafka's
// schema has them (a schema refreshed past that version must drop its entries: the loader
// refuses a field that is already there).
//
// - Produce v12 (Kafka 4.0, KIP-890 part 2): a transactional Produce also adds its partitions
//   to the transaction (the broker asks the coordinator to add them; no AddPartitionsToTxn from
//   the client). Clients send it only when `transaction.version` is finalized at 2 or above.
// - TxnOffsetCommit v5 (Kafka 4.0, KIP-890 part 2): the group's __consumer_offsets partition is
//   added to the transaction by the broker (no AddOffsetsToTxn from the client); same rule.
// - DescribeGroups v6 (Kafka 4.0, KIP-1043): a group that does not exist, or is not a classic
//   group, is answered GROUP_ID_NOT_FOUND with a message (ErrorMessage, new in v6) instead of
//   the Dead state with no error of v0-5.
// - ConsumerGroupDescribe v1 (Kafka 4.0, KIP-1099): each member says whether it uses the
//   classic protocol or ConsumerGroupHeartbeat (MemberType, new in v1).
//
// (EndTxn v5, the third request of transaction protocol v2, is in the snapshot already: its
// response carries the producer id and epoch the client continues with.)

/** Message name → the highest version Kafka defines now. */
export const LATER_VERSIONS: ReadonlyMap<string, number> = new Map([
  ['ProduceRequest', 12],
  ['ProduceResponse', 12],
  ['TxnOffsetCommitRequest', 5],
  ['TxnOffsetCommitResponse', 5],
  ['DescribeGroupsRequest', 6],
  ['DescribeGroupsResponse', 6],
  ['ConsumerGroupDescribeRequest', 1],
  ['ConsumerGroupDescribeResponse', 1],
]);

/** A field a later version added, in the schema's own notation. */
export interface LaterField {
  /** The struct that gets it: the message's name for the top level, else the struct's name. */
  readonly struct: string;
  /** The field it follows on the wire. */
  readonly after: string;
  readonly field: {
    readonly name: string;
    readonly type: string;
    readonly versions: string;
    readonly nullableVersions?: string;
    readonly default?: string;
    readonly about: string;
  };
}

/** Message name → the fields its later versions added. */
export const LATER_FIELDS: ReadonlyMap<string, readonly LaterField[]> = new Map([
  [
    'DescribeGroupsResponse',
    [
      {
        struct: 'DescribedGroup',
        after: 'ErrorCode',
        field: {
          name: 'ErrorMessage',
          type: 'string',
          versions: '6+',
          nullableVersions: '6+',
          default: 'null',
          about: 'What went wrong with this group, or null when nothing did.',
        },
      },
    ],
  ],
  [
    'ConsumerGroupDescribeResponse',
    [
      {
        struct: 'Member',
        after: 'TargetAssignment',
        field: {
          name: 'MemberType',
          type: 'int8',
          versions: '1+',
          default: '-1',
          about: 'The protocol the member uses: 0 classic (JoinGroup), 1 consumer, -1 not known.',
        },
      },
    ],
  ],
]);
