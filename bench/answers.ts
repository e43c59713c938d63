// Produce and Fetch answers as the broker's handlers build them, for the benches that encode,
// decode or count them (protocol-codec.ts, metrics-overhead-broker.ts, metrics-error-counts.ts).

/** A Produce answer: `topics` × `partitions`, every partition appended at `baseOffset + index`. */
export function produceAnswer(topics: number, partitions: number, baseOffset = 1000n) {
  return {
    responses: Array.from({ length: topics }, (_, t) => ({
      name: `topic-${t}`,
      partitionResponses: Array.from({ length: partitions }, (_, p) => ({
        index: p,
        errorCode: 0,
        baseOffset: baseOffset + BigInt(p),
        logAppendTimeMs: -1n,
        logStartOffset: 0n,
        recordErrors: [],
        errorMessage: null,
        currentLeader: { leaderId: -1, leaderEpoch: -1 },
      })),
    })),
    throttleTimeMs: 0,
    nodeEndpoints: [],
  };
}

/** A sessionless Fetch answer: `topics` × `partitions`, each with `recordBytes` of records. */
export function fetchAnswer(topics: number, partitions: number, recordBytes: number) {
  return {
    throttleTimeMs: 0,
    errorCode: 0,
    sessionId: 0,
    responses: Array.from({ length: topics }, (_, t) => ({
      topic: `topic-${t}`,
      topicId: 'AAAAAAAAAAAAAAAAAAAAAA',
      partitions: Array.from({ length: partitions }, (_, p) => ({
        partitionIndex: p,
        errorCode: 0,
        highWatermark: 123456n,
        lastStableOffset: 123456n,
        logStartOffset: 0n,
        divergingEpoch: { epoch: -1, endOffset: -1n },
        currentLeader: { leaderId: -1, leaderEpoch: -1 },
        snapshotId: { endOffset: -1n, epoch: -1 },
        abortedTransactions: null,
        preferredReadReplica: -1,
        records: Buffer.alloc(recordBytes, p),
      })),
    })),
    nodeEndpoints: [],
  };
}
