// Auto commit (enable.auto.commit): every auto.commit.interval.ms, from poll(), an asynchronous
// commit of the positions of everything the application has polled; synchronously before
// partitions are given up (rebalance, close). Also the "consumed positions" that commitSync()
// and commitAsync() use when called without offsets.
import type { ResolvedConsumerOptions } from './consumer-config.js';
import type { Membership } from './membership.js';
import type { GroupOffsets } from './offsets.js';
import type { SubscriptionState } from './subscription-state.js';
import { type TopicPartition, type TopicPartitionOffset, tpKey } from './types.js';

export class AutoCommit {
  readonly #opts: ResolvedConsumerOptions;
  readonly #subs: SubscriptionState;
  readonly #offsets: GroupOffsets | null;
  readonly #membership: () => Membership | null;
  #next: number;

  constructor(
    opts: ResolvedConsumerOptions,
    subs: SubscriptionState,
    offsets: GroupOffsets | null,
    membership: () => Membership | null,
  ) {
    this.#opts = opts;
    this.#subs = subs;
    this.#offsets = offsets;
    this.#membership = membership;
    this.#next = Date.now() + opts.autoCommitIntervalMs;
  }

  get enabled(): boolean {
    return this.#opts.enableAutoCommit && this.#offsets !== null;
  }

  /** Positions of the assigned partitions (or of `only`) that have one. */
  consumed(only: readonly TopicPartition[] | null): TopicPartitionOffset[] {
    const keys = only === null ? null : new Set(only.map((tp) => tpKey(tp.topic, tp.partition)));
    const out: TopicPartitionOffset[] = [];
    for (const s of this.#subs.assigned()) {
      if (!s.hasValidPosition || (keys !== null && !keys.has(s.key))) continue;
      out.push({
        topic: s.topic,
        partition: s.partition,
        offset: s.position!,
        leaderEpoch: s.positionLeaderEpoch,
        metadata: '',
      });
    }
    return out;
  }

  /** Before partitions are given up: commit their positions, retrying until default.api.timeout.ms. */
  async commitSync(only: readonly TopicPartition[] | null): Promise<void> {
    if (!this.enabled) return;
    const list = this.consumed(only);
    if (list.length === 0) return;
    await this.#offsets!.commit(list, true, Date.now() + this.#opts.defaultApiTimeoutMs);
  }

  /** From poll(): an asynchronous commit once the interval has passed (only as a stable member). */
  maybeCommit(): void {
    if (!this.enabled || Date.now() < this.#next) return;
    const m = this.#membership();
    if (m !== null && (m.state !== 'STABLE' || m.generation.generationId < 0)) return;
    this.#next = Date.now() + this.#opts.autoCommitIntervalMs;
    const list = this.consumed(null);
    if (list.length === 0) return;
    this.#offsets!.commit(list, false, Date.now() + this.#opts.requestTimeoutMs).catch((err: Error) => {
      this.#opts.logger('warn', 'auto commit failed', { error: err.message });
    });
  }
}
