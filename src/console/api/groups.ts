// Consumer groups: list, describe with lag (messages and seconds), reset offsets (the modes of
// `samsa groups --reset-offsets`, dry run unless `execute: true`), delete. Lag = high watermark
// (read_uncommitted, as Kafka's tool) − committed offset; lag in seconds = now − timestamp of the
// record at the committed offset (the oldest record the group has not consumed).
import type {
  Admin,
  CommittedOffset,
  GroupDescription,
  GroupListing,
  TopicDescription,
  TopicPartition,
} from '../../client/index.js';
import { ApiError } from '../http-util.js';
import type { Viewer } from '../viewer.js';
import type { ConsoleClients } from './clients.js';
import { recordTimestamps } from './messages.js';
import { leaderedPartitions, partitionRanges, tpKey } from './offsets.js';

export interface GroupSummary {
  groupId: string;
  /** "classic", or "consumer" for a KIP-848 group. */
  type: string;
  state: string;
  protocolType: string;
  members: number;
  /** Sum of the lag of committed partitions; null when it could not be computed. */
  lag: number | null;
}

/** Committed offsets of a group plus log start/end of those partitions (and of `extra` ones). */
async function offsetsWithEnds(admin: Admin, groupId: string, extra: readonly TopicPartition[] = []) {
  const committed = await admin.listConsumerGroupOffsets(groupId);
  const tps = new Map<string, TopicPartition>();
  for (const tp of [...committed, ...extra]) tps.set(tpKey(tp), { topic: tp.topic, partition: tp.partition });
  const ranges = await partitionRanges(admin, [...tps.values()]);
  return {
    committed: new Map(committed.filter((c) => c.offset >= 0n).map((c) => [tpKey(c), Number(c.offset)])),
    ranges,
    tps,
  };
}

/** Every group the viewer may describe, with its committed offsets (null where they could not be read). */
export interface GroupsRead {
  listed: GroupListing[];
  described: Map<string, GroupDescription>;
  committed: Map<string, CommittedOffset[] | null>;
}

export async function readGroups(admin: Admin): Promise<GroupsRead> {
  const listed = await admin.listGroups();
  const [described, committed] = await Promise.all([
    listed.length === 0 ? [] : admin.describeGroups(listed.map((g) => g.groupId)).catch(() => []),
    Promise.all(
      listed.map(
        async (g) => [g.groupId, await admin.listConsumerGroupOffsets(g.groupId).catch(() => null)] as const,
      ),
    ),
  ]);
  return { listed, described: new Map(described.map((d) => [d.groupId, d])), committed: new Map(committed) };
}

/** Summaries with lag against `ends` (high watermarks by tpKey; a partition without one has no lag). */
export function summarize(read: GroupsRead, ends: ReadonlyMap<string, number> | null): GroupSummary[] {
  return read.listed
    .map((g) => {
      const offsets = read.committed.get(g.groupId);
      let lag: number | null = null;
      if (offsets && ends !== null) {
        lag = 0;
        for (const c of offsets) {
          if (c.offset < 0n) continue;
          const off = Number(c.offset);
          lag += Math.max(0, (ends.get(tpKey(c)) ?? off) - off);
        }
      }
      const d = read.described.get(g.groupId);
      return {
        groupId: g.groupId,
        // The description is the later answer: a group may have changed protocol since the listing.
        type: d?.type ?? g.type,
        state: d?.state ?? g.state,
        protocolType: g.protocolType,
        members: d?.members.length ?? 0,
        lag,
      };
    })
    .sort((a, b) => a.groupId.localeCompare(b.groupId));
}

/**
 * The committed partitions of every group read that have a leader in `topics`: a group may keep
 * offsets of a deleted topic, and one unknown partition would fail the whole ListOffsets batch.
 */
export function committedPartitions(read: GroupsRead, topics: readonly TopicDescription[]): TopicPartition[] {
  const leadered = new Set(leaderedPartitions(topics).map(tpKey));
  const tps = new Map<string, TopicPartition>();
  for (const offsets of read.committed.values())
    for (const c of offsets ?? []) {
      const k = tpKey(c);
      if (leadered.has(k)) tps.set(k, { topic: c.topic, partition: c.partition });
    }
  return [...tps.values()];
}

