// One partition replica on this broker: its log plus the leadership state the controller decided
// (leader, epoch, replicas, ISR, partition epoch). As leader it keeps Kafka's bookkeeping: each
// follower's log end offset and last caught-up time (updated by its fetches), the high watermark
// = the smallest log end offset over the maximal ISR (leader included; never moved backwards),
// ISR expansion when a follower catches up and shrinking when one lags longer than
// `replica.lag.time.max.ms`, proposed to the controller (AlterPartition) one at a time, and the
// waits of acks=all and coordinator writes for the HW. Alone in its ISR, the HW follows the log
// end offset after every append. State comes from the controller's LeaderAndIsr
// (`applyLeaderAndIsr`) and from the answers to this replica's own ISR proposals.

import { ErrorCode, KafkaError } from '../../protocol/errors.js';
import type { AlterPartitionResponsePartitionData } from '../../protocol/messages/generated/alter-partition.js';
import type { AppendOrigin, AppendResult, PartitionLog, VerificationGuard } from '../../storage/index.js';
import type { PartitionRecord } from '../metadata/types.js';
import { CommitWaiters } from './commit-waiters.js';
import { FollowerState } from './follower-state.js';

/** A LeaderAndIsr decision for one partition, as the replica manager applies it. */
export interface PartitionLeaderAndIsr {
  readonly leader: number;
  readonly leaderEpoch: number;
  readonly isr: readonly number[];
  readonly replicas: readonly number[];
  /** The state's version (ZooKeeper zkVersion). */
  readonly partitionEpoch: number;
  readonly controllerEpoch: number;
  readonly addingReplicas: readonly number[];
  readonly removingReplicas: readonly number[];
  /** KIP-704: 1 = recovering from an unclean election. */
  readonly leaderRecoveryState: number;
}

/** An ISR change this leader proposes to the controller (one AlterPartition partition entry). */
export interface IsrProposal {
  readonly topic: string;
  readonly topicId: string;
  readonly partition: number;
  readonly leaderEpoch: number;
  readonly partitionEpoch: number;
  readonly isr: readonly number[];
  /** The ISR with each member's broker epoch (-1 when unknown), for AlterPartition v3+. */
  readonly isrWithEpochs: readonly { readonly brokerId: number; readonly brokerEpoch: bigint }[];
  readonly leaderRecoveryState: number;
  /** Applies the controller's answer for this partition; true = send the proposal again. */
  readonly onAnswer: (answer: AlterPartitionResponsePartitionData) => boolean;
}

/** What a partition needs from the broker for its leader bookkeeping. */
export interface PartitionEnv {
  now(): number;
  /** `replica.lag.time.max.ms`. */
  replicaLagTimeMaxMs(): number;
  /** The broker is alive and may join an ISR (Kafka's isReplicaIsrEligible). */
  isReplicaIsrEligible(brokerId: number): boolean;
  /** This broker's registration epoch (-1 when unknown). */
  brokerEpoch(): bigint;
  /** Sends an ISR change to the controller; absent: the ISR is never changed from here. */
  submitIsrChange?(proposal: IsrProposal): void;
  /** The controller accepted an ISR change of this leader (Kafka's IsrShrinks/IsrExpands meters). */
  isrChanged?(shrunk: boolean): void;
  /**
   * Checked on every write as leader: false when this broker cannot prove it still leads (its
   * process did not run for half its session timeout, see broker.ts); absent: always true.
   */
  mayWriteAsLeader?(): boolean;
}

/** A single broker's environment: nobody else may join, nothing is proposed. */
export const STANDALONE_ENV: PartitionEnv = {
  now: () => Date.now(),
  replicaLagTimeMaxMs: () => 30_000,
  isReplicaIsrEligible: () => false,
  brokerEpoch: () => -1n,
};

