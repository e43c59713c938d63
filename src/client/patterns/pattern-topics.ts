// Topic checks and creation shared by the fan-out bridge and the delay queue: a source topic must
// exist; a target topic is created with the partition count asked for, or must already have it.
import type { Admin } from '../admin/admin.js';
import { errorClass, KafkaResponseError } from '../errors.js';

/** A topic the pattern needs is missing, or exists with another partition count. */
export class TopicSetupError extends errorClass('TopicSetupError', 'TOPIC_SETUP', false) {}

const UNKNOWN_TOPIC = 'UNKNOWN_TOPIC_OR_PARTITION';

/** The partition count of a topic, or null if it does not exist. */
export async function partitionCount(admin: Admin, topic: string): Promise<number | null> {
  try {
    const [d] = await admin.describeTopics([topic]);
    return d?.partitions.length ?? null;
  } catch (err) {
    if (err instanceof KafkaResponseError && err.code === UNKNOWN_TOPIC) return null;
    throw err;
  }
}

/** The partition count of a topic that must exist. */
export async function existingPartitionCount(admin: Admin, topic: string, role: string): Promise<number> {
  const n = await partitionCount(admin, topic);
  if (n === null) throw new TopicSetupError(`${role} topic '${topic}' does not exist`);
  return n;
}

export interface EnsuredTopic {
  partitions: number;
  created: boolean;
}

/**
 * Creates `topic` with `partitions` partitions unless it exists. An existing topic is returned as
 * it is (the caller decides whether its partition count will do). Waits until every partition
 * of a new topic has a leader, so producers can write to any of them at once.
 */
export async function ensureTopic(
  admin: Admin,
  topic: string,
  partitions: number,
  replicationFactor: number | undefined,
  waitMs: number,
): Promise<EnsuredTopic> {
  const existing = await partitionCount(admin, topic);
  if (existing !== null) return { partitions: existing, created: false };
  try {
    await admin.createTopics([
      {
        name: topic,
        numPartitions: partitions,
        ...(replicationFactor !== undefined ? { replicationFactor } : {}),
      },
    ]);
  } catch (err) {
    // Created meanwhile by someone else: use it as it is.
    if (err instanceof KafkaResponseError && err.code === 'TOPIC_ALREADY_EXISTS')
      return { partitions: await existingPartitionCount(admin, topic, 'target'), created: false };
    throw err;
  }
  const deadline = Date.now() + waitMs;
  for (;;) {
    const [d] = await admin.describeTopics([topic]).catch(() => [undefined]);
    if (d !== undefined && d.partitions.length === partitions && d.partitions.every((p) => p.leader >= 0))
      return { partitions, created: true };
    if (Date.now() > deadline)
      throw new TopicSetupError(
        `topic '${topic}' was created but its partitions have no leader after ${waitMs} ms`,
      );
    await new Promise((r) => setTimeout(r, 100));
  }
}
