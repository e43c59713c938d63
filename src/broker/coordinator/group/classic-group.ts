// One classic-protocol group: members, generation, state, the chosen protocol. Pure state
// and invariants; the rebalance logic that drives it lives in classic-group-*.ts.
import { subscribedTopics } from './consumer-protocol.js';
import type { GroupMemberValue, GroupMetadataValue } from './group-records.js';
import { EMPTY_BUFFER, type JoinGroupResult, type Protocol, type SyncGroupResult } from './group-types.js';

export type GroupState = 'Empty' | 'PreparingRebalance' | 'CompletingRebalance' | 'Stable' | 'Dead';

const VALID_PREVIOUS: Record<GroupState, readonly GroupState[]> = {
  Empty: ['PreparingRebalance'],
  PreparingRebalance: ['Stable', 'CompletingRebalance', 'Empty'],
  CompletingRebalance: ['PreparingRebalance'],
  Stable: ['CompletingRebalance'],
  Dead: ['Stable', 'PreparingRebalance', 'CompletingRebalance', 'Empty', 'Dead'],
};

export class ClassicGroupMember {
  assignment: Buffer = EMPTY_BUFFER;
  /** Set while the member's JoinGroup waits for the rebalance to complete. */
  awaitingJoin: ((r: JoinGroupResult) => void) | null = null;
  /** Set while the member's SyncGroup waits for the leader's assignment. */
  awaitingSync: ((r: SyncGroupResult) => void) | null = null;
  /** Joined a group that has not completed a rebalance with it yet (new-member join timeout). */
  isNew = false;

  constructor(
    readonly memberId: string,
    public groupInstanceId: string | null,
    public clientId: string,
    public clientHost: string,
    public rebalanceTimeoutMs: number,
    public sessionTimeoutMs: number,
    public protocolType: string,
    public protocols: Protocol[],
  ) {}

  metadataFor(protocol: string): Buffer {
    return this.protocols.find((p) => p.name === protocol)?.metadata ?? EMPTY_BUFFER;
  }

  /** Same protocols with the same metadata, in the same order. */
  matches(protocols: readonly Protocol[]): boolean {
    if (protocols.length !== this.protocols.length) return false;
    return protocols.every((p, i) => {
      const mine = this.protocols[i] as Protocol;
      return mine.name === p.name && mine.metadata.equals(p.metadata);
    });
  }

  /** The member's preferred protocol among those every member supports. */
  vote(candidates: ReadonlySet<string>): string | undefined {
    return this.protocols.find((p) => candidates.has(p.name))?.name;
  }
}

export class ClassicGroup {
  state: GroupState = 'Empty';
  generationId = 0;
  protocolType: string | null = null;
  protocolName: string | null = null;
  leaderId: string | null = null;
  currentStateTimestamp: number;
  readonly members = new Map<string, ClassicGroupMember>();
  /** group.instance.id → member id of the static member currently holding it. */
  readonly staticMembers = new Map<string, string>();
  /** Members told MEMBER_ID_REQUIRED that have not rejoined yet. */
  readonly pendingMembers = new Set<string>();
  /** Members that got their JoinGroup answer and have not sent SyncGroup yet. */
  readonly pendingSyncMembers = new Set<string>();
  /** The current PreparingRebalance started from Empty: it waits out the initial delay. */
  initialJoin = false;
  /** A member joined during the initial rebalance delay (which then extends). */
  newMemberAdded = false;

  constructor(
    readonly groupId: string,
    now: number,
  ) {
    this.currentStateTimestamp = now;
  }

  is(state: GroupState): boolean {
    return this.state === state;
  }

  transitionTo(state: GroupState, now: number): void {
    if (!VALID_PREVIOUS[state].includes(this.state)) {
      throw new Error(`group ${this.groupId}: illegal transition ${this.state} -> ${state}`);
    }
    this.state = state;
    this.currentStateTimestamp = now;
  }

  add(member: ClassicGroupMember): void {
    if (this.members.size === 0) this.protocolType = member.protocolType;
    this.members.set(member.memberId, member);
    if (member.groupInstanceId !== null) this.staticMembers.set(member.groupInstanceId, member.memberId);
    this.leaderId ??= member.memberId;
  }

  remove(memberId: string): ClassicGroupMember | undefined {
    const member = this.members.get(memberId);
    if (member === undefined) return undefined;
    this.members.delete(memberId);
    this.pendingSyncMembers.delete(memberId);
    if (member.groupInstanceId !== null && this.staticMembers.get(member.groupInstanceId) === memberId) {
      this.staticMembers.delete(member.groupInstanceId);
    }
    if (this.leaderId === memberId) {
      // Prefer a member already waiting in the current join, as Kafka does.
      const joined = [...this.members.values()].find((m) => m.awaitingJoin !== null);
      this.leaderId = joined?.memberId ?? this.members.keys().next().value ?? null;
    }
    return member;
  }

