// CMAK's cluster actions on a topic: preferred leader election (a partition or the whole topic,
// ElectLeaders) and partition reassignment (AlterPartitionReassignments to start or cancel,
// ListPartitionReassignments for the progress). Sent to the controller through the Admin client.
import type { Admin } from '../../client/index.js';
import { errorName } from '../../protocol/errors.js';
import { ApiError, intParam } from '../http-util.js';

/** Partitions of `topic` being moved: target replicas, and those being added and removed. */
export async function topicReassignments(admin: Admin, topic: string, partitions: readonly number[]) {
  if (partitions.length === 0) return [];
  const ongoing = await admin.listPartitionReassignments(
    partitions.map((partition) => ({ topic, partition })),
  );
  return ongoing
    .filter((r) => r.topic === topic)
    .map((r) => ({
      partition: r.partition,
      replicas: r.replicas,
      addingReplicas: r.addingReplicas,
      removingReplicas: r.removingReplicas,
    }))
    .sort((a, b) => a.partition - b.partition);
}

function partitionList(v: unknown, what: string): number[] | null {
  if (v === undefined || v === null) return null;
  if (!Array.isArray(v) || v.length === 0)
    throw new ApiError(400, `${what} must be a non-empty list or null`);
  return v.map((p, i) => intParam(p, `${what}[${i}]`));
}

/**
 * `{ partitions: [0, 2] }` (or null/absent: every partition of the topic) → one result per
 * partition; ELECTION_NOT_NEEDED (the preferred replica already leads) is an answer, not a failure.
 */
export async function electPreferred(admin: Admin, topic: string, body: Record<string, unknown>) {
  let partitions = partitionList(body.partitions, 'partitions');
  if (partitions === null) {
    const [t] = await admin.describeTopics([topic]);
    if (t === undefined) throw new ApiError(404, `no topic ${topic}`);
    partitions = t.partitions.map((p) => p.partition);
  }
  const results = await admin.electLeaders(
    'preferred',
    partitions.map((partition) => ({ topic, partition })),
  );
  return {
    topic,
    results: results
      .map((r) => ({
        partition: r.partition,
        error: r.errorCode === 0 ? null : errorName(r.errorCode),
        message: r.errorMessage,
      }))
      .sort((a, b) => a.partition - b.partition),
  };
}

/**
 * `{ partitions: [{ partition: 0, replicas: [2, 3] }, { partition: 1, replicas: null }] }`:
 * start moving each partition to its replica list, or cancel its move (null).
 */
export async function reassign(admin: Admin, topic: string, body: Record<string, unknown>) {
  const list = body.partitions;
  if (!Array.isArray(list) || list.length === 0)
    throw new ApiError(400, 'partitions must be a non-empty list of {partition, replicas}');
  const moves = list.map((x: unknown, i) => {
    const o = (x ?? {}) as Record<string, unknown>;
    const partition = intParam(o.partition, `partitions[${i}].partition`);
    if (o.replicas === null) return { topic, partition, replicas: null };
    if (!Array.isArray(o.replicas) || o.replicas.length === 0)
      throw new ApiError(
        400,
        `partitions[${i}].replicas must be a non-empty list of broker ids, or null to cancel`,
      );
    const replicas = o.replicas.map((b, j) => intParam(b, `partitions[${i}].replicas[${j}]`));
    if (new Set(replicas).size !== replicas.length)
      throw new ApiError(400, `partitions[${i}].replicas names a broker twice`);
    return { topic, partition, replicas };
  });
  await admin.alterPartitionReassignments(moves);
  return {
    topic,
    started: moves.filter((m) => m.replicas !== null).length,
    cancelled: moves.filter((m) => m.replicas === null).length,
  };
}
