// KIP-848 group membership (groupProtocol 'consumer'; Kafka's ConsumerMembershipManager and
// ConsumerHeartbeatRequestManager): the coordinator computes the assignment and the member only
// heartbeats, reconciles, and acknowledges.
//
// - The member id is made here, once per consumer (KIP-1082), and kept across fencings; the
//   member epoch starts at 0 (join), follows every response, and is what commits carry.
// - Heartbeats run on their own timer at the interval the coordinator returns, one in flight at
//   a time; a subscription change or a finished reconciliation sends one at once.
// - Reconciliation runs in poll(), like the classic path, so rebalance listener callbacks never
//   interleave with the application's record processing: the partitions the new assignment
//   drops are committed (auto commit) and revoked through the listener first, then the added
//   ones are installed and announced, then the owned set is sent — the acknowledgement the
//   coordinator waits for before giving the revoked partitions to their new owner. Members whose
//   partitions do not move are never asked to do anything (no stop-the-world).
// - FENCED_MEMBER_EPOCH / UNKNOWN_MEMBER_ID (or a session that expired while the process was
//   paused): the partitions are lost (onPartitionsLost, nothing committed), and the member
//   rejoins at epoch 0 with the same id. A max.poll.interval.ms overrun leaves the group first.
// - Leaving: epoch −1, or −2 for a static member (group.instance.id), whose partitions then wait
//   for it until the session timeout instead of moving at once.
import { backoffMs } from '../../net/backoff.js';
import { ErrorCode } from '../../protocol/errors.js';
import type {
  ConsumerGroupHeartbeatRequest,
  ConsumerGroupHeartbeatResponse,
} from '../../protocol/messages/generated/consumer-group-heartbeat.js';
import { ClientClosedError, KafkaClientError, KafkaResponseError } from '../errors.js';
import type { Metadata } from '../metadata.js';
import type { ResolvedConsumerOptions } from './consumer-config.js';
import { RebalanceListenerError } from './consumer-errors.js';
import {
  consumerProtocolUnsupported,
  HeartbeatFields,
  type HeartbeatView,
  JOIN_EPOCH,
  LEAVE_EPOCH,
  type LocalAssignment,
  newMemberId,
  STATIC_LEAVE_EPOCH,
  sendHeartbeat,
  type TopicIdPartitions,
} from './consumer-protocol-heartbeat.js';
import type { MembershipHost } from './group-membership.js';
import type { Generation, GroupRpc } from './group-rpc.js';
import type { Membership } from './membership.js';
import { type HostParts, membershipHost } from './membership-host.js';
import { toRe2TopicRegex } from './topic-regex.js';
import { type RebalanceListener, type TopicPartition, tpKey } from './types.js';

/** What the KIP-848 membership needs of the consumer beyond the classic host. */
export interface ConsumerProtocolHost extends MembershipHost {
  /** The pattern of a subscribe(RegExp), else null. */
  subscribedPattern(): RegExp | null;
  /** Topic names of the ids metadata knows; with `refresh`, metadata is refreshed first if one is unknown. */
  topicNames(ids: readonly string[], refresh: boolean): Promise<Map<string, string>>;
}

export function consumerProtocolHost(parts: HostParts): ConsumerProtocolHost {
  const metadata: Metadata = parts.metadata;
  const known = (ids: readonly string[]) => {
    const byId = new Map(metadata.topics().map((t) => [t.topicId, t.name]));
    const out = new Map<string, string>();
    for (const id of ids) {
      const name = byId.get(id);
      if (name !== undefined) out.set(id, name);
    }
    return out;
  };
  return {
    ...membershipHost(parts),
    subscribedPattern: () => (parts.subs.mode === 'pattern' ? parts.subs.pattern : null),
    topicNames: async (ids, refresh) => {
      let out = known(ids);
      if (out.size === ids.length) return out;
      // A topic of the assignment that metadata does not know yet (a new topic matching a
      // pattern, or one created since the last refresh): every topic is needed to find its name.
      metadata.trackAll();
      if (refresh) {
        await metadata.refresh().catch(() => {});
        out = known(ids);
      } else metadata.requestUpdate();
      return out;
    },
  };
}

/** Heartbeat errors after which the same request is simply retried after a backoff. */
const RETRY = new Set<number>([
  ErrorCode.COORDINATOR_NOT_AVAILABLE,
  ErrorCode.NOT_COORDINATOR,
  ErrorCode.COORDINATOR_LOAD_IN_PROGRESS,
  ErrorCode.REQUEST_TIMED_OUT,
]);