  isLeader(memberId: string): boolean {
    return this.leaderId === memberId;
  }

  /** Protocols supported by every member. */
  candidateProtocols(): Set<string> {
    let candidates: string[] | null = null;
    for (const m of this.members.values()) {
      const names = m.protocols.map((p) => p.name);
      candidates = candidates === null ? names : candidates.filter((n) => names.includes(n));
    }
    return new Set(candidates ?? []);
  }

  /** Whether a joining member with these protocols is compatible with the group. */
  supportsProtocols(protocolType: string, protocols: readonly Protocol[]): boolean {
    if (this.members.size === 0) return protocolType.length > 0 && protocols.length > 0;
    if (protocolType !== this.protocolType) return false;
    const candidates = this.candidateProtocols();
    return protocols.some((p) => candidates.has(p.name));
  }

  /** The protocol with the most votes (each member votes for its first supported one). */
  selectProtocol(): string {
    const candidates = this.candidateProtocols();
    const votes = new Map<string, number>();
    for (const m of this.members.values()) {
      const v = m.vote(candidates);
      if (v !== undefined) votes.set(v, (votes.get(v) ?? 0) + 1);
    }
    let best: string | null = null;
    let bestVotes = -1;
    for (const [name, n] of votes) {
      if (n > bestVotes) {
        best = name;
        bestVotes = n;
      }
    }
    if (best === null) throw new Error(`group ${this.groupId}: no common protocol`);
    return best;
  }

  hasAllMembersJoined(): boolean {
    for (const m of this.members.values()) if (m.awaitingJoin === null) return false;
    return this.pendingMembers.size === 0;
  }

  rebalanceTimeoutMs(): number {
    let max = 0;
    for (const m of this.members.values()) max = Math.max(max, m.rebalanceTimeoutMs);
    return max;
  }

  /** Topics the members subscribe to, or null when unknown (not the consumer protocol). */
  subscribedTopics(): Set<string> | null {
    if (this.protocolType !== 'consumer' || this.protocolName === null) return null;
    const topics = new Set<string>();
    for (const m of this.members.values()) {
      const t = subscribedTopics(m.metadataFor(this.protocolName));
      if (t === null) return null;
      for (const name of t) topics.add(name);
    }
    return topics;
  }

  /** The GroupMetadata record value for the current generation. */
  toRecord(): GroupMetadataValue {
    const protocol = this.protocolName;
    const members: GroupMemberValue[] = [...this.members.values()].map((m) => ({
      memberId: m.memberId,
      groupInstanceId: m.groupInstanceId,
      clientId: m.clientId,
      clientHost: m.clientHost,
      rebalanceTimeoutMs: m.rebalanceTimeoutMs,
      sessionTimeoutMs: m.sessionTimeoutMs,
      subscription: protocol === null ? EMPTY_BUFFER : m.metadataFor(protocol),
      assignment: m.assignment,
    }));
    return {
      protocolType: this.protocolType ?? '',
      generation: this.generationId,
      protocol,
      leader: this.leaderId,
      currentStateTimestamp: this.currentStateTimestamp,
      members,
    };
  }

  /** Rebuilds a group from its last GroupMetadata record (on load). */
  static fromRecord(groupId: string, v: GroupMetadataValue, now: number): ClassicGroup {
    const g = new ClassicGroup(groupId, v.currentStateTimestamp >= 0 ? v.currentStateTimestamp : now);
    g.generationId = v.generation;
    g.protocolType = v.protocolType.length > 0 ? v.protocolType : null;
    g.protocolName = v.protocol;
    for (const mv of v.members) {
      const protocols = v.protocol === null ? [] : [{ name: v.protocol, metadata: mv.subscription }];
      const m = new ClassicGroupMember(
        mv.memberId,
        mv.groupInstanceId,
        mv.clientId,
        mv.clientHost,
        mv.rebalanceTimeoutMs >= 0 ? mv.rebalanceTimeoutMs : mv.sessionTimeoutMs,
        mv.sessionTimeoutMs,
        g.protocolType ?? '',
        protocols,
      );
      m.assignment = mv.assignment;
      g.add(m);
    }
    g.leaderId = v.leader !== null && g.members.has(v.leader) ? v.leader : g.leaderId;
    g.state = g.members.size === 0 ? 'Empty' : 'Stable';
    return g;
  }
}
