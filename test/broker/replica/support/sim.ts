// Simulated replicas of one partition for the replication unit tests, without sockets: each
// "broker" has its own log dir and a Partition over it; leadership changes are applied as the
// controller's LeaderAndIsr would be; a follower catches up by calling the leader's
// `readForFollower` (what the Fetch handler runs) and applying the answer with
// `applyFetchedPartition` (what the replica fetcher runs). Time is a hand-moved clock.

import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { silentLogger } from '../../../../src/broker/logger.js';
import {
  applyFetchedPartition,
  type FollowerFetchState,
  initialFetchState,
} from '../../../../src/broker/replica/follower-apply.js';
import { type FollowerRead, readForFollower } from '../../../../src/broker/replica/follower-read.js';
import { type IsrProposal, Partition, type PartitionEnv } from '../../../../src/broker/replica/partition.js';
import { iterateBatches } from '../../../../src/protocol/record-batch/iterate.js';
import { LogManager, type PartitionLog } from '../../../../src/storage/index.js';
import { batch, records } from '../../../storage/helpers.js';

export const TOPIC = 't';
export const TOPIC_ID = 'AAAAAAAAAAAAAAAAAAAAAQ';

/** A clock and an ISR-proposal recorder shared by the simulated brokers. */
export class SimEnv implements PartitionEnv {
  nowMs = 1_000_000;
  lagMs = 10_000;
  readonly proposals: IsrProposal[] = [];
  /** Brokers that may join an ISR. */
  readonly alive = new Set<number>([1, 2, 3]);

  now(): number {
    return this.nowMs;
  }

  replicaLagTimeMaxMs(): number {
    return this.lagMs;
  }

  isReplicaIsrEligible(id: number): boolean {
    return this.alive.has(id);
  }

  brokerEpoch(): bigint {
    return 7n;
  }

  submitIsrChange(p: IsrProposal): void {
    this.proposals.push(p);
  }

  /** Answers the last proposal as the controller would on success (partition epoch + 1). */
  accept(p: IsrProposal = this.proposals.at(-1)!): boolean {
    return p.onAnswer({
      partitionIndex: p.partition,
      errorCode: 0,
      leaderId: -1,
      leaderEpoch: p.leaderEpoch,
      isr: [...p.isr],
      leaderRecoveryState: 0,
      partitionEpoch: p.partitionEpoch + 1,
    });
  }
}

export class SimBroker {
  #partitionEpoch = 0;
  fetch: FollowerFetchState | null = null;

  private constructor(
    readonly id: number,
    readonly dir: string,
    readonly logs: LogManager,
    readonly partition: Partition,
  ) {}

  static async start(id: number, env: SimEnv): Promise<SimBroker> {
    const dir = await mkdtemp(join(tmpdir(), `samsa-replica-${id}-`));
    const logs = await LogManager.open({ logDirs: [dir] });
    const log = await logs.createLog(TOPIC, 0, { topicId: TOPIC_ID });
    const p = new Partition(
      TOPIC,
      TOPIC_ID,
      log,
      { partition: 0, leader: -1, leaderEpoch: -1, replicas: [], isr: [] },
      id,
      env,
    );
    return new SimBroker(id, dir, logs, p);
  }

  get log(): PartitionLog {
    return this.partition.log;
  }

  /** Applies a LeaderAndIsr; a follower starts fetching from its log end offset. */
  become(
    leader: number,
    leaderEpoch: number,
    isr: readonly number[],
    replicas: readonly number[] = [1, 2, 3],
  ): void {
    this.#partitionEpoch = Math.max(this.#partitionEpoch, this.partition.partitionEpoch) + 1;
    this.partition.applyLeaderAndIsr({
      leader,
      leaderEpoch,
      isr,
      replicas,
      partitionEpoch: this.#partitionEpoch,
      controllerEpoch: 1,
      addingReplicas: [],
      removingReplicas: [],
      leaderRecoveryState: 0,
    });
    this.fetch = leader === this.id ? null : initialFetchState(this.partition);
  }

  /** Appends one batch of `values` as leader (acks=1). */
  async write(...values: string[]): Promise<void> {
    await this.partition.appendAsLeader(batch(values.length, 'x', { values }), 1, 1);
  }

  /** One follower fetch from `leader`; returns the leader's answer. */
  async fetchOnce(leader: SimBroker, maxBytes = 1 << 20): Promise<FollowerRead> {
    const s = this.fetch;
    if (s === null) throw new Error(`broker ${this.id} is not a follower`);
    const r = await readForFollower(leader.partition, {
      replicaId: this.id,
      replicaEpoch: -1n,
      fetchOffset: s.fetchOffset,
      currentLeaderEpoch: s.leaderEpoch,
      lastFetchedEpoch: s.lastFetchedEpoch,
      logStartOffset: this.log.logStartOffset,
      maxBytes,
      minOneBatch: true,
      updateFetchState: true,
    });
    const outcome = await applyFetchedPartition(
      s,
      {
        errorCode: r.errorCode,
        highWatermark: r.highWatermark,
        logStartOffset: r.logStartOffset,
        records: r.records,
        divergingEpoch: r.divergingEpoch ?? { epoch: -1, endOffset: -1n },
      },
      silentLogger,
    );
    if (outcome !== 'fetch') throw new Error(`fetch from ${leader.id} failed with error ${r.errorCode}`);
    return r;
  }

  /** Fetches until an answer brings nothing new (and one more, so the leader sees the final offset). */
  async catchUp(leader: SimBroker, maxBytes = 1 << 20): Promise<void> {
    for (let i = 0; i < 1000; i++) {
      const r = await this.fetchOnce(leader, maxBytes);
      if (r.records.length === 0 && r.divergingEpoch === null) return;
    }
    throw new Error('no convergence');
  }

  /** Every batch of the log, as raw bytes (base offset order). */
  async batches(): Promise<Buffer[]> {
    const out: Buffer[] = [];
    let offset = this.log.logStartOffset;
    while (offset < this.log.logEndOffset) {
      const r = await this.log.read(offset, { maxBytes: 1 << 20, upperBound: 'leo', minOneBatch: true });
      if (r.records.length === 0) break;
      for (const b of iterateBatches(r.records)) {
        const bytes = Buffer.from(r.records.subarray(b.position, b.position + b.size));
        out.push(bytes);
        offset = bytes.readBigInt64BE(0) + BigInt(bytes.readInt32BE(23)) + 1n;
      }
    }
    return out;
  }

  /** (offset, epoch, value) of every record, for readable assertions. */
  async entries(): Promise<string[]> {
    const out: string[] = [];
    for (const b of await this.batches()) {
      for (const r of records(b)) out.push(`${r.offset}:e${r.leaderEpoch}:${r.value}`);
    }
    return out;
  }

  async close(): Promise<void> {
    await this.logs.close();
    await rm(this.dir, { recursive: true, force: true });
  }
}
