// A simulated classic-protocol consumer (JoinGroup/SyncGroup/Heartbeat/LeaveGroup) driving a
// GroupCoordinator, eager (gives up everything before it rejoins) or cooperative (lists what it
// owns in its subscription and gives up only what the assignment drops, then rejoins), a helper
// that forms a Stable classic group of such members with a range assignment, and the check that
// no partition is held by two members (classic or ConsumerGroupHeartbeat ones).

import assert from 'node:assert/strict';
import type {
  GroupCoordinator,
  JoinGroupResult,
  SyncGroupResult,
} from '../../../src/broker/coordinator/group/index.js';
import {
  decodeAssignment,
  encodeAssignment,
  encodeSubscription,
} from '../../../src/client/consumer/assignors/consumer-protocol.js';
import { ErrorCode } from '../../../src/protocol/errors.js';
import { fakeTopicId, type SimMember } from './consumer-group-harness.js';

export interface ClassicOptions {
  cooperative?: boolean;
  sessionTimeoutMs?: number;
  rebalanceTimeoutMs?: number;
  protocols?: string[];
  instanceId?: string | null;
  apiVersion?: number;
}

export class SimClassic {
  memberId = '';
  generation = -1;
  protocolName: string | null = null;
  /** Partitions this member works on now ("topic-p"). */
  owned: string[] = [];
  readonly opts: Required<ClassicOptions>;

  constructor(
    readonly gc: () => GroupCoordinator,
    readonly groupId: string,
    readonly clientId: string,
    public topics: string[],
    opts: ClassicOptions = {},
  ) {
    this.opts = {
      cooperative: false,
      sessionTimeoutMs: 10_000,
      rebalanceTimeoutMs: 30_000,
      protocols: ['range'],
      instanceId: null,
      apiVersion: 5,
      ...opts,
    };
  }

  subscription(): Buffer {
    const ownedPartitions = this.owned.map((k) => {
      const i = k.lastIndexOf('-');
      return { topic: k.slice(0, i), partition: Number(k.slice(i + 1)) };
    });
    return this.opts.cooperative
      ? encodeSubscription(
          { topics: this.topics, userData: null, ownedPartitions, generationId: -1, rackId: null },
          1,
        )
      : encodeSubscription(
          { topics: this.topics, userData: null, ownedPartitions: [], generationId: -1, rackId: null },
          0,
        );
  }

  /** One JoinGroup as the client would send it now (eager members revoke everything first). */
  joinOnce(): Promise<JoinGroupResult> {
    if (!this.opts.cooperative) this.owned = [];
    return this.gc().joinGroup(
      { clientId: this.clientId, clientHost: '/127.0.0.1', apiVersion: this.opts.apiVersion },
      {
        groupId: this.groupId,
        sessionTimeoutMs: this.opts.sessionTimeoutMs,
        rebalanceTimeoutMs: this.opts.rebalanceTimeoutMs,
        memberId: this.memberId,
        groupInstanceId: this.opts.instanceId,
        protocolType: 'consumer',
        protocols: this.opts.protocols.map((name) => ({ name, metadata: this.subscription() })),
      },
    );
  }

  /** JoinGroup, taking the id MEMBER_ID_REQUIRED hands out. Resolves when the coordinator answers. */
  async join(): Promise<JoinGroupResult> {
    let r = await this.joinOnce();
    if (r.errorCode === ErrorCode.MEMBER_ID_REQUIRED) {
      this.memberId = r.memberId;
      r = await this.joinOnce();
    }
    if (r.errorCode === ErrorCode.NONE) {
      this.memberId = r.memberId;
      this.generation = r.generationId;
      this.protocolName = r.protocolName;
    } else if (r.errorCode === ErrorCode.UNKNOWN_MEMBER_ID) this.memberId = '';
    return r;
  }

  /** SyncGroup; installs the assignment it answers (a cooperative member drops what it lost). */
  async sync(assignments: Array<{ memberId: string; assignment: Buffer }> = []): Promise<SyncGroupResult> {
    const r = await this.gc().syncGroup({
      groupId: this.groupId,
      generationId: this.generation,
      memberId: this.memberId,
      groupInstanceId: this.opts.instanceId,
      protocolType: 'consumer',
      protocolName: this.protocolName,
      assignments,
    });
    if (r.errorCode === ErrorCode.NONE) {
      this.owned = decodeAssignment(r.assignment).partitions.map((tp) => `${tp.topic}-${tp.partition}`);
    }
    return r;
  }

