// Group members of bench/groups-e2e.ts, each on its own connection as real consumers are (a
// JoinGroup is parked by the coordinator, and a broker answers one connection's requests in
// order, so members sharing a connection would wait on each other).
import { performance } from 'node:perf_hooks';
import { ErrorCode } from '../src/protocol/errors.js';
import { fetchApi } from '../src/protocol/messages/generated/fetch.js';
import { heartbeatApi } from '../src/protocol/messages/generated/heartbeat.js';
import { joinGroupApi } from '../src/protocol/messages/generated/join-group.js';
import { leaveGroupApi } from '../src/protocol/messages/generated/leave-group.js';
import { offsetCommitApi } from '../src/protocol/messages/generated/offset-commit.js';
import { offsetFetchApi } from '../src/protocol/messages/generated/offset-fetch.js';
import { syncGroupApi } from '../src/protocol/messages/generated/sync-group.js';
import type { ApiDescriptor } from '../src/protocol/messages/runtime.js';
import { fetchRequest } from '../test/broker/support/wire.js';
import { decodeAssignment, rangeAssign, subscription, type WireConn } from './groups-wire.js';

const TOPIC = 'bench-e2e';
const PARTITIONS = 50;
const METADATA = subscription([TOPIC]);
/**
 * Members stop heartbeating once the load starts, and joining 1,000 of them takes tens of
 * seconds on a loaded machine: a session long enough (within group.max.session.timeout.ms) that
 * the first groups are still there when the last one has joined.
 */
const SESSION_TIMEOUT_MS = 600_000;

export interface Member {
  readonly conn: WireConn;
  readonly groupId: string;
  memberId: string;
  generation: number;
  partitions: number[];
  /** Requests sent on the way in (rejoins included), with their round-trip times. */
  requests: number;
  readonly steps: Array<{ api: string; ms: number }>;
}

export interface MemberStats {
  /** First JoinGroup → the last member's first Fetch, everyone in the same generation. */
  ms: number;
  generation: number;
  members: Member[];
  leave(): Promise<void>;
}

class BenchError extends Error {}

/** One request of a member's way in, timed. */
async function step<Req, Res>(
  m: Member,
  label: string,
  api: ApiDescriptor<Req, Res>,
  version: number,
  body: Req,
): Promise<Res> {
  m.requests++;
  const t0 = performance.now();
  const res = await m.conn.request(api, version, body);
  m.steps.push({ api: label, ms: performance.now() - t0 });
  return res;
}
const check = (what: string, code: number) => {
  if (code !== ErrorCode.NONE) throw new BenchError(`${what}: error ${code}`);
};

/** JoinGroup (twice with v4+: MEMBER_ID_REQUIRED) and SyncGroup until the member has an assignment. */
async function joinAndSync(m: Member): Promise<void> {
  for (;;) {
    const j = await step(m, m.memberId === '' ? 'JoinGroup (no id)' : 'JoinGroup', joinGroupApi, 9, {
      groupId: m.groupId,
      sessionTimeoutMs: SESSION_TIMEOUT_MS,
      rebalanceTimeoutMs: 60_000,
      memberId: m.memberId,
      groupInstanceId: null,
      protocolType: 'consumer',
      protocols: [{ name: 'range', metadata: METADATA }],
      reason: null,
    });
    if (j.errorCode === ErrorCode.MEMBER_ID_REQUIRED) {
      m.memberId = j.memberId;
      continue;
    }
    check('JoinGroup', j.errorCode);
    m.memberId = j.memberId;
    m.generation = j.generationId;
    const assignments =
      j.leader === j.memberId
        ? [
            ...rangeAssign(
              j.members.map((x) => x.memberId),
              TOPIC,
              PARTITIONS,
            ),
          ].map(([memberId, assignment]) => ({ memberId, assignment }))
        : [];
    const s = await step(m, 'SyncGroup', syncGroupApi, 5, {
      groupId: m.groupId,
      generationId: j.generationId,
      memberId: m.memberId,
      groupInstanceId: null,
      protocolType: 'consumer',
      protocolName: j.protocolName,
      assignments,
    });
    if (s.errorCode === ErrorCode.REBALANCE_IN_PROGRESS) continue;
    check('SyncGroup', s.errorCode);
    m.partitions = decodeAssignment(s.assignment).assignedPartitions.flatMap((t) => t.partitions);
    return;
  }
}