type Phase = 'idle' | 'joining' | 'member' | 'lost' | 'fatal';

interface Target {
  localEpoch: number;
  partitions: TopicIdPartitions;
}

const EMPTY: LocalAssignment = { localEpoch: 0, partitions: new Map() };

export class ConsumerProtocolMembership implements Membership {
  readonly protocol = 'consumer';
  readonly #rpc: GroupRpc;
  readonly #opts: ResolvedConsumerOptions;
  readonly #host: ConsumerProtocolHost;
  readonly #fields = new HeartbeatFields();
  #memberId = newMemberId();
  #epoch = JOIN_EPOCH;
  #generation: Generation = { generationId: -1, memberId: this.#memberId };
  #phase: Phase = 'idle';
  /** Bumped by every fencing or leave: work started before it is stale. */
  #incarnation = 0;
  #intervalMs: number;
  #timer: NodeJS.Timeout | null = null;
  #inFlight: Promise<void> | null = null;
  #beatAgain = false;
  #failures = 0;
  /** The latest assignment the coordinator sent; reconciled in poll() when it differs from `current`. */
  #target: Target = { localEpoch: 0, partitions: new Map() };
  #current: LocalAssignment = EMPTY;
  /** Topic ids of the target metadata could not name yet (retried on later polls). */
  #unresolved = 0;
  #lostReason = '';
  #fatal: Error | null = null;
  #closed = false;
  #regexFor: RegExp | null = null;
  #regex: string | null = null;
  /** Reconciliations completed (tests, metrics). */
  rebalances = 0;

  constructor(rpc: GroupRpc, opts: ResolvedConsumerOptions, host: ConsumerProtocolHost) {
    this.#rpc = rpc;
    this.#opts = opts;
    this.#host = host;
    this.#intervalMs = opts.heartbeatIntervalMs;
  }

  get groupId(): string {
    return this.#rpc.groupId;
  }

  get memberId(): string {
    return this.#memberId;
  }

  get memberEpoch(): number {
    return this.#epoch;
  }

  get generation(): Generation {
    return this.#generation;
  }