  heartbeat(): Promise<number> {
    return this.gc().heartbeat({
      groupId: this.groupId,
      memberId: this.memberId,
      generationId: this.generation,
      groupInstanceId: this.opts.instanceId,
    });
  }

  /**
   * A heartbeat as a client in the stable phase takes it: true when it must rejoin — a rebalance,
   * or its membership lost (then it owns nothing, and an unknown member starts over without id).
   */
  async heartbeatOrRejoin(): Promise<boolean> {
    const code = await this.heartbeat();
    const lost = code === ErrorCode.UNKNOWN_MEMBER_ID || code === ErrorCode.ILLEGAL_GENERATION;
    if (lost) this.owned = [];
    if (code === ErrorCode.UNKNOWN_MEMBER_ID) this.memberId = '';
    return lost || code === ErrorCode.REBALANCE_IN_PROGRESS;
  }

  /** Join then sync until the member holds a settled assignment (a cooperative one may need two rounds). */
  async rejoin(): Promise<void> {
    for (let round = 0; round < 5; round++) {
      const j = await this.join();
      if (j.errorCode !== ErrorCode.NONE) throw new Error(`${this.clientId} join: ${j.errorCode}`);
      const before = new Set(this.owned);
      const s = await this.sync();
      if (s.errorCode === ErrorCode.REBALANCE_IN_PROGRESS) continue;
      if (s.errorCode !== ErrorCode.NONE) throw new Error(`${this.clientId} sync: ${s.errorCode}`);
      // Cooperative: a partition revoked by this assignment means "rejoin to acknowledge".
      if (this.opts.cooperative && [...before].some((p) => !this.owned.includes(p))) continue;
      return;
    }
    throw new Error(`${this.clientId}: no settled assignment after 5 rounds`);
  }

  async leave(): Promise<number> {
    this.owned = [];
    const r = await this.gc().leaveGroup(this.groupId, [
      { memberId: this.memberId, groupInstanceId: this.opts.instanceId },
    ]);
    return r.errorCode !== ErrorCode.NONE ? r.errorCode : (r.members[0]?.errorCode ?? -1);
  }
}

/**
 * A classic rebalance to Stable: every member joins (new ones take their id first; the join
 * completes when everyone is in, or when `advance` runs the initial delay's timer), the leader
 * assigns `topic`'s partitions in contiguous ranges, everyone syncs.
 */
export async function formClassicGroup(
  members: SimClassic[],
  topic: string,
  partitions: number,
  advance: () => Promise<void>,
): Promise<void> {
  for (const m of members) {
    if (m.memberId !== '') continue;
    const first = await m.joinOnce();
    if (first.errorCode === ErrorCode.MEMBER_ID_REQUIRED) m.memberId = first.memberId;
  }
  const joins = members.map((m) => m.join());
  await advance();
  const results = await Promise.all(joins);
  for (const r of results)
    if (r.errorCode !== ErrorCode.NONE) throw new Error(`classic join failed: ${r.errorCode}`);
  const leader = results.find((r) => r.members.length > 0)!;
  const ids = leader.members.map((m) => m.memberId).sort();
  const per = Math.floor(partitions / ids.length);
  const extra = partitions % ids.length;
  let next = 0;
  const assignments = ids.map((memberId, i) => {
    const n = per + (i < extra ? 1 : 0);
    const ps = Array.from({ length: n }, (_, k) => next + k);
    next += n;
    return {
      memberId,
      assignment: encodeAssignment({
        partitions: ps.map((partition) => ({ topic, partition })),
        userData: null,
      }),
    };
  });
  await Promise.all(members.map((m) => m.sync(m.memberId === leader.leader ? assignments : [])));
}

/** Every partition held by at most one member (classic members by name, the others by id). */
export function assertDisjoint(classic: SimClassic[], modern: SimMember[], when: string): void {
  const holder = new Map<string, string>();
  const hold = (who: string, key: string) => {
    const other = holder.get(key);
    assert.equal(other, undefined, `${when}: ${key} held by ${other} and ${who}`);
    holder.set(key, who);
  };
  for (const c of classic) for (const k of c.owned) hold(c.clientId, k);
  for (const m of modern)
    for (const t of m.owned)
      for (const p of t.partitions)
        hold(m.memberId, `${t.topicId === fakeTopicId('t') ? 't' : t.topicId}-${p}`);
}
