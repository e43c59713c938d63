// `samsa groups --reset-offsets`: the new offsets of a group's partitions, computed as
// kafka-consumer-groups computes them. --to-offset, --shift-by and --from-file are kept within
// [log start, log end] (a warning names each moved value); --to-datetime/--by-duration take the
// first offset whose timestamp is at or after the time, the log end when none is; --to-current
// keeps the committed offset (the log end for a partition without one). The caller decides
// whether the plan is only printed (--dry-run) or committed (--execute).
import type { Admin } from '../../client/admin/admin.js';
import type { TopicPartition } from '../../client/admin/context.js';
import type { OffsetSpec } from '../../client/admin/partition-ops.js';
import { CommandError } from './common.js';
import { partitionKey } from './record-age.js';
import type { PlannedOffset, TopicScope } from './reset-args.js';

export type ResetTo =
  | { kind: 'earliest' | 'latest' | 'current' }
  | { kind: 'offset'; offset: bigint }
  | { kind: 'shift'; by: bigint }
  | { kind: 'timestamp'; ms: number }
  | { kind: 'file'; plan: readonly PlannedOffset[] };

export type ResetScope = { allTopics: true } | { topics: readonly TopicScope[] };

const sorted = <T extends TopicPartition>(l: T[]): T[] =>
  l.sort((a, b) => (a.topic < b.topic ? -1 : a.topic > b.topic ? 1 : a.partition - b.partition));

/** The partitions a reset applies to, checked to exist (Kafka refuses unknown ones as a whole). */
async function partitionsToReset(
  admin: Admin,
  group: string,
  scope: ResetScope | null,
  to: ResetTo,
  committed: Map<string, bigint>,
  warn: (line: string) => void,
): Promise<TopicPartition[]> {
  // A partition of null: every partition of the topic.
  let wanted: { topic: string; partition: number | null }[];
  if (to.kind === 'file') {
    wanted = to.plan.filter((p) => p.group === group);
    if (wanted.length === 0) warn(`No reset plan for group ${group} found.`);
  } else if (scope === null || 'allTopics' in scope)
    wanted = [...committed.keys()].map((k) => ({
      topic: k.slice(0, k.lastIndexOf(':')),
      partition: Number(k.slice(k.lastIndexOf(':') + 1)),
    }));
  else
    wanted = scope.topics.flatMap((t): { topic: string; partition: number | null }[] =>
      t.partitions === null
        ? [{ topic: t.topic, partition: null }]
        : t.partitions.map((partition) => ({ topic: t.topic, partition })),
    );
  const counts = await partitionCounts(admin, [...new Set(wanted.map((p) => p.topic))]);
  const expanded = wanted.flatMap((p) =>
    p.partition !== null
      ? [{ topic: p.topic, partition: p.partition }]
      : [...Array(counts.get(p.topic)).keys()].map((partition) => ({ topic: p.topic, partition })),
  );
  const missing = expanded.filter((p) => p.partition >= counts.get(p.topic)!);
  if (missing.length > 0)
    throw new CommandError(
      `partition ${missing.map((p) => `${p.topic}-${p.partition}`).join(', ')} does not exist (${[
        ...new Set(missing.map((p) => p.topic)),
      ]
        .map((t) => `${t} has ${counts.get(t)} partitions`)
        .join(', ')}; samsa topics --describe shows the partitions)`,
    );
  const unique = new Map(expanded.map((p) => [partitionKey(p), { topic: p.topic, partition: p.partition }]));
  return sorted([...unique.values()]);
}

/** Partition count of each topic; an unknown topic is a one-line error. */
async function partitionCounts(admin: Admin, topics: readonly string[]): Promise<Map<string, number>> {
  if (topics.length === 0) return new Map();
  const existing = new Set(await admin.listTopics({ includeInternal: true }));
  const unknown = topics.filter((t) => !existing.has(t));
  if (unknown.length > 0)
    throw new CommandError(
      `topic ${unknown.map((t) => `'${t}'`).join(', ')} does not exist (samsa topics --list shows the topics)`,
    );
  return new Map((await admin.describeTopics(topics)).map((t) => [t.name, t.partitions.length]));
}

