// Versions Kafka added after the schema snapshot in ../shared/kafka-protocol (apache/kafka trunk
// of 2024-10-24, before 4.0) whose wire layout is exactly the previous version's: only the
// meaning changed. The loader widens those messages' validVersions, so the generator emits the
// versions (sharing the previous version's codec) and the tests check them against the same
// ranges. A version that changes a field must not be listed here: it needs its schema.
//
// - Produce v12 (Kafka 4.0, KIP-890 part 2): a transactional Produce also adds its partitions
//   to the transaction (the broker asks the coordinator to add them; no AddPartitionsToTxn from
//   the client). Clients send it only when `transaction.version` is finalized at 2 or above.
// - TxnOffsetCommit v5 (Kafka 4.0, KIP-890 part 2): the group's __consumer_offsets partition is
//   added to the transaction by the broker (no AddOffsetsToTxn from the client); same rule.
//
// (EndTxn v5, the third request of transaction protocol v2, is in the snapshot already: its
// response carries the producer id and epoch the client continues with.)

/** Message name → the highest version Kafka defines now, for layout-identical additions only. */
export const LATER_VERSIONS: ReadonlyMap<string, number> = new Map([
  ['ProduceRequest', 12],
  ['ProduceResponse', 12],
  ['TxnOffsetCommitRequest', 5],
  ['TxnOffsetCommitResponse', 5],
]);