/** GET /api/groups: lag against high watermarks at most the cache's TTL old (one ListOffsets per leader). */
export async function groupSummaries(v: Viewer): Promise<GroupSummary[]> {
  const [read, topics] = await Promise.all([readGroups(v.clients.admin), v.cache.topics()]);
  const ends = await v.cache.ends(committedPartitions(read, topics)).catch(() => null);
  return summarize(read, ends);
}

/** The order of every partition list of the group pages: by topic, then partition. */
const byPartition = (a: TopicPartition, b: TopicPartition): number =>
  a.topic.localeCompare(b.topic) || a.partition - b.partition;

const partitionList = (tps: readonly TopicPartition[]): TopicPartition[] =>
  tps.map((tp) => ({ topic: tp.topic, partition: tp.partition })).sort(byPartition);

async function describeOne(admin: Admin, groupId: string): Promise<GroupDescription> {
  const [d] = await admin.describeGroups([groupId]);
  if (d === undefined) throw new ApiError(404, `no group ${groupId}`);
  return d;
}

export async function groupDetail(clients: ConsoleClients, groupId: string) {
  const admin = clients.admin;
  const d = await describeOne(admin, groupId);
  const assigned = d.members.flatMap((m) => m.assignment.map((tp) => ({ tp, m })));
  const { committed, ranges, tps } = await offsetsWithEnds(
    admin,
    groupId,
    assigned.map((a) => a.tp),
  );
  if (d.state === 'Dead' && committed.size === 0) throw new ApiError(404, `no group ${groupId}`);
  const owner = new Map(assigned.map((a) => [tpKey(a.tp), a.m]));
  const now = Date.now();
  const stamps = await recordTimestamps(
    clients,
    [...tps.values()].flatMap((tp) => {
      const off = committed.get(tpKey(tp));
      const end = ranges.get(tpKey(tp))?.end;
      return off === undefined || end === undefined ? [] : [{ ...tp, offset: off, end }];
    }),
  );
  const offsets = [...tps.values()]
    .map((tp) => {
      const k = tpKey(tp);
      const off = committed.get(k) ?? null;
      const r = ranges.get(k);
      const m = owner.get(k);
      const lag = off === null || r === undefined ? null : Math.max(0, r.end - off);
      const ts = stamps.get(k);
      return {
        ...tp,
        committed: off,
        logStartOffset: r?.start ?? null,
        logEndOffset: r?.end ?? null,
        lag,
        lagSeconds: lag === 0 ? 0 : ts === undefined ? null : Math.max(0, (now - ts) / 1000),
        memberId: m?.memberId ?? null,
        clientId: m?.clientId ?? null,
        host: m?.clientHost ?? null,
      };
    })
    .sort(byPartition);
  return {
    groupId,
    type: d.type,
    state: d.state,
    protocolType: d.protocolType,
    /** The assignor: the classic leader's choice, or a consumer group's server-side assignor. */
    protocol: d.protocol,
    coordinator: d.coordinator,
    // Consumer groups only (null in a classic group): the epoch of the group's latest change and
    // the epoch of the target assignment computed for it (behind while the assignor runs).
    groupEpoch: d.groupEpoch,
    assignmentEpoch: d.targetAssignmentEpoch,
    members: d.members.map((m) => ({
      memberId: m.memberId,
      groupInstanceId: m.groupInstanceId,
      clientId: m.clientId,
      host: m.clientHost,
      assignment: partitionList(m.assignment),
      // Consumer groups: the member's epoch, where the coordinator is moving it (the difference
      // to `assignment` is being revoked or waits for another member to release it), and whether
      // it speaks the consumer protocol (false: a classic member of a group being migrated).
      memberEpoch: m.memberEpoch,
      targetAssignment: m.targetAssignment === null ? null : partitionList(m.targetAssignment),
      upgraded: m.upgraded,
    })),
    offsets,
    totalLag: offsets.reduce((s, o) => s + (o.lag ?? 0), 0),
  };
}

export const RESET_MODES = ['to-earliest', 'to-latest', 'to-offset', 'to-datetime', 'shift-by'] as const;
type ResetMode = (typeof RESET_MODES)[number];

