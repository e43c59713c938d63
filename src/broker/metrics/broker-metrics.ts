// The counters the request paths update, one object per broker; absent from the broker's
// services when metrics are off, so the paths then skip even the field increments.

import { RequestStats } from './request-stats.js';
import { RequestTimer } from './request-timer.js';
import { BrokerTopicStats } from './topic-stats.js';
import { ZooKeeperSessionStats } from './zookeeper-stats.js';

export class BrokerMetrics {
  readonly topics = new BrokerTopicStats();
  readonly requests = new RequestStats();
  readonly timer = new RequestTimer();
  /** Counted (and exported) only when the metadata store is ZooKeeper. */
  readonly zookeeper = new ZooKeeperSessionStats();
}