  get state(): 'UNJOINED' | 'JOINING' | 'STABLE' {
    if (this.#phase === 'member' && this.#epoch > 0) return 'STABLE';
    return this.#phase === 'joining' ? 'JOINING' : 'UNJOINED';
  }

  async poll(): Promise<void> {
    if (this.#fatal) throw this.#fatal;
    if (this.#closed) return;
    let err: Error | null = null;
    if (this.#phase === 'lost') err = await this.#giveUpLost();
    if (this.#phase === 'idle' && this.#subscribed()) this.#join();
    if (this.#phase === 'member' && this.#needsReconcile()) err = (await this.#reconcile()) ?? err;
    if (this.#fatal) throw this.#fatal;
    if (err) throw err;
  }

  requestRejoin(reason: string): void {
    // The coordinator owns the assignment: a changed subscription only has to reach it.
    if (this.#phase === 'member' || this.#phase === 'joining') {
      this.#opts.logger('debug', 'subscription changed, heartbeating now', { group: this.groupId, reason });
      this.#beatNow();
    }
  }

  checkTopicCounts(): void {
    // The coordinator watches partition counts itself (subscription metadata).
  }

  fenced(code: number, why = 'a commit found the member unknown to the coordinator'): void {
    if (code === ErrorCode.FENCED_INSTANCE_ID) this.#fail(this.#staticError(code, null));
    else this.#fence(code, why);
  }

  async settle(timeoutMs: number): Promise<void> {
    const task = this.#inFlight;
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

  async leave(reason: string): Promise<void> {
    this.#stopTimer();
    await this.settle(Math.min(this.#opts.requestTimeoutMs, 5000));
    if (this.#phase === 'fatal') return;
    const epoch = this.#epoch;
    this.#reset('idle');
    if (epoch <= 0) return;
    this.#opts.logger('info', 'leaving group', { group: this.groupId, memberId: this.#memberId, reason });
    try {
      const res = await sendHeartbeat(
        this.#rpc,
        this.#leaveRequest(),
        this.#opts,
        Math.min(this.#opts.requestTimeoutMs, 5000),
      );
      if (res.errorCode !== 0) this.#rpc.noteCode(res.errorCode);
    } catch (err) {
      this.#opts.logger('debug', 'leave heartbeat failed', {
        group: this.groupId,
        error: (err as Error).message,
      });
    }
  }

  /** Epoch −1 removes the member at once; −2 keeps a static member's partitions for its return. */
  #leaveRequest(): ConsumerGroupHeartbeatRequest {
    return {
      groupId: this.groupId,
      memberId: this.#memberId,
      memberEpoch: this.#opts.groupInstanceId !== null ? STATIC_LEAVE_EPOCH : LEAVE_EPOCH,
      instanceId: this.#opts.groupInstanceId,
      rackId: null,
      rebalanceTimeoutMs: -1,
      subscribedTopicNames: null,
      subscribedTopicRegex: null,
      serverAssignor: null,
      topicPartitions: null,
    };
  }

  close(): void {
    this.#closed = true;
    this.#incarnation++;
    this.#stopTimer();
  }

  // ---- membership steps run by poll() ----------------------------------------------------

  #subscribed(): boolean {
    return this.#host.subscribedPattern() !== null || this.#host.subscribedTopics().length > 0;
  }

  #join(): void {
    this.#reset('joining');
    this.#opts.logger('info', 'joining group', { group: this.groupId, memberId: this.#memberId });
    this.#beatNow();
  }

  /** Forgets epoch, assignment and what was sent; `phase` says what comes next. */
  #reset(phase: Phase): void {
    this.#incarnation++;
    this.#stopTimer();
    this.#phase = phase;
    this.#setEpoch(JOIN_EPOCH);
    this.#target = { localEpoch: this.#current.localEpoch + 1, partitions: new Map() };
    this.#current = { localEpoch: this.#target.localEpoch, partitions: new Map() };
    this.#unresolved = 0;
    this.#fields.reset();
  }

  /** After a fencing: nothing can be committed any more; report the partitions lost, then rejoin. */
  async #giveUpLost(): Promise<Error | null> {
    const owned = this.#host.owned();
    this.#host.applyAssignment([]);
    this.#opts.logger('warn', 'partitions lost, rejoining the group', {
      group: this.groupId,
      reason: this.#lostReason,
      partitions: owned.length,
    });
    const err = await this.#invoke('onPartitionsLost', owned);
    if (this.#phase === 'lost') this.#phase = 'idle';
    return err;
  }

  #needsReconcile(): boolean {
    return this.#target.localEpoch !== this.#current.localEpoch || this.#unresolved > 0;
  }

  /** Brings the consumer's assignment to the coordinator's, revoking before assigning. */
  async #reconcile(): Promise<Error | null> {
    const target = this.#target;
    const incarnation = this.#incarnation;
    const fresh = target.localEpoch !== this.#current.localEpoch;
    const names = await this.#host.topicNames([...target.partitions.keys()], fresh);
    if (incarnation !== this.#incarnation || target !== this.#target) return null;
    const assigned: TopicPartition[] = [];
    const resolved: TopicIdPartitions = new Map();
    let unresolved = 0;
    for (const [topicId, partitions] of target.partitions) {
      const topic = names.get(topicId);
      if (topic === undefined) {
        unresolved++;
        continue;
      }
      resolved.set(topicId, partitions);
      for (const partition of partitions) assigned.push({ topic, partition });
    }
    const owned = this.#host.owned();
    const next = new Set(assigned.map((tp) => tpKey(tp.topic, tp.partition)));
    const had = new Set(owned.map((tp) => tpKey(tp.topic, tp.partition)));
    const revoked = owned.filter((tp) => !next.has(tpKey(tp.topic, tp.partition)));
    const added = assigned.filter((tp) => !had.has(tpKey(tp.topic, tp.partition)));
    const done = () => {
      this.#current = { localEpoch: target.localEpoch, partitions: resolved };
      this.#unresolved = unresolved;
    };
    if (revoked.length === 0 && added.length === 0) {
      // Same partitions (an epoch bump, or a topic still unresolved): nothing to tell anyone.
      done();
      return null;
    }
    this.#opts.logger('info', 'reconciling assignment', {
      group: this.groupId,
      memberEpoch: this.#epoch,
      revoked: revoked.length,
      added: added.length,
      unresolvedTopics: unresolved,
    });
    let err: Error | null = null;
    if (revoked.length > 0) {
      await this.#host
        .autoCommitSync(revoked)
        .catch((e: Error) =>
          this.#opts.logger('warn', 'auto commit before revocation failed', { error: e.message }),
        );
      if (incarnation !== this.#incarnation) return null;
      err = await this.#invoke('onPartitionsRevoked', revoked);
      const kept = owned.filter((tp) => next.has(tpKey(tp.topic, tp.partition)));
      this.#host.applyAssignment(kept);
      if (incarnation !== this.#incarnation) return err;
    }
    this.#host.applyAssignment(assigned);
    err = (await this.#invoke('onPartitionsAssigned', added)) ?? err;
    if (incarnation !== this.#incarnation) return err;
    done();
    this.rebalances++;
    // The acknowledgement: the coordinator frees what we revoked once it sees the owned set.
    this.#beatNow();
    return err;
  }

  async #invoke(
    cb: 'onPartitionsRevoked' | 'onPartitionsAssigned' | 'onPartitionsLost',
    tps: TopicPartition[],
  ): Promise<Error | null> {
    const l: RebalanceListener | null = this.#host.listener();
    if (l === null) return null;
    // Kafka's default for "lost" is "revoked".
    const fn = cb === 'onPartitionsLost' ? (l.onPartitionsLost ?? l.onPartitionsRevoked) : l[cb];
    if (fn === undefined) return null;
    // As on the classic cooperative path: every reconciliation reports what it added, even nothing.
    if (cb !== 'onPartitionsAssigned' && tps.length === 0) return null;
    try {
      await fn.call(l, tps);
      return null;
    } catch (err) {
      return new RebalanceListenerError(cb, err);
    }
  }

  // ---- heartbeats ---------------------------------------------------------------------------

  #setEpoch(epoch: number): void {
    if (epoch === this.#epoch && this.#generation.memberId === this.#memberId) return;
    this.#epoch = epoch;
    this.#generation = { generationId: epoch > 0 ? epoch : -1, memberId: this.#memberId };
  }

  #view(): HeartbeatView {
    const pattern = this.#host.subscribedPattern();
    if (pattern !== this.#regexFor) {
      this.#regexFor = pattern;
      this.#regex = pattern === null ? null : toRe2TopicRegex(pattern);
    }
    const rack = this.#opts.clientRack;
    return {
      groupId: this.groupId,
      memberId: this.#memberId,
      memberEpoch: this.#epoch,
      instanceId: this.#opts.groupInstanceId,
      rackId: rack === '' ? null : rack,
      rebalanceTimeoutMs: this.#opts.maxPollIntervalMs,
      topics: this.#regex === null ? this.#host.subscribedTopics() : null,
      regex: this.#regex,
      serverAssignor: this.#opts.groupRemoteAssignor,
      owned: this.#current,
    };
  }

  #beatNow(): void {
    if (this.#inFlight !== null) {
      this.#beatAgain = true;
      return;
    }
    this.#stopTimer();
    this.#inFlight = this.#heartbeat().finally(() => {
      this.#inFlight = null;
      if (this.#beatAgain) {
        this.#beatAgain = false;
        this.#beatNow();
      }
    });
  }