/** OffsetFetch for the assignment, then one Fetch from there that must return every partition's record. */
async function startConsuming(m: Member): Promise<void> {
  const o = await step(m, 'OffsetFetch', offsetFetchApi, 7, {
    groupId: m.groupId,
    topics: [{ name: TOPIC, partitionIndexes: m.partitions }],
    groups: [],
    requireStable: true,
  });
  check('OffsetFetch', o.errorCode);
  const committed = new Map(o.topics[0]?.partitions.map((p) => [p.partitionIndex, p.committedOffset]));
  const from = (partition: number) => {
    const offset = committed.get(partition) ?? -1n;
    return offset < 0n ? 0n : offset;
  };
  const f = await step(
    m,
    'Fetch',
    fetchApi,
    12,
    fetchRequest(
      TOPIC,
      m.partitions.map((partition) => ({ partition, offset: from(partition) })),
      { maxBytes: 1 << 20, isolationLevel: 1, partitionMaxBytes: 64 << 10 },
    ),
  );
  check('Fetch', f.errorCode);
  const parts = f.responses[0]?.partitions ?? [];
  if (parts.length !== m.partitions.length || parts.some((p) => p.errorCode !== 0 || !p.records?.length)) {
    throw new BenchError('first Fetch did not return every assigned partition');
  }
}

/**
 * Starts one member per connection in `groupId` at once and resolves when all of them are
 * consuming in the same generation. A member that got in before the group's last rebalance
 * learns it from its heartbeat (every 5 ms while waiting, a fast client) and rejoins.
 */
export function runMembers(conns: readonly WireConn[], groupId: string): Promise<MemberStats> {
  const members: Member[] = conns.map((conn) => ({
    conn,
    groupId,
    memberId: '',
    generation: -1,
    partitions: [],
    requests: 0,
    steps: [],
  }));
  const t0 = performance.now();
  let finished = false;
  const consuming = new Map<Member, number>();
  return new Promise((resolve, reject) => {
    const complete = () => {
      const gens = new Set(consuming.values());
      if (finished || consuming.size !== members.length || gens.size !== 1) return;
      finished = true;
      resolve({
        ms: performance.now() - t0,
        generation: [...gens][0] as number,
        members,
        leave: () => leave(members),
      });
    };
    for (const m of members) {
      void (async () => {
        while (!finished) {
          await joinAndSync(m);
          await startConsuming(m);
          consuming.set(m, m.generation);
          complete();
          while (!finished) {
            await new Promise((r) => setTimeout(r, 5));
            if (finished) break;
            const code = await heartbeat(m).catch((e: unknown) =>
              e instanceof HeartbeatError ? e.code : -1,
            );
            if (code === 1) continue;
            consuming.delete(m);
            if (code === ErrorCode.UNKNOWN_MEMBER_ID) m.memberId = '';
            else if (code !== ErrorCode.REBALANCE_IN_PROGRESS && code !== ErrorCode.ILLEGAL_GENERATION) {
              throw new BenchError(`Heartbeat: error ${code}`);
            }
            break;
          }
        }
      })().catch((e: unknown) => {
        finished = true;
        reject(e);
      });
    }
  });
}

class HeartbeatError extends Error {
  constructor(readonly code: number) {
    super(`Heartbeat: error ${code}`);
  }
}

/** One Heartbeat v4; resolves 1 (one request done), rejects with HeartbeatError otherwise. */
export async function heartbeat(m: Member): Promise<number> {
  const r = await m.conn.request(heartbeatApi, 4, {
    groupId: m.groupId,
    generationId: m.generation,
    memberId: m.memberId,
    groupInstanceId: null,
  });
  if (r.errorCode !== ErrorCode.NONE) throw new HeartbeatError(r.errorCode);
  return 1;
}

/** One OffsetCommit v8 of `count` of the member's partitions; resolves with the offsets committed. */
export async function commit(m: Member, i: number, count: number): Promise<number> {
  const partitions = Array.from({ length: count }, (_, k) => ({
    partitionIndex: m.partitions[(i * count + k) % m.partitions.length] as number,
    committedOffset: BigInt(i),
    committedLeaderEpoch: -1,
    commitTimestamp: -1n,
    committedMetadata: '',
  }));
  const r = await m.conn.request(offsetCommitApi, 8, {
    groupId: m.groupId,
    generationIdOrMemberEpoch: m.generation,
    memberId: m.memberId,
    groupInstanceId: null,
    retentionTimeMs: -1n,
    topics: [{ name: TOPIC, partitions }],
  });
  for (const t of r.topics) for (const p of t.partitions) check('OffsetCommit', p.errorCode);
  return count;
}

async function leave(members: Member[]): Promise<void> {
  const [first] = members;
  if (first === undefined) return;
  const r = await first.conn.request(leaveGroupApi, 5, {
    groupId: first.groupId,
    memberId: '',
    members: members.map((m) => ({ memberId: m.memberId, groupInstanceId: null, reason: null })),
  });
  check('LeaveGroup', r.errorCode);
}
