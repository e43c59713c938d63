// What `samsa groups --list/--describe` shows, gathered through the Admin client the way
// kafka-consumer-groups gathers it: one row per partition a member is assigned (members with
// the most partitions first), then one per partition the group committed but nobody holds;
// LAG = log end offset (read_uncommitted) − committed offset. LAG-TIME is ours (record-age.ts).
import type { Admin } from '../../client/admin/admin.js';
import type { GroupDescription, GroupListing } from '../../client/admin/groups.js';
import type { ClientOptions } from '../../client/config.js';
import { partitionKey, unconsumedRecordAges } from './record-age.js';

/** Consumer groups of both protocols (protocol type "consumer", or "" for offsets-only groups), by name. */
export async function listConsumerGroups(admin: Admin): Promise<GroupListing[]> {
  return (await admin.listGroups()).filter((g) => g.protocolType === 'consumer' || g.protocolType === '');
}

export interface OffsetRow {
  group: string;
  topic: string;
  partition: number;
  /** The leader epoch committed with the offset (--verbose's LEADER-EPOCH); null when none. */
  leaderEpoch: number | null;
  currentOffset: bigint | null;
  logEndOffset: bigint | null;
  lag: bigint | null;
  /** Age in ms of the oldest unconsumed record; null when unknown. */
  lagMs: number | null;
  consumerId: string | null;
  host: string | null;
  clientId: string | null;
}

export interface GroupOffsets {
  group: string;
  state: string;
  rows: OffsetRow[];
}

const byTopicPartition = (
  a: { topic: string; partition: number },
  b: { topic: string; partition: number },
) => (a.topic < b.topic ? -1 : a.topic > b.topic ? 1 : a.partition - b.partition);

export async function describeGroups(admin: Admin, groups: readonly string[]): Promise<GroupDescription[]> {
  const described = await admin.describeGroups([...new Set(groups)]);
  return described.sort((a, b) => (a.groupId < b.groupId ? -1 : a.groupId > b.groupId ? 1 : 0));
}

export async function collectOffsets(
  admin: Admin,
  described: readonly GroupDescription[],
  age: { clientOptions: ClientOptions; budgetMs: number },
): Promise<GroupOffsets[]> {
  const out: GroupOffsets[] = [];
  for (const g of described) {
    if (g.state === 'Dead') {
      out.push({ group: g.groupId, state: g.state, rows: [] });
      continue;
    }
    // Not requireStable, as kafka-consumer-groups: the committed offsets, also while a transaction
    // holds newer ones (which would fail the call with UNSTABLE_OFFSET_COMMIT).
    const committedOffsets = await admin.listConsumerGroupOffsets(g.groupId);
    const committed = new Map(committedOffsets.map((c) => [partitionKey(c), c.offset]));
    // -1: committed without a leader epoch (Kafka shows "-").
    const epochs = new Map(
      committedOffsets.filter((c) => c.leaderEpoch >= 0).map((c) => [partitionKey(c), c.leaderEpoch]),
    );
    const rows: OffsetRow[] = [];
    const assigned = new Set<string>();
    const row = (
      tp: { topic: string; partition: number },
      member: GroupDescription['members'][number] | null,
    ) => {
      assigned.add(partitionKey(tp));
      rows.push({
        group: g.groupId,
        topic: tp.topic,
        partition: tp.partition,
        leaderEpoch: epochs.get(partitionKey(tp)) ?? null,
        currentOffset: committed.get(partitionKey(tp)) ?? null,
        logEndOffset: null,
        lag: null,
        lagMs: null,
        consumerId: member?.memberId ?? null,
        host: member?.clientHost ?? null,
        clientId: member?.clientId ?? null,
      });
    };
    const members = g.members
      .filter((m) => m.assignment.length > 0)
      .sort((a, b) => b.assignment.length - a.assignment.length);
    for (const m of members) for (const tp of [...m.assignment].sort(byTopicPartition)) row(tp, m);
    const unassigned = [...committed.keys()]
      .filter((k) => !assigned.has(k))
      .map((k) => ({
        topic: k.slice(0, k.lastIndexOf(':')),
        partition: Number(k.slice(k.lastIndexOf(':') + 1)),
      }))
      .sort(byTopicPartition);
    for (const tp of unassigned) row(tp, null);
    out.push({ group: g.groupId, state: g.state, rows });
  }
  await fillLogEndAndLag(admin, out, age);
  return out;
}