function parseInstant(v: unknown): number {
  if (typeof v === 'number' && Number.isFinite(v)) return v;
  if (typeof v !== 'string' || v.trim() === '')
    throw new ApiError(400, 'to-datetime needs a date-time or epoch milliseconds');
  const s = v.trim();
  if (/^\d+$/.test(s)) return Number(s);
  // Kafka's tool reads a date-time without a zone as UTC.
  const t = Date.parse(/(Z|[+-]\d\d:?\d\d)$/i.test(s) ? s : `${s}Z`);
  if (Number.isNaN(t)) throw new ApiError(400, `cannot read ${JSON.stringify(s)} as a date-time`);
  return t;
}

function parseInteger(v: unknown, what: string): number {
  const n = typeof v === 'string' && /^-?\d+$/.test(v.trim()) ? Number(v) : v;
  if (typeof n !== 'number' || !Number.isSafeInteger(n))
    throw new ApiError(400, `${what} must be an integer`);
  return n;
}

/** Body: { mode, value?, topic? ('' or absent = every partition with a committed offset), execute? }. */
export async function resetOffsets(admin: Admin, groupId: string, body: Record<string, unknown>) {
  const mode = body.mode as ResetMode;
  if (!RESET_MODES.includes(mode)) throw new ApiError(400, `mode is one of ${RESET_MODES.join(', ')}`);
  const topic = typeof body.topic === 'string' && body.topic !== '' ? body.topic : null;
  const execute = body.execute === true;
  const d = await describeOne(admin, groupId);
  const extra: TopicPartition[] = [];
  if (topic !== null) {
    const [t] = await admin.describeTopics([topic]);
    if (t === undefined) throw new ApiError(404, `no topic ${topic}`);
    extra.push(...t.partitions.map((p) => ({ topic, partition: p.partition })));
  }
  const { committed, ranges, tps } = await offsetsWithEnds(admin, groupId, extra);
  const scope = [...tps.values()].filter((tp) =>
    topic === null ? committed.has(tpKey(tp)) : tp.topic === topic,
  );
  if (scope.length === 0)
    throw new ApiError(400, 'the group has no committed offsets to reset (name a topic)');
  const byTime = new Map<string, number>();
  if (mode === 'to-datetime') {
    const at = parseInstant(body.value);
    for (const f of await admin.listOffsets(scope.map((tp) => ({ ...tp, spec: { timestamp: at } }))))
      if (f.offset >= 0n) byTime.set(tpKey(f), Number(f.offset));
  }
  const n = mode === 'to-offset' || mode === 'shift-by' ? parseInteger(body.value, mode) : 0;
  const plan = scope
    .map((tp) => {
      const k = tpKey(tp);
      const r = ranges.get(k);
      if (r === undefined) throw new ApiError(409, `partition ${tp.topic}-${tp.partition} has no leader`);
      const current = committed.get(k) ?? null;
      let target: number;
      if (mode === 'to-earliest') target = r.start;
      else if (mode === 'to-latest') target = r.end;
      else if (mode === 'to-datetime')
        target = byTime.get(k) ?? r.end; // no record that late: the log end
      else if (mode === 'to-offset') target = n;
      else {
        if (current === null)
          throw new ApiError(400, `shift-by needs a committed offset for ${tp.topic}-${tp.partition}`);
        target = current + n;
      }
      return { ...tp, current, target: Math.min(r.end, Math.max(r.start, target)) };
    })
    .sort(byPartition);
  if (execute) {
    if (d.state !== 'Empty' && d.state !== 'Dead')
      throw new ApiError(
        409,
        `group ${groupId} is ${d.state}: offsets can only be reset while it has no members (stop its consumers)`,
      );
    await admin.alterConsumerGroupOffsets(
      groupId,
      plan.map((p) => ({ topic: p.topic, partition: p.partition, offset: BigInt(p.target) })),
    );
  }
  return { groupId, mode, executed: execute, state: d.state, plan };
}

export async function deleteGroup(admin: Admin, groupId: string) {
  await admin.deleteGroups([groupId]);
  return { groupId, deleted: true };
}
