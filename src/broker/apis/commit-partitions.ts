// Shared by OffsetCommit (08) and TxnOffsetCommit (28): Kafka's check before a commit reaches
// the group coordinator (KafkaApis handleOffsetCommitRequest / handleTxnOffsetCommitRequest,
// every version). A partition of a topic the metadata does not know, or at an index the topic
// does not have, is answered UNKNOWN_TOPIC_OR_PARTITION and left out of what the coordinator
// sees; internal topics are not special. (Kafka's authorization checks come first: group READ,
// then topic READ. Samsa has no ACLs, so both always pass.) When no partition is left the
// coordinator is not asked at all, so even a group error cannot replace these answers. The
// response lists these error partitions first, then the coordinator's (Kafka's response builder
// order). Also how both hand their partitions to the coordinator (`coordinatorTopics`).
import { ErrorCode } from '../../protocol/errors.js';
import type { OffsetCommitRequest } from '../coordinator/group/group-types.js';
import type { MetadataView } from '../metadata/cluster-image.js';

export interface CommitResultTopic {
  name: string;
  partitions: Array<{ partitionIndex: number; errorCode: number }>;
}

interface RequestTopic<P extends { partitionIndex: number }> {
  name: string;
  partitions: P[];
}

const NONE_UNKNOWN: CommitResultTopic[] = [];

/** Whether every partition of `topics` exists (the usual case: nothing to split). */
function allKnown(image: MetadataView, topics: readonly RequestTopic<{ partitionIndex: number }>[]): boolean {
  for (const t of topics) {
    const count = image.topic(t.name)?.partitions.length ?? 0;
    for (const p of t.partitions) if (!(p.partitionIndex >= 0 && p.partitionIndex < count)) return false;
  }
  return true;
}

/**
 * Splits the request's topics into those the coordinator may see and the per-partition errors;
 * when every partition exists, `known` is `topics` itself and nothing is allocated but the pair.
 */
export function splitUnknownPartitions<P extends { partitionIndex: number }, T extends RequestTopic<P>>(
  image: MetadataView,
  topics: readonly T[],
): { known: readonly T[]; unknown: readonly CommitResultTopic[] } {
  if (allKnown(image, topics)) return { known: topics, unknown: NONE_UNKNOWN };
  const known: T[] = [];
  const unknown: CommitResultTopic[] = [];
  for (const t of topics) {
    const count = image.topic(t.name)?.partitions.length ?? 0;
    const valid = t.partitions.filter((p) => p.partitionIndex >= 0 && p.partitionIndex < count);
    if (valid.length < t.partitions.length) {
      unknown.push({
        name: t.name,
        partitions: t.partitions
          .filter((p) => !valid.includes(p))
          .map((p) => ({
            partitionIndex: p.partitionIndex,
            errorCode: ErrorCode.UNKNOWN_TOPIC_OR_PARTITION,
          })),
      });
    }
    if (valid.length > 0) known.push(valid.length === t.partitions.length ? t : { ...t, partitions: valid });
  }
  return { known, unknown };
}

/** The unknown-partition errors followed by the coordinator's results, one entry per topic name. */
export function mergeCommitResults(
  unknown: readonly CommitResultTopic[],
  results: CommitResultTopic[],
): CommitResultTopic[] {
  if (unknown.length === 0) return results;
  const out = unknown.map((t) => ({ name: t.name, partitions: [...t.partitions] }));
  const byName = new Map(out.map((t) => [t.name, t]));
  for (const t of results) {
    const existing = byName.get(t.name);
    if (existing === undefined) {
      const copy = { name: t.name, partitions: [...t.partitions] };
      out.push(copy);
      byName.set(t.name, copy);
    } else existing.partitions.push(...t.partitions);
  }
  return out;
}

interface WireCommitPartition {
  partitionIndex: number;
  committedOffset: bigint;
  committedLeaderEpoch: number;
  committedMetadata: string | null;
}

/** The request's topics as the group coordinator takes them; `leaderEpochs` false: the version has none (-1). */
export function coordinatorTopics(
  topics: readonly { name: string; partitions: readonly WireCommitPartition[] }[],
  leaderEpochs: boolean,
): OffsetCommitRequest['topics'] {
  return topics.map((t) => ({
    name: t.name,
    partitions: t.partitions.map((p) => ({
      partition: p.partitionIndex,
      offset: p.committedOffset,
      leaderEpoch: leaderEpochs ? p.committedLeaderEpoch : -1,
      metadata: p.committedMetadata,
    })),
  }));
}
