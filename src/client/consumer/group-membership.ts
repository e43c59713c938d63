// Classic consumer-group membership (Kafka's AbstractCoordinator/ConsumerCoordinator):
// JoinGroup → (leader assigns) → SyncGroup → heartbeats, and rejoining when the group rebalances.
//
// Threading model, mirroring Java on a single event loop:
// - JoinGroup/SyncGroup run as a background task (the coordinator may hold JoinGroup for up to
//   the rebalance timeout), but everything that calls the application — revoking before a join,
//   applying an assignment, the rebalance listener — happens in `poll()`, so listener callbacks
//   never interleave with the application's record processing.
// - Heartbeats run on their own timer, independent of how long the application spends between
//   polls. The same timer enforces max.poll.interval.ms: a consumer that stops polling leaves the
//   group (a dynamic member sends LeaveGroup), logs why, and its partitions count as lost; the
//   next poll() rejoins.
// - EAGER protocols revoke everything before rejoining; COOPERATIVE keeps consuming its partitions
//   during the rebalance and revokes only those the new assignment takes away, then rejoins once
//   more so that they can be handed to their new owner (KIP-429).
import { backoffMs } from '../../net/backoff.js';
import { ErrorCode } from '../../protocol/errors.js';
import { DecodeError } from '../../protocol/primitives/errors.js';
import { ClientClosedError, KafkaClientError, KafkaResponseError } from '../errors.js';
import type { MemberAssignment, RebalanceProtocol } from './assignors/assignor.js';
import { decodeAssignment, encodeSubscription } from './assignors/consumer-protocol.js';
import type { ResolvedConsumerOptions } from './consumer-config.js';
import { RebalanceListenerError } from './consumer-errors.js';
import type { Generation, GroupRpc } from './group-rpc.js';
import { assignAsLeader } from './leader-assignment.js';
import { type RebalanceListener, type TopicPartition, tpKey } from './types.js';

/** What the membership needs from the consumer. */
export interface MembershipHost {
  subscribedTopics(): string[];
  owned(): TopicPartition[];
  /** Installs the assignment (partitions that stay keep their positions). */
  applyAssignment(tps: TopicPartition[]): void;
  /** Metadata for the leader's assignment; returns partition counts (undefined = no such topic). */
  partitionCounts(topics: string[]): Promise<Map<string, number>>;
  /** Commits consumed positions if auto commit is on (before partitions are given up). */
  autoCommitSync(tps: TopicPartition[] | null): Promise<void>;
  listener(): RebalanceListener | null;
  /** Wakes a waiting poll(). */
  signal(): void;
  pollClock(): { inPoll: boolean; lastPollAt: number };
}

type JoinOutcome =
  | {
      kind: 'joined';
      generation: Generation;
      protocol: string;
      assignment: MemberAssignment;
      leader: boolean;
      topicCounts: Map<string, number> | null;
    }
  | { kind: 'lost' }
  | { kind: 'failed'; error: Error };

/** JoinGroup/SyncGroup errors after which the join is simply retried (after a backoff). */
const RETRY_JOIN = new Set<number>([
  ErrorCode.REBALANCE_IN_PROGRESS,
  ErrorCode.COORDINATOR_LOAD_IN_PROGRESS,
  ErrorCode.NOT_COORDINATOR,
  ErrorCode.COORDINATOR_NOT_AVAILABLE,
]);

export class GroupMembership {
  readonly protocol = 'classic';
  readonly #rpc: GroupRpc;
  readonly #opts: ResolvedConsumerOptions;
  readonly #host: MembershipHost;
  readonly #protocol: RebalanceProtocol;
  generation: Generation = { generationId: -1, memberId: '' };
  protocolName: string | null = null;
  state: 'UNJOINED' | 'JOINING' | 'STABLE' = 'UNJOINED';
  isLeader = false;
  #needsRejoin = true;
  #rejoinReason = 'initial join';
  #lost = false;
  #joinTask: Promise<void> | null = null;
  #outcome: JoinOutcome | null = null;
  #fatal: Error | null = null;
  #hbTimer: NodeJS.Timeout | null = null;
  #lastHeartbeatOk = 0;
  /** Partition counts the leader assigned from, to notice new partitions/topics. */
  #assignedCounts: Map<string, number> | null = null;
  #closed = false;
  /** Rebalances completed (tests, metrics). */
  rebalances = 0;