/** Kafka's AlterPartition errors after which a proposal is dropped at once (not applied, safe to retry later). */
const REVERT = new Set<number>([ErrorCode.OPERATION_NOT_ATTEMPTED, ErrorCode.INELIGIBLE_REPLICA]);
/** Errors that mean "the controller knows a newer state": wait for its LeaderAndIsr. */
const AWAIT_LEADER_AND_ISR = new Set<number>([
  ErrorCode.UNKNOWN_TOPIC_OR_PARTITION,
  ErrorCode.UNKNOWN_TOPIC_ID,
  ErrorCode.FENCED_LEADER_EPOCH,
  ErrorCode.INVALID_UPDATE_VERSION,
  ErrorCode.INVALID_REQUEST,
  ErrorCode.NEW_LEADER_ELECTED,
]);

interface PendingIsr {
  readonly proposal: IsrProposal;
  /** The committed ISR plus the proposed one (Kafka's maximal ISR). */
  readonly maximal: readonly number[];
}

export class Partition {
  #partitionEpoch = -1;
  #controllerEpoch = -1;
  #leaderRecoveryState: 0 | 1 = 0;
  #addingReplicas: readonly number[] = [];
  #removingReplicas: readonly number[] = [];
  /**
   * This broker can no longer prove it leads (its metadata-store session is lost or expired):
   * writes are refused until the controller's next decision arrives. The value is the broker
   * epoch (registration) it was fenced under; null = not fenced.
   */
  #fencedUnder: bigint | null = null;
  /** Leader only: the other assigned replicas. */
  readonly #followers = new Map<number, FollowerState>();
  /** Leader only: the log end offset when this leader epoch began (Kafka's leaderEpochStartOffsetOpt). */
  #leaderEpochStartOffset: bigint | null = null;
  #pendingIsr: PendingIsr | null = null;
  readonly #waiters = new CommitWaiters();

  constructor(
    readonly topic: string,
    readonly topicId: string,
    readonly log: PartitionLog,
    private state: PartitionRecord,
    private readonly localNodeId: number,
    private readonly env: PartitionEnv = STANDALONE_ENV,
  ) {}

  get index(): number {
    return this.state.partition;
  }

  get leaderId(): number {
    return this.state.leader;
  }

  get leaderEpoch(): number {
    return this.state.leaderEpoch;
  }

  /** The committed ISR (the controller's). */
  get isr(): readonly number[] {
    return this.state.isr;
  }

  /** The ISR the high watermark waits for: the committed one plus a proposed change in flight. */
  get maximalIsr(): readonly number[] {
    return this.#pendingIsr?.maximal ?? this.state.isr;
  }

  /** An ISR change is waiting for the controller's answer. */
  get isrChangePending(): boolean {
    return this.#pendingIsr !== null;
  }

  get replicas(): readonly number[] {
    return this.state.replicas;
  }

  get isLeader(): boolean {
    return this.state.leader === this.localNodeId;
  }

  get fenced(): boolean {
    return this.#fencedUnder !== null;
  }