  #schedule(ms: number): void {
    this.#stopTimer();
    this.#timer = setTimeout(() => {
      this.#timer = null;
      this.#beatNow();
    }, ms);
    this.#timer.unref();
  }

  #stopTimer(): void {
    if (this.#timer !== null) clearTimeout(this.#timer);
    this.#timer = null;
  }

  async #heartbeat(): Promise<void> {
    if (this.#closed || (this.#phase !== 'joining' && this.#phase !== 'member')) return;
    const clock = this.#host.pollClock();
    const sincePoll = Date.now() - clock.lastPollAt;
    if (this.#phase === 'member' && !clock.inPoll && sincePoll > this.#opts.maxPollIntervalMs) {
      this.#pollTimeout(sincePoll);
      return;
    }
    const incarnation = this.#incarnation;
    let next: number | null = this.#intervalMs;
    try {
      const req = this.#fields.build(this.#view());
      const res = await sendHeartbeat(this.#rpc, req, this.#opts);
      if (incarnation !== this.#incarnation || this.#closed) return;
      next = res.errorCode === 0 ? this.#onResponse(res) : this.#onError(res);
    } catch (err) {
      if (incarnation !== this.#incarnation || this.#closed) return;
      // Transport errors and a closing connection are retried; anything else (no
      // ConsumerGroupHeartbeat on the broker, a pattern RE2 cannot express) ends the membership.
      const retriable =
        err instanceof ClientClosedError || (err instanceof KafkaClientError && err.retriable);
      if (!retriable) {
        this.#fail(err as Error);
        return;
      }
      this.#rpc.noteError(err);
      next = this.#retryDelay();
    }
    if (next !== null && incarnation === this.#incarnation && !this.#closed) this.#schedule(next);
  }

  #onResponse(res: ConsumerGroupHeartbeatResponse): number {
    this.#failures = 0;
    if (res.memberId !== null && res.memberId !== '' && res.memberId !== this.#memberId) {
      // A coordinator without KIP-1082 (ConsumerGroupHeartbeat v0) may choose the id itself.
      this.#memberId = res.memberId;
    }
    if (this.#phase === 'joining') {
      this.#phase = 'member';
      this.#opts.logger('info', 'joined group', {
        group: this.groupId,
        memberId: this.#memberId,
        memberEpoch: res.memberEpoch,
      });
    }
    this.#setEpoch(res.memberEpoch);
    if (res.heartbeatIntervalMs > 0) this.#intervalMs = res.heartbeatIntervalMs;
    if (res.assignment !== null) {
      const partitions: TopicIdPartitions = new Map(
        res.assignment.topicPartitions.map((t) => [t.topicId, [...t.partitions].sort((a, b) => a - b)]),
      );
      if (!sameAssignment(partitions, this.#target.partitions)) {
        this.#target = { localEpoch: this.#target.localEpoch + 1, partitions };
        this.#host.signal();
      }
    }
    return this.#intervalMs;
  }

  /** Returns the delay before the next heartbeat, or null when heartbeats stop. */
  #onError(res: ConsumerGroupHeartbeatResponse): number | null {
    const code = res.errorCode;
    // The coordinator may not have applied what the request carried: send everything again.
    this.#fields.reset();
    if (code === ErrorCode.FENCED_MEMBER_EPOCH || code === ErrorCode.UNKNOWN_MEMBER_ID) {
      this.#fence(code, res.errorMessage ?? 'fenced by the coordinator');
      return null;
    }
    if (code === ErrorCode.UNRELEASED_INSTANCE_ID || code === ErrorCode.FENCED_INSTANCE_ID) {
      this.#fail(this.#staticError(code, res.errorMessage));
      return null;
    }
    if (code === ErrorCode.UNSUPPORTED_VERSION) {
      this.#fail(consumerProtocolUnsupported(this.groupId, res.errorMessage ?? 'it refused the request'));
      return null;
    }
    this.#rpc.noteCode(code);
    if (RETRY.has(code)) return this.#retryDelay();
    const err = new KafkaResponseError(code, `ConsumerGroupHeartbeat ${this.groupId}`, res.errorMessage);
    if (err.retriable) return this.#retryDelay();
    this.#fail(err);
    return null;
  }

  #retryDelay(): number {
    this.#fields.reset();
    return backoffMs(this.#opts.retryBackoffMs, this.#opts.retryBackoffMaxMs, this.#failures++);
  }

  #staticError(code: number, message: string | null): Error {
    return new KafkaResponseError(
      code,
      `group ${this.groupId}: group.instance.id ${this.#opts.groupInstanceId} is held by another member`,
      message,
    );
  }

  /** The coordinator no longer counts this member: its partitions are lost; poll() rejoins. */
  #fence(code: number, why: string): void {
    if (this.#phase !== 'member' && this.#phase !== 'joining') return;
    this.#opts.logger('warn', 'member fenced by the group coordinator', {
      group: this.groupId,
      memberId: this.#memberId,
      memberEpoch: this.#epoch,
      error: code,
      reason: why,
    });
    this.#lostReason = why;
    this.#reset('lost');
    this.#host.signal();
  }

  #pollTimeout(sinceMs: number): void {
    this.#opts.logger(
      'warn',
      'consumer poll timeout has expired: the time between poll() calls exceeded max.poll.interval.ms, leaving the group; ' +
        'process batches faster, lower max.poll.records, or raise max.poll.interval.ms',
      { group: this.groupId, sinceLastPollMs: sinceMs, maxPollIntervalMs: this.#opts.maxPollIntervalMs },
    );
    sendHeartbeat(this.#rpc, this.#leaveRequest(), this.#opts).catch(() => {});
    this.#lostReason = 'consumer poll timeout has expired';
    this.#reset('lost');
    this.#host.signal();
  }

  #fail(err: Error): void {
    this.#opts.logger('error', 'group membership failed', { group: this.groupId, error: err.message });
    this.#fatal = err;
    this.#phase = 'fatal';
    this.#incarnation++;
    this.#stopTimer();
    this.#host.signal();
  }
}

function sameAssignment(a: TopicIdPartitions, b: TopicIdPartitions): boolean {
  if (a.size !== b.size) return false;
  for (const [id, ps] of a) {
    const o = b.get(id);
    if (o === undefined || o.length !== ps.length || o.some((p, i) => p !== ps[i])) return false;
  }
  return true;
}
