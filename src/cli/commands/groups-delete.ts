// `samsa groups --delete` and `--delete-offsets`, with kafka-consumer-groups' messages on success
// and one line per failure that says what to do about it.
import type { Admin } from '../../client/admin/admin.js';
import type { TopicPartition } from '../../client/admin/context.js';
import { KafkaResponseError } from '../../client/errors.js';
import { ErrorCode } from '../../protocol/errors.js';
import type { CommandIO } from './common.js';
import type { TopicScope } from './reset-args.js';

/** Why a group-level request failed, in words a user can act on. */
function reason(err: unknown, group: string): string {
  if (!(err instanceof KafkaResponseError)) return (err as Error).message;
  switch (err.errorCode) {
    case ErrorCode.NON_EMPTY_GROUP:
      return `the group has active members (stop its consumers first)`;
    case ErrorCode.GROUP_ID_NOT_FOUND:
      return `consumer group '${group}' does not exist (samsa groups --list shows the groups)`;
    case ErrorCode.GROUP_SUBSCRIBED_TO_TOPIC:
      return 'the group is consuming the topic (stop its consumers, or delete offsets of topics it no longer reads)';
    case ErrorCode.UNKNOWN_TOPIC_OR_PARTITION:
      return 'no such topic or partition (samsa topics --list shows the topics)';
    default:
      return err.message;
  }
}

export async function deleteGroups(admin: Admin, groups: readonly string[], io: CommandIO): Promise<number> {
  const deleted: string[] = [];
  let failed = 0;
  for (const g of groups) {
    try {
      await admin.deleteGroups([g]);
      deleted.push(g);
    } catch (err) {
      failed++;
      io.stderr.write(`samsa: consumer group '${g}' could not be deleted: ${reason(err, g)}\n`);
    }
  }
  if (deleted.length > 0)
    io.stdout.write(
      `Deletion of requested consumer groups (${deleted.map((g) => `'${g}'`).join(', ')}) was successful.\n`,
    );
  return failed > 0 ? 1 : 0;
}

export async function deleteOffsets(
  admin: Admin,
  group: string,
  scopes: readonly TopicScope[],
  io: CommandIO,
): Promise<number> {
  const whole = scopes.filter((s) => s.partitions === null).map((s) => s.topic);
  const existing = new Set(await admin.listTopics({ includeInternal: true }));
  const unknown = whole.filter((t) => !existing.has(t));
  if (unknown.length > 0) {
    io.stderr.write(
      `samsa: topic ${unknown.map((t) => `'${t}'`).join(', ')} does not exist (samsa topics --list shows the topics)\n`,
    );
    return 1;
  }
  const described = whole.length === 0 ? [] : await admin.describeTopics([...new Set(whole)]);
  const partitions: TopicPartition[] = scopes.flatMap((s) =>
    s.partitions !== null
      ? s.partitions.map((partition) => ({ topic: s.topic, partition }))
      : (described.find((d) => d.name === s.topic)?.partitions ?? []).map((p) => ({
          topic: s.topic,
          partition: p.partition,
        })),
  );
  try {
    await admin.deleteConsumerGroupOffsets(group, partitions);
  } catch (err) {
    io.stderr.write(
      `samsa: offsets of consumer group '${group}' could not be deleted: ${reason(err, group)}\n`,
    );
    return 1;
  }
  const w = Math.max(15, ...partitions.map((p) => p.topic.length));
  const line = (t: string, p: string, status: string) =>
    `${t.padEnd(w)} ${p.padEnd(10)} ${status.padEnd(15)}\n`;
  io.stdout.write(
    `Request succeeded for deleting offsets from group ${group}.\n\n${line('TOPIC', 'PARTITION', 'STATUS')}${partitions
      .sort((a, b) => (a.topic < b.topic ? -1 : a.topic > b.topic ? 1 : a.partition - b.partition))
      .map((p) => line(p.topic, String(p.partition), 'Successful'))
      .join('')}`,
  );
  return 0;
}
