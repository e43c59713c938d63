// Connects the publisher's events to what follows them in cluster mode (the replacement of the
// old `controller.onChange` wiring): topic configs into the logs (a topic's own overrides when
// it appears or they change; every topic when the broker defaults change), and this broker's
// leadership changes of an internal topic into its coordinator (load on a gain, unload on a
// loss). Logs themselves are created and deleted by LeaderAndIsr / StopReplica, not here.

import type { ReplicaManager } from '../replica/replica-manager.js';
import type { MetadataPublisher } from './publisher.js';

/** What the wiring needs of an internal topic's coordinator (`InternalTopic`). */
export interface LeadershipFollower {
  readonly name: string;
  onLeadershipChange(partition: number, isLeader: boolean, leaderEpoch: number): void;
}

export interface PublisherTargets {
  readonly replicas?: Pick<ReplicaManager, 'updateTopicConfig'>;
  readonly internalTopics?: readonly LeadershipFollower[];
}

/** Subscribes the targets; returns the unsubscribe function. */
export function followPublisher(publisher: MetadataPublisher, targets: PublisherTargets): () => void {
  const internal = new Map((targets.internalTopics ?? []).map((t) => [t.name, t]));
  return publisher.subscribe((e) => {
    switch (e.kind) {
      case 'created':
      case 'configs-changed':
        targets.replicas?.updateTopicConfig(e.topic.name, e.topic.configs);
        return;
      case 'broker-configs-changed':
        for (const t of publisher.image.topics) targets.replicas?.updateTopicConfig(t.name, t.configs);
        return;
      case 'leadership':
        internal.get(e.topic)?.onLeadershipChange(e.partition, e.isLeader, e.leaderEpoch);
        return;
      default:
        return;
    }
  });
}