async function offsetsAt(
  admin: Admin,
  tps: readonly TopicPartition[],
  spec: OffsetSpec,
): Promise<Map<string, bigint>> {
  if (tps.length === 0) return new Map();
  const listed = await admin.listOffsets(tps.map((tp) => ({ ...tp, spec })));
  return new Map(listed.map((l) => [partitionKey(l), l.offset]));
}

export async function planReset(
  admin: Admin,
  group: string,
  scope: ResetScope | null,
  to: ResetTo,
  warn: (line: string) => void,
): Promise<PlannedOffset[]> {
  const committed = new Map(
    (await admin.listConsumerGroupOffsets(group)).map((c) => [partitionKey(c), c.offset]),
  );
  const tps = await partitionsToReset(admin, group, scope, to, committed, warn);
  const plan = (offset: (tp: TopicPartition) => bigint) =>
    tps.map((tp) => ({ group, topic: tp.topic, partition: tp.partition, offset: offset(tp) }));
  switch (to.kind) {
    case 'earliest':
    case 'latest': {
      const at = await offsetsAt(admin, tps, to.kind);
      return plan((tp) => at.get(partitionKey(tp))!);
    }
    case 'current': {
      const end = await offsetsAt(
        admin,
        tps.filter((tp) => !committed.has(partitionKey(tp))),
        'latest',
      );
      return plan((tp) => committed.get(partitionKey(tp)) ?? end.get(partitionKey(tp))!);
    }
    case 'timestamp': {
      const at = await offsetsAt(admin, tps, { timestamp: to.ms });
      const none = tps.filter((tp) => at.get(partitionKey(tp))! < 0n);
      for (const tp of none)
        warn(
          `Warn: Partition ${tp.partition} from topic ${tp.topic} is empty. Falling back to latest known offset.`,
        );
      const end = await offsetsAt(admin, none, 'latest');
      return plan((tp) => {
        const o = at.get(partitionKey(tp))!;
        return o >= 0n ? o : end.get(partitionKey(tp))!;
      });
    }
    case 'offset':
      return clamp(
        admin,
        plan(() => to.offset),
        warn,
      );
    case 'shift': {
      const without = tps.filter((tp) => !committed.has(partitionKey(tp)));
      if (without.length > 0)
        throw new CommandError(
          `cannot shift the offset of ${without.map((p) => `${p.topic}-${p.partition}`).join(', ')}: group '${group}' has no committed offset there (use --to-earliest, --to-latest or --to-offset)`,
        );
      return clamp(
        admin,
        plan((tp) => committed.get(partitionKey(tp))! + to.by),
        warn,
      );
    }
    case 'file': {
      const wanted = new Map(
        to.plan.filter((p) => p.group === group).map((p) => [partitionKey(p), p.offset]),
      );
      return clamp(
        admin,
        plan((tp) => wanted.get(partitionKey(tp))!),
        warn,
      );
    }
  }
}

/** Kafka's checkOffsetsRange: an offset past the log end goes to the end, one before the start to the start. */
async function clamp(
  admin: Admin,
  plan: PlannedOffset[],
  warn: (line: string) => void,
): Promise<PlannedOffset[]> {
  const start = await offsetsAt(admin, plan, 'earliest');
  const end = await offsetsAt(admin, plan, 'latest');
  return plan.map((p) => {
    const hi = end.get(partitionKey(p))!;
    const lo = start.get(partitionKey(p))!;
    const bound =
      p.offset > hi
        ? { v: hi, what: 'higher than latest' }
        : p.offset < lo
          ? { v: lo, what: 'lower than earliest' }
          : null;
    if (bound === null) return p;
    warn(
      `New offset (${p.offset}) is ${bound.what} offset for topic partition ${p.topic}-${p.partition}. Value will be set to ${bound.v}`,
    );
    return { ...p, offset: bound.v };
  });
}