  constructor(rpc: GroupRpc, opts: ResolvedConsumerOptions, host: MembershipHost) {
    this.#rpc = rpc;
    this.#opts = opts;
    this.#host = host;
    this.#protocol = opts.rebalanceProtocol;
  }

  get groupId(): string {
    return this.#rpc.groupId;
  }

  get needsRejoin(): boolean {
    return this.#needsRejoin;
  }

  get rebalancing(): boolean {
    return this.#joinTask !== null || this.#outcome !== null || this.#needsRejoin;
  }

  requestRejoin(reason: string): void {
    if (!this.#needsRejoin)
      this.#opts.logger('info', 'requesting a rebalance', { group: this.groupId, reason });
    this.#needsRejoin = true;
    this.#rejoinReason = reason;
    this.#host.signal();
  }

  /** Leader: rejoin if a topic the group consumes gained partitions or appeared since the assignment. */
  checkTopicCounts(counts: (topic: string) => number | undefined): void {
    if (!this.isLeader || this.#assignedCounts === null || this.state !== 'STABLE') return;
    for (const [t, n] of this.#assignedCounts) {
      const now = counts(t) ?? 0;
      if (now !== n) {
        this.requestRejoin(`partitions of ${t} changed (${n} → ${now})`);
        return;
      }
    }
  }

  /**
   * Runs the membership steps that belong to poll(): apply a finished join, or prepare and start
   * a new one. Throws a fatal group error, or a listener's error after the step completed.
   */
  async poll(): Promise<void> {
    if (this.#fatal) throw this.#fatal;
    let listenerError: Error | null = null;
    const outcome = this.#outcome;
    if (outcome !== null) {
      this.#outcome = null;
      listenerError = await this.#complete(outcome);
    }
    if (this.#fatal) throw this.#fatal;
    if (
      this.#needsRejoin &&
      this.#joinTask === null &&
      !this.#closed &&
      this.#host.subscribedTopics().length > 0
    ) {
      listenerError = (await this.#prepare()) ?? listenerError;
      this.#needsRejoin = false;
      this.state = 'JOINING';
      const reason = this.#rejoinReason;
      this.#joinTask = this.#join(reason)
        .then((o) => {
          this.#outcome = o;
        })
        .finally(() => {
          this.#joinTask = null;
          this.#host.signal();
        });
    }
    if (listenerError) throw listenerError;
  }

  /** Before JoinGroup: give up what the protocol requires; report partitions lost to fencing. */
  async #prepare(): Promise<Error | null> {
    this.#stopHeartbeat();
    const owned = this.#host.owned();
    if (this.#lost) {
      this.#lost = false;
      this.#host.applyAssignment([]);
      return this.#invoke('onPartitionsLost', owned);
    }
    if (this.generation.generationId >= 0) await this.#host.autoCommitSync(null).catch(() => {});
    if (this.#protocol === 'EAGER' && owned.length > 0) {
      const err = await this.#invoke('onPartitionsRevoked', owned);
      this.#host.applyAssignment([]);
      return err;
    }
    return null;
  }

  async #complete(o: JoinOutcome): Promise<Error | null> {
    if (o.kind === 'failed') {
      this.#fatal = o.error;
      this.state = 'UNJOINED';
      return null;
    }
    if (o.kind === 'lost') {
      this.#lost = false;
      const owned = this.#host.owned();
      this.#host.applyAssignment([]);
      this.#needsRejoin = true;
      this.state = 'UNJOINED';
      return owned.length > 0 ? this.#invoke('onPartitionsLost', owned) : null;
    }
    this.generation = o.generation;
    this.protocolName = o.protocol;
    this.isLeader = o.leader;
    this.#assignedCounts = o.topicCounts;
    this.state = 'STABLE';
    this.rebalances++;
    this.#lastHeartbeatOk = Date.now();
    this.#startHeartbeat();
    const assignor = this.#opts.assignors.find((a) => a.name === o.protocol);
    assignor?.onAssignment?.(o.assignment, o.generation.generationId);
    const subscribed = new Set(this.#host.subscribedTopics());
    const assigned = o.assignment.partitions;
    if (assigned.some((tp) => !subscribed.has(tp.topic))) {
      // The subscription changed while we were joining: the leader assigned from the old one.
      this.requestRejoin('assignment does not match the subscription');
    }
    this.#opts.logger('info', 'joined group', {
      group: this.groupId,
      generation: o.generation.generationId,
      memberId: o.generation.memberId,
      protocol: o.protocol,
      leader: o.leader,
      partitions: assigned.length,
    });
    let err: Error | null = null;
    if (this.#protocol === 'COOPERATIVE') {
      const owned = this.#host.owned();
      const next = new Set(assigned.map((tp) => tpKey(tp.topic, tp.partition)));
      const had = new Set(owned.map((tp) => tpKey(tp.topic, tp.partition)));
      const revoked = owned.filter((tp) => !next.has(tpKey(tp.topic, tp.partition)));
      const added = assigned.filter((tp) => !had.has(tpKey(tp.topic, tp.partition)));
      if (revoked.length > 0) {
        await this.#host.autoCommitSync(revoked).catch(() => {});
        err = await this.#invoke('onPartitionsRevoked', revoked);
        // The revoked partitions go to their new owners in a follow-up rebalance.
        this.requestRejoin('partitions revoked, rejoining so they can be reassigned');
      }
      this.#host.applyAssignment(assigned);
      err = (await this.#invoke('onPartitionsAssigned', added)) ?? err;
    } else {
      this.#host.applyAssignment(assigned);
      err = await this.#invoke('onPartitionsAssigned', assigned);
    }
    return err;
  }

  async #invoke(
    cb: 'onPartitionsRevoked' | 'onPartitionsAssigned' | 'onPartitionsLost',
    tps: TopicPartition[],
  ): Promise<Error | null> {
    const l = this.#host.listener();
    if (l === null) return null;
    // Kafka's default for "lost" is "revoked".
    const fn = cb === 'onPartitionsLost' ? (l.onPartitionsLost ?? l.onPartitionsRevoked) : l[cb];
    if (fn === undefined) return null;
    if (cb !== 'onPartitionsAssigned' && tps.length === 0) return null;
    try {
      await fn.call(l, tps);
      return null;
    } catch (err) {
      return new RebalanceListenerError(cb, err);
    }
  }

  /** The JoinGroup/SyncGroup exchange, retried until it succeeds, fails for good, or is closed. */
  async #join(reason: string): Promise<JoinOutcome> {
    for (let attempt = 0; ; attempt++) {
      if (this.#closed) return { kind: 'failed', error: new ClientClosedError('consumer closed') };
      let retry = true;
      try {
        const topics = this.#host.subscribedTopics();
        const owned = this.#protocol === 'COOPERATIVE' ? this.#host.owned() : [];
        const protocols = this.#opts.assignors.map((a) => ({
          name: a.name,
          metadata: encodeSubscription({
            topics,
            userData: a.subscriptionUserData?.(topics) ?? null,
            ownedPartitions: owned,
            generationId: this.generation.generationId,
            rackId: this.#opts.clientRack === '' ? null : this.#opts.clientRack,
          }),
        }));
        const res = await this.#rpc.joinGroup(this.generation.memberId, protocols, reason);
        if (res.errorCode === ErrorCode.MEMBER_ID_REQUIRED) {
          // KIP-394: the coordinator hands out the id first; join again with it, at once.
          this.generation = { generationId: -1, memberId: res.memberId };
          attempt = -1;
          continue;
        }
        if (res.errorCode === ErrorCode.UNKNOWN_MEMBER_ID || res.errorCode === ErrorCode.ILLEGAL_GENERATION) {
          if (this.#resetGeneration(res.errorCode === ErrorCode.UNKNOWN_MEMBER_ID)) return { kind: 'lost' };
          continue;
        }
        if (res.errorCode !== 0) {
          this.#rpc.noteCode(res.errorCode);
          if (!RETRY_JOIN.has(res.errorCode))
            return {
              kind: 'failed',
              error: new KafkaResponseError(res.errorCode, `JoinGroup ${this.groupId}`),
            };
        } else {
          const gen = { generationId: res.generationId, memberId: res.memberId };
          const protocol = res.protocolName ?? '';
          const leader = res.leader === res.memberId;
          let counts: Map<string, number> | null = null;
          let assignments: { memberId: string; assignment: Buffer }[] = [];
          if (leader && !res.skipAssignment) {
            const r = await assignAsLeader(this.#opts, protocol, this.#protocol, res.members, (t) =>
              this.#host.partitionCounts(t),
            );
            counts = r.counts;
            assignments = r.assignments;
          }
          const sync = await this.#rpc.syncGroup(gen, protocol, assignments);
          if (sync.errorCode === 0) {
            // The coordinator is at this generation now; commits made before the next poll()
            // applies the assignment (e.g. of partitions this member still owns, or while close()
            // gives them up) must carry it, or they are refused as ILLEGAL_GENERATION and the
            // work done meanwhile is re-delivered (Java also takes the generation from the
            // responses, not from onJoinComplete). Cooperative: a partition this generation
            // takes from us is assigned to nobody until we rejoin, so committing it is safe.
            this.generation = gen;
            return {
              kind: 'joined',
              generation: gen,
              protocol,
              assignment: decodeAssignment(sync.assignment),
              leader,
              topicCounts: counts,
            };
          }
          if (
            sync.errorCode === ErrorCode.UNKNOWN_MEMBER_ID ||
            sync.errorCode === ErrorCode.ILLEGAL_GENERATION
          ) {
            this.generation = gen;
            if (this.#resetGeneration(sync.errorCode === ErrorCode.UNKNOWN_MEMBER_ID))
              return { kind: 'lost' };
            continue;
          }
          this.generation = { generationId: -1, memberId: gen.memberId };
          this.#rpc.noteCode(sync.errorCode);
          if (!RETRY_JOIN.has(sync.errorCode))
            return {
              kind: 'failed',
              error: new KafkaResponseError(sync.errorCode, `SyncGroup ${this.groupId}`),
            };
          // REBALANCE_IN_PROGRESS: someone joined meanwhile; rejoin right away.
          if (sync.errorCode === ErrorCode.REBALANCE_IN_PROGRESS) retry = false;
        }
      } catch (err) {
        if (err instanceof DecodeError)
          return {
            kind: 'failed',
            error: new KafkaResponseError(
              ErrorCode.INCONSISTENT_GROUP_PROTOCOL,
              `assignment for ${this.groupId} is malformed`,
              err.message,
            ),
          };
        if (!(err instanceof KafkaClientError) || !err.retriable)
          return { kind: 'failed', error: err as Error };
        this.#rpc.noteError(err);
      }
      if (retry) await sleep(backoffMs(this.#opts.retryBackoffMs, this.#opts.retryBackoffMaxMs, attempt));
    }
  }

  /** Forgets the generation (and the member id if the coordinator no longer knows it). Returns true if partitions are now lost. */
  #resetGeneration(forgetMember: boolean): boolean {
    this.generation = { generationId: -1, memberId: forgetMember ? '' : this.generation.memberId };
    this.state = 'UNJOINED';
    this.#needsRejoin = true;
    const lost = this.#host.owned().length > 0;
    if (lost) this.#lost = true;
    return lost;
  }

  /** A commit or heartbeat learned that this member was fenced out of the group. */
  fenced(code: number): void {
    this.#opts.logger('warn', 'member fenced out of the group', {
      group: this.groupId,
      error: code,
      generation: this.generation.generationId,
    });
    this.#stopHeartbeat();
    if (code === ErrorCode.FENCED_INSTANCE_ID) {
      this.#fatal = new KafkaResponseError(
        code,
        `group ${this.groupId}: another consumer uses group.instance.id ${this.#opts.groupInstanceId}`,
      );
    } else {
      this.#resetGeneration(code === ErrorCode.UNKNOWN_MEMBER_ID);
      this.#rejoinReason = `fenced (${code === ErrorCode.UNKNOWN_MEMBER_ID ? 'unknown member id' : 'illegal generation'})`;
    }
    this.#host.signal();
  }

  #startHeartbeat(): void {
    this.#stopHeartbeat();
    this.#schedule(this.#opts.heartbeatIntervalMs);
  }

  #stopHeartbeat(): void {
    if (this.#hbTimer !== null) clearTimeout(this.#hbTimer);
    this.#hbTimer = null;
  }

  #schedule(ms: number): void {
    this.#hbTimer = setTimeout(() => {
      this.#hbTimer = null;
      this.#beat().catch(() => {});
    }, ms);
    this.#hbTimer.unref();
  }

  async #beat(): Promise<void> {
    if (this.state !== 'STABLE' || this.#closed) return;
    const clock = this.#host.pollClock();
    const now = Date.now();
    if (!clock.inPoll && now - clock.lastPollAt > this.#opts.maxPollIntervalMs) {
      this.#pollTimeout(now - clock.lastPollAt);
      return;
    }
    const gen = this.generation;
    let next = this.#opts.heartbeatIntervalMs;
    try {
      const code = await this.#rpc.heartbeat(gen);
      if (this.state !== 'STABLE' || this.generation !== gen) return;
      if (code === 0 || code === ErrorCode.REBALANCE_IN_PROGRESS) {
        this.#lastHeartbeatOk = Date.now();
        // Keep heartbeating until poll() sends JoinGroup, so the session does not expire meanwhile.
        if (code === ErrorCode.REBALANCE_IN_PROGRESS) this.requestRejoin('group is rebalancing');
      } else if (
        code === ErrorCode.ILLEGAL_GENERATION ||
        code === ErrorCode.UNKNOWN_MEMBER_ID ||
        code === ErrorCode.FENCED_INSTANCE_ID
      ) {
        this.fenced(code);
        return;
      } else {
        this.#rpc.noteCode(code);
        next = this.#opts.retryBackoffMs;
      }
    } catch (err) {
      this.#rpc.noteError(err);
      next = this.#opts.retryBackoffMs;
    }
    if (Date.now() - this.#lastHeartbeatOk > this.#opts.sessionTimeoutMs) {
      // Like Java: the coordinator is unreachable for a whole session; look it up again.
      this.#rpc.invalidate();
    }
    if (this.state === 'STABLE' && !this.#closed) this.#schedule(next);
  }

  #pollTimeout(sinceMs: number): void {
    this.#opts.logger(
      'warn',
      'consumer poll timeout has expired: the time between poll() calls exceeded max.poll.interval.ms, leaving the group; ' +
        'process batches faster, lower max.poll.records, or raise max.poll.interval.ms',
      { group: this.groupId, sinceLastPollMs: sinceMs, maxPollIntervalMs: this.#opts.maxPollIntervalMs },
    );
    this.#stopHeartbeat();
    const memberId = this.generation.memberId;
    if (this.#opts.groupInstanceId === null && memberId !== '') {
      this.#rpc.leaveGroup(memberId, 'consumer poll timeout has expired').catch(() => {});
    }
    this.#resetGeneration(true);
    this.#rejoinReason = 'rejoining after poll timeout';
  }

  /**
   * Waits (up to `timeoutMs`) for a JoinGroup/SyncGroup exchange in flight, so that close() and
   * unsubscribe() give partitions up under the generation the coordinator has: while the join is
   * pending, commits on the coordinator connection wait behind it and then carry a generation
   * that is gone.
   */
  async settle(timeoutMs: number): Promise<void> {
    const task = this.#joinTask;
    if (task === null) return;
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([
      task.catch(() => {}),
      new Promise<void>((r) => {
        timer = setTimeout(r, timeoutMs);
      }),
    ]);
    clearTimeout(timer);
  }

  /** Stops heartbeats and (for dynamic members) leaves the group. Static members just go quiet. */
  async leave(reason: string): Promise<void> {
    this.#stopHeartbeat();
    const memberId = this.generation.memberId;
    if (this.#opts.groupInstanceId === null && memberId !== '') {
      try {
        await this.#rpc.leaveGroup(memberId, reason);
      } catch (err) {
        this.#opts.logger('debug', 'LeaveGroup failed', {
          group: this.groupId,
          error: (err as Error).message,
        });
      }
    }
    this.generation = { generationId: -1, memberId: '' };
    this.state = 'UNJOINED';
    this.#needsRejoin = true;
  }

  close(): void {
    this.#closed = true;
    this.#stopHeartbeat();
  }
}

function sleep(ms: number): Promise<void> {
  return new Promise((r) => setTimeout(r, ms));
}
