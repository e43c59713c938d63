// Committing and reading group offsets. commitSync retries retriable errors (coordinator moved or
// loading, timeouts) until its deadline; commitAsync makes one attempt. A commit refused because
// the member's generation is gone (UNKNOWN_MEMBER_ID, ILLEGAL_GENERATION) fails with
// CommitFailedError and fences the member, as in Kafka: the partitions may belong to another
// consumer by now, so retrying would be wrong. A KIP-848 member reads offsets with its member id
// and epoch (OffsetFetch v9, as Java's CommitRequestManager): STALE_MEMBER_EPOCH is retried with
// the epoch the heartbeat has brought meanwhile; UNKNOWN_MEMBER_ID fences the member (its
// partitions are lost, it rejoins) and the read is retried without a member, as an admin's.
import { backoffMs } from '../../net/backoff.js';
import { ErrorCode } from '../../protocol/errors.js';
import { KafkaClientError, KafkaResponseError, RequestTimeoutError } from '../errors.js';
import type { ConsumerMetrics } from '../metrics/consumer-metrics.js';
import type { ResolvedConsumerOptions } from './consumer-config.js';
import { CommitFailedError } from './consumer-errors.js';
import type { CommittedOffset, Generation, GroupRpc } from './group-rpc.js';
import type { Membership } from './membership.js';
import { type TopicPartition, type TopicPartitionOffset, tpKey } from './types.js';

const FENCING = new Set<number>([
  ErrorCode.UNKNOWN_MEMBER_ID,
  ErrorCode.ILLEGAL_GENERATION,
  ErrorCode.FENCED_INSTANCE_ID,
]);

export class GroupOffsets {
  readonly #rpc: GroupRpc;
  readonly #opts: ResolvedConsumerOptions;
  /** The membership when the consumer subscribes (group mode); null for assign() consumers. */
  readonly #membership: () => Membership | null;
  /** consumer.metrics(): commit latency. */
  metrics: ConsumerMetrics | null = null;

  constructor(rpc: GroupRpc, opts: ResolvedConsumerOptions, membership: () => Membership | null) {
    this.#rpc = rpc;
    this.#opts = opts;
    this.#membership = membership;
  }

  #generation(): Generation {
    const m = this.#membership();
    if (m === null) return { generationId: -1, memberId: '' };
    if (m.generation.generationId < 0) {
      throw new CommitFailedError(
        `cannot commit: this consumer is not an active member of group ${this.#rpc.groupId} (it is rejoining)`,
      );
    }
    return m.generation;
  }

  async commit(offsets: readonly TopicPartitionOffset[], retry: boolean, deadline: number): Promise<void> {
    let pending = [...offsets];
    for (let attempt = 0; pending.length > 0; attempt++) {
      const gen = this.#generation();
      let retriable: Error | null = null;
      try {
        const started = this.metrics?.commitStarted() ?? 0;
        const codes = await this.#rpc.commitOffsets(gen, pending);
        this.metrics?.commitDone(started);
        const failed: TopicPartitionOffset[] = [];
        for (const o of pending) {
          const code = codes.get(tpKey(o.topic, o.partition)) ?? 0;
          if (code === 0) continue;
          this.#rpc.noteCode(code);
          if (FENCING.has(code)) {
            const m = this.#membership();
            if (m !== null && (m.state !== 'STABLE' || m.generation !== gen)) {
              // We are rejoining (or already rejoined): the coordinator moved past the generation
              // this commit carried, which says nothing about the membership we are building.
              throw new KafkaResponseError(
                ErrorCode.REBALANCE_IN_PROGRESS,
                `OffsetCommit ${o.topic}-${o.partition} during a rebalance`,
              );
            }
            m?.fenced(code);
            throw new CommitFailedError(
              `commit failed: group ${this.#rpc.groupId} has moved on (${code === ErrorCode.ILLEGAL_GENERATION ? 'illegal generation' : 'member unknown'}); ` +
                'the partitions may have been reassigned. Poll again to rejoin.',
              new KafkaResponseError(code, 'OffsetCommit'),
            );
          }
          if (code === ErrorCode.STALE_MEMBER_EPOCH) {
            // KIP-848: the coordinator bumped the member epoch and the heartbeat that carries
            // it has not arrived yet; retried (commitSync) with the member's latest epoch, as Java does.
            retriable = new KafkaResponseError(code, `OffsetCommit ${o.topic}-${o.partition}`);
            failed.push(o);
            continue;
          }
          if (code === ErrorCode.REBALANCE_IN_PROGRESS) {
            this.#membership()?.requestRejoin('commit saw a rebalance in progress');
            throw new KafkaResponseError(code, `OffsetCommit ${o.topic}-${o.partition}`);
          }
          const err = new KafkaResponseError(code, `OffsetCommit ${o.topic}-${o.partition}`);
          if (!err.retriable) throw err;
          retriable = err;
          failed.push(o);
        }
        pending = failed;
      } catch (err) {
        if (!(err instanceof KafkaClientError) || !err.retriable) throw err;
        this.#rpc.noteError(err);
        retriable = err;
      }
      if (pending.length === 0) return;
      const wait = backoffMs(this.#opts.retryBackoffMs, this.#opts.retryBackoffMaxMs, attempt);
      if (!retry || Date.now() + wait > deadline)
        throw retriable ?? new RequestTimeoutError('offset commit timed out');
      await new Promise((r) => setTimeout(r, wait));
    }
  }

  /** The member an OffsetFetch names: a KIP-848 member with an epoch, else none. */
  #fetchingMember(): { memberId: string; memberEpoch: number } | null {
    const m = this.#membership();
    if (m === null || m.protocol !== 'consumer' || m.generation.generationId <= 0) return null;
    return { memberId: m.generation.memberId, memberEpoch: m.generation.generationId };
  }

  async fetch(
    tps: readonly TopicPartition[],
    deadline: number,
  ): Promise<Map<string, CommittedOffset | null>> {
    for (let attempt = 0; ; attempt++) {
      const member = this.#fetchingMember();
      try {
        return await this.#rpc.fetchOffsets(tps, member);
      } catch (err) {
        let retry = err instanceof KafkaClientError && err.retriable;
        if (member !== null && err instanceof KafkaResponseError) {
          if (err.errorCode === ErrorCode.STALE_MEMBER_EPOCH) retry = true;
          else if (err.errorCode === ErrorCode.UNKNOWN_MEMBER_ID) {
            // Its partitions are lost and it rejoins; meanwhile it reads as a non-member.
            this.#membership()?.fenced(
              err.errorCode,
              'an offset fetch found the member unknown to the coordinator',
            );
            retry = true;
          }
        }
        if (!retry) throw err;
        this.#rpc.noteError(err);
        const wait = backoffMs(this.#opts.retryBackoffMs, this.#opts.retryBackoffMaxMs, attempt);
        if (Date.now() + wait > deadline) throw err;
        await new Promise((r) => setTimeout(r, wait));
      }
    }
  }
}