  /**
   * Stops accepting writes as leader until `unfence()`, a newer LeaderAndIsr, or the controller
   * confirms this leadership for a registration newer than `brokerEpoch` (`confirmsLeadership`).
   * Fencing again under a newer registration raises that bar; an older one leaves it.
   */
  fence(brokerEpoch: bigint): void {
    if (this.#fencedUnder === null || brokerEpoch > this.#fencedUnder) this.#fencedUnder = brokerEpoch;
  }

  unfence(): void {
    this.#fencedUnder = null;
  }

  /**
   * A LeaderAndIsr at this leader epoch naming this broker leader again, sent by a controller for
   * broker epoch `brokerEpoch`: if that registration is newer than the one the fence was set
   * under, the controller decided with this broker's current registration in view (a controller
   * elected after every session expired re-sends the unchanged states): the fence may be lifted.
   */
  confirmsLeadership(leader: number, leaderEpoch: number, brokerEpoch: bigint): boolean {
    const under = this.#fencedUnder;
    if (under === null || !this.isLeader || leader !== this.localNodeId) return false;
    return leaderEpoch === this.leaderEpoch && brokerEpoch > under;
  }

  /** Version of the partition state this replica applied (-1: none from a controller yet). */
  get partitionEpoch(): number {
    return this.#partitionEpoch;
  }

  /** Epoch of the controller whose decision this replica applied (-1: none yet). */
  get controllerEpoch(): number {
    return this.#controllerEpoch;
  }

  get leaderRecoveryState(): 0 | 1 {
    return this.#leaderRecoveryState;
  }

  get addingReplicas(): readonly number[] {
    return this.#addingReplicas;
  }

  get removingReplicas(): readonly number[] {
    return this.#removingReplicas;
  }

  /** Leader only: the log end offset at which this leader epoch began (null on a follower). */
  get leaderEpochStartOffset(): bigint | null {
    return this.#leaderEpochStartOffset;
  }

  /** Leader only: what this leader knows of a follower (undefined: not an assigned follower). */
  follower(brokerId: number): FollowerState | undefined {
    return this.#followers.get(brokerId);
  }

  /**
   * Applies a controller decision (the replica manager has checked that it is newer). A leader
   * starts its epoch at its log end, counts the followers in the ISR as caught up now and the
   * others as never (a new leader also forgets their positions) and drops any ISR proposal; a
   * follower fails the waits of acks=all requests (NOT_LEADER_OR_FOLLOWER). A leader recovering
   * from an unclean election (KIP-704) has nothing to recover and asks the controller to mark
   * it recovered.
   */
  applyLeaderAndIsr(s: PartitionLeaderAndIsr): void {
    const wasLeader = this.isLeader;
    this.state = {
      partition: this.state.partition,
      leader: s.leader,
      leaderEpoch: s.leaderEpoch,
      replicas: [...s.replicas],
      isr: [...s.isr],
    };
    this.#partitionEpoch = s.partitionEpoch;
    this.#controllerEpoch = s.controllerEpoch;
    this.#leaderRecoveryState = s.leaderRecoveryState === 1 ? 1 : 0;
    this.#addingReplicas = [...s.addingReplicas];
    this.#removingReplicas = [...s.removingReplicas];
    this.#fencedUnder = null;
    this.#pendingIsr = null;
    if (!this.isLeader) {
      this.#followers.clear();
      this.#leaderEpochStartOffset = null;
      this.#waiters.failAll(ErrorCode.NOT_LEADER_OR_FOLLOWER);
      return;
    }
    const now = this.env.now();
    const leo = this.log.logEndOffset;
    if (!wasLeader) this.#followers.clear();
    for (const id of [...this.#followers.keys()]) if (!s.replicas.includes(id)) this.#followers.delete(id);
    for (const id of s.replicas) {
      if (id === this.localNodeId) continue;
      const f = this.#followers.get(id);
      if (f === undefined) this.#followers.set(id, new FollowerState(s.isr.includes(id) ? now : 0));
      else f.resetForNewEpoch(now, leo, s.isr.includes(id));
    }
    this.#leaderEpochStartOffset = leo;
    this.log.assignEpochStartOffset(s.leaderEpoch);
    if (this.#leaderRecoveryState === 1) this.#propose(this.state.isr, 0);
    this.maybeAdvanceHighWatermark();
    this.#checkWaiters();
  }

  /**
   * Checks leadership and `min.insync.replicas` (acks=all only), then hands the batch to the
   * log. The log assigns offsets synchronously, so call order is log order.
   */
  appendAsLeader(
    batch: Buffer,
    acks: number,
    minInsyncReplicas: number,
    origin: AppendOrigin = 'client',
    verificationGuard?: VerificationGuard,
  ): Promise<AppendResult> {
    if (!this.isLeader || this.#fencedUnder !== null || this.env.mayWriteAsLeader?.() === false)
      return this.#refuse(batch, origin, new KafkaError(ErrorCode.NOT_LEADER_OR_FOLLOWER));
    if (acks === -1 && this.state.isr.length < minInsyncReplicas) {
      return this.#refuse(
        batch,
        origin,
        new KafkaError(
          ErrorCode.NOT_ENOUGH_REPLICAS,
          `The size of the current ISR ${this.state.isr.length} is insufficient to satisfy the min.isr requirement of ${minInsyncReplicas} for partition ${this.topic}-${this.index}`,
        ),
      );
    }
    const appended =
      verificationGuard !== undefined
        ? this.log.appendAsLeader(batch, this.state.leaderEpoch, { origin, verificationGuard })
        : origin === 'client'
          ? this.log.appendAsLeader(batch, this.state.leaderEpoch)
          : this.log.appendAsLeader(batch, this.state.leaderEpoch, { origin });
    return appended.then((r) => {
      this.maybeAdvanceHighWatermark();
      return r;
    });
  }

  /**
   * A client batch refused before the log saw it: the log remembers it, so that the producer's
   * next batches, pipelined behind it, are refused alike if this replica takes writes again
   * before they arrive (rather than failing for the gap it left).
   */
  #refuse(batch: Buffer, origin: AppendOrigin, err: KafkaError): Promise<AppendResult> {
    if (origin === 'client') this.log.noteRefusedBatch(batch, err.code);
    return Promise.reject(err);
  }

  /**
   * Waits until the high watermark reaches `offset` (the end of an append), bounded by
   * `timeoutMs`; resolves with an error code, see `CommitWaiters`. Not the leader:
   * NOT_LEADER_OR_FOLLOWER at once.
   */
  waitForHighWatermark(offset: bigint, timeoutMs: number, minInsyncReplicas = 1): Promise<number> {
    if (!this.isLeader) return Promise.resolve(ErrorCode.NOT_LEADER_OR_FOLLOWER);
    return this.#waiters.wait(
      offset,
      minInsyncReplicas,
      timeoutMs,
      this.log.highWatermark,
      this.maximalIsr.length,
    );
  }

  /** Fails every wait for the high watermark (the replica is stopped or the broker shuts down). */
  failWaiters(code: number = ErrorCode.NOT_LEADER_OR_FOLLOWER): void {
    this.#waiters.failAll(code);
  }

  /**
   * Kafka's maybeIncrementLeaderHW: the smallest log end offset among the leader and the
   * followers of the maximal ISR, and of followers that are caught up and about to join it;
   * only ever forward. A follower of the ISR that has not fetched under this leader yet (log end
   * offset unknown) holds it where it is.
   */
  maybeAdvanceHighWatermark(): void {
    if (!this.isLeader) return;
    const leo = this.log.logEndOffset;
    let hw = leo;
    if (this.#followers.size > 0) {
      const maximal = this.maximalIsr;
      const now = this.env.now();
      const lag = this.env.replicaLagTimeMaxMs();
      for (const [id, f] of this.#followers) {
        if (f.logEndOffset >= hw) continue;
        if (maximal.includes(id) || (f.isCaughtUp(leo, now, lag) && this.env.isReplicaIsrEligible(id))) {
          hw = f.logEndOffset;
        }
      }
    }
    if (hw > this.log.highWatermark) {
      this.log.setHighWatermark(hw);
      this.#checkWaiters();
    }
  }

  /**
   * A follower fetched at `fetchOffset` (its log end offset) while the leader's log ended at
   * `leaderEndOffset` (read before serving it): updates its state, may add it to the ISR and
   * advance the high watermark. Ignored for a broker that is not an assigned follower.
   */
  recordFollowerFetch(
    brokerId: number,
    fetchOffset: bigint,
    logStartOffset: bigint,
    leaderEndOffset: bigint,
    brokerEpoch: bigint,
  ): void {
    const f = this.#followers.get(brokerId);
    if (f === undefined || !this.isLeader) return;
    f.updateFetchState(fetchOffset, logStartOffset, this.env.now(), leaderEndOffset, brokerEpoch);
    this.#maybeExpandIsr(brokerId, f);
    this.maybeAdvanceHighWatermark();
  }

  /**
   * Kafka's maybeShrinkIsr (run every replica.lag.time.max.ms / 2): proposes an ISR without the
   * followers that have not been caught up for longer than the lag time. Nothing while another
   * change is pending. The HW keeps waiting for them until the controller accepts.
   */
  maybeShrinkIsr(): void {
    if (!this.isLeader || this.#pendingIsr !== null || this.#leaderRecoveryState === 1) return;
    const leo = this.log.logEndOffset;
    const now = this.env.now();
    const lag = this.env.replicaLagTimeMaxMs();
    const outOfSync = this.state.isr.filter((id) => {
      if (id === this.localNodeId) return false;
      const f = this.#followers.get(id);
      return f === undefined || !f.isCaughtUp(leo, now, lag);
    });
    if (outOfSync.length === 0) return;
    this.#propose(
      this.state.isr.filter((id) => !outOfSync.includes(id)),
      this.#leaderRecoveryState,
    );
  }

  /** Kafka's isFollowerInSync + canAddReplicaToIsr. */
  #maybeExpandIsr(id: number, f: FollowerState): void {
    if (this.#pendingIsr !== null || this.#leaderRecoveryState === 1 || this.state.isr.includes(id)) return;
    const start = this.#leaderEpochStartOffset;
    if (start === null || f.logEndOffset < this.log.highWatermark || f.logEndOffset < start) return;
    if (!this.env.isReplicaIsrEligible(id)) return;
    this.#propose([...this.state.isr, id], this.#leaderRecoveryState);
  }

  #propose(isr: readonly number[], leaderRecoveryState: number): void {
    const submit = this.env.submitIsrChange;
    if (submit === undefined) return;
    const ownEpoch = this.env.brokerEpoch();
    const proposal: IsrProposal = {
      topic: this.topic,
      topicId: this.topicId,
      partition: this.index,
      leaderEpoch: this.state.leaderEpoch,
      partitionEpoch: this.#partitionEpoch,
      isr: [...isr],
      isrWithEpochs: isr.map((brokerId) => ({
        brokerId,
        brokerEpoch:
          brokerId === this.localNodeId ? ownEpoch : (this.#followers.get(brokerId)?.brokerEpoch ?? -1n),
      })),
      leaderRecoveryState,
      onAnswer: (answer) => this.#onIsrAnswer(proposal, answer),
    };
    const maximal = [...this.state.isr];
    for (const id of isr) if (!maximal.includes(id)) maximal.push(id);
    this.#pendingIsr = { proposal, maximal };
    submit.call(this.env, proposal);
  }

  /** Kafka's handleAlterPartitionUpdate / handleAlterPartitionError; true = retry. */
  #onIsrAnswer(proposal: IsrProposal, a: AlterPartitionResponsePartitionData): boolean {
    // A LeaderAndIsr since replaced the proposal: the answer is moot.
    if (this.#pendingIsr?.proposal !== proposal) return false;
    if (a.errorCode !== ErrorCode.NONE) {
      if (REVERT.has(a.errorCode)) {
        this.#pendingIsr = null;
        this.#afterIsrChange();
        return false;
      }
      // The controller has a newer state: this proposal stays pending (the ISR the HW waits for
      // stays maximal) until its LeaderAndIsr arrives.
      if (AWAIT_LEADER_AND_ISR.has(a.errorCode)) return false;
      return true;
    }
    if (a.leaderEpoch !== this.state.leaderEpoch || a.partitionEpoch < this.#partitionEpoch) return false;
    if (a.isr.length !== this.state.isr.length) this.env.isrChanged?.(a.isr.length < this.state.isr.length);
    this.state = { ...this.state, isr: [...a.isr] };
    this.#partitionEpoch = a.partitionEpoch;
    this.#leaderRecoveryState = a.leaderRecoveryState === 1 ? 1 : 0;
    this.#pendingIsr = null;
    this.#afterIsrChange();
    return false;
  }

  #afterIsrChange(): void {
    this.maybeAdvanceHighWatermark();
    this.#checkWaiters();
  }

  #checkWaiters(): void {
    this.#waiters.check(this.log.highWatermark, this.maximalIsr.length);
  }
}
