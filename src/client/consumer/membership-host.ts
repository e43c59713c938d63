// Subscription handling between the consumer and its group membership: what the membership
// may see and do of the consumer (MembershipHost: subscribed topics, owned partitions,
// installing an assignment, partition counts for the leader), and keeping a subscription in
// step with metadata (pattern subscriptions follow the topic list; the leader watches
// partition counts).
import type { Metadata } from '../metadata.js';
import type { ConsumerMetrics } from '../metrics/consumer-metrics.js';
import type { AutoCommit } from './auto-commit.js';
import type { Fetcher } from './fetcher.js';
import type { MembershipHost } from './group-membership.js';
import type { Membership } from './membership.js';
import type { SubscriptionState } from './subscription-state.js';
import type { RebalanceListener } from './types.js';
import type { Waker } from './waker.js';

export interface HostParts {
  readonly subs: SubscriptionState;
  readonly metadata: Metadata;
  readonly fetcher: Fetcher;
  readonly autoCommit: AutoCommit;
  readonly waker: Waker;
  listener(): RebalanceListener | null;
  pollClock(): { inPoll: boolean; lastPollAt: number };
  readonly metrics?: ConsumerMetrics;
}

export function membershipHost(c: HostParts): MembershipHost {
  const { subs, metadata } = c;
  return {
    subscribedTopics: () => [...subs.topics].sort(),
    owned: () => subs.assignedPartitions(),
    applyAssignment: (tps) => {
      const added = subs.setAssignment(tps);
      for (const s of added) s.needsCommitted = true;
      metadata.track(...new Set(tps.map((t) => t.topic)));
      c.fetcher.purgeStale();
      c.metrics?.rebalanced();
    },
    partitionCounts: async (topics) => {
      if (metadata.track(...topics) || topics.some((t) => metadata.topic(t) === undefined)) {
        await metadata.refresh().catch(() => {});
      }
      const out = new Map<string, number>();
      for (const t of topics) {
        const n = metadata.topic(t)?.partitions.length;
        if (n !== undefined && n > 0) out.set(t, n);
      }
      return out;
    },
    autoCommitSync: (tps) => c.autoCommit.commitSync(tps),
    listener: c.listener,
    signal: () => c.waker.signal(),
    pollClock: c.pollClock,
  };
}

/** Pattern subscriptions follow the topic list; the leader watches partition counts. */
export class SubscriptionMetadataWatch {
  /** The metadata refresh last looked at (-1: none, look at the next one). */
  #seen = -1;

  constructor(
    private readonly subs: SubscriptionState,
    private readonly metadata: Metadata,
  ) {}

  /** Looks at the next refresh even if it is one already seen (a new pattern). */
  reset(): void {
    this.#seen = -1;
  }

  async check(m: Membership): Promise<void> {
    const { subs, metadata } = this;
    if (subs.mode === 'pattern' && metadata.lastRefresh === 0) await metadata.refresh().catch(() => {});
    if (metadata.lastRefresh === this.#seen) return;
    this.#seen = metadata.lastRefresh;
    if (subs.mode === 'pattern') {
      const names = metadata
        .topics()
        .filter((t) => !t.isInternal)
        .map((t) => t.name);
      if (subs.updatePatternTopics(names)) {
        if (subs.topics.size > 0) metadata.track(...subs.topics);
        m.requestRejoin('topics matching the subscription changed');
      }
    }
    m.checkTopicCounts((t) => metadata.topic(t)?.partitions.length);
  }
}