/** LOG-END-OFFSET, LAG and LAG-TIME of every row; partitions of deleted topics stay unknown. */
async function fillLogEndAndLag(
  admin: Admin,
  groups: readonly GroupOffsets[],
  age: { clientOptions: ClientOptions; budgetMs: number },
): Promise<void> {
  const rows = groups.flatMap((g) => g.rows);
  if (rows.length === 0) return;
  const existing = new Set(await admin.listTopics({ includeInternal: true }));
  const wanted = new Map<string, { topic: string; partition: number }>();
  for (const r of rows) if (existing.has(r.topic)) wanted.set(partitionKey(r), r);
  const now = Date.now();
  const ends = new Map(
    (
      await admin.listOffsets(
        [...wanted.values()].map((tp) => ({
          topic: tp.topic,
          partition: tp.partition,
          spec: 'latest' as const,
        })),
      )
    ).map((l) => [partitionKey(l), l.offset]),
  );
  for (const r of rows) {
    r.logEndOffset = ends.get(partitionKey(r)) ?? null;
    if (r.logEndOffset !== null && r.currentOffset !== null) r.lag = r.logEndOffset - r.currentOffset;
  }
  const queries = new Map<
    string,
    { topic: string; partition: number; offset: bigint; logEndOffset: bigint }
  >();
  for (const r of rows)
    if (r.lag !== null)
      queries.set(`${partitionKey(r)}@${r.currentOffset}`, {
        topic: r.topic,
        partition: r.partition,
        offset: r.currentOffset!,
        logEndOffset: r.logEndOffset!,
      });
  // Groups reading one partition from different offsets need a read each: one pass per offset.
  const byOffset = new Map<string, number>();
  for (const pass of splitByPartition([...queries.values()])) {
    const ages = await unconsumedRecordAges(age.clientOptions, pass, now, age.budgetMs);
    for (const q of pass) {
      const a = ages.get(partitionKey(q));
      if (a !== undefined) byOffset.set(`${partitionKey(q)}@${q.offset}`, a);
    }
  }
  for (const r of rows)
    if (r.lag !== null) r.lagMs = byOffset.get(`${partitionKey(r)}@${r.currentOffset}`) ?? null;
}

/** Lists in which each partition appears at most once. */
function splitByPartition<T extends { topic: string; partition: number }>(items: readonly T[]): T[][] {
  const passes: T[][] = [];
  for (const item of items) {
    const pass = passes.find((p) => !p.some((x) => partitionKey(x) === partitionKey(item)));
    if (pass) pass.push(item);
    else passes.push([item]);
  }
  return passes;
}

export interface MemberRow {
  group: string;
  consumerId: string;
  groupInstanceId: string | null;
  host: string;
  clientId: string;
  partitions: { topic: string; partition: number }[];
  /** Consumer group: the member epoch (CURRENT-EPOCH); null in a classic group. */
  currentEpoch: number | null;
  /** Consumer group: the target assignment's epoch (TARGET-EPOCH); null in a classic group. */
  targetEpoch: number | null;
  /** Consumer group: the member's target assignment; null in a classic group. */
  targetPartitions: { topic: string; partition: number }[] | null;
  /** Consumer group: true for a consumer-protocol member, false for a classic one (UPGRADED). */
  upgraded: boolean | null;
}

export function memberRows(g: GroupDescription): MemberRow[] {
  return g.members.map((m) => ({
    group: g.groupId,
    consumerId: m.memberId,
    groupInstanceId: m.groupInstanceId,
    host: m.clientHost,
    clientId: m.clientId,
    partitions: [...m.assignment].sort(byTopicPartition),
    currentEpoch: m.memberEpoch,
    targetEpoch: g.targetAssignmentEpoch,
    targetPartitions: m.targetAssignment === null ? null : [...m.targetAssignment].sort(byTopicPartition),
    upgraded: m.upgraded,
  }));
}
