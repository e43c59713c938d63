// Kafka's ZooKeeper session meters (kafka.server:type=SessionExpireListener:
// ZooKeeperSyncConnectsPerSec, ZooKeeperDisconnectsPerSec, ZooKeeperExpiresPerSec), counted from
// the metadata store's connection events, and the latency of its requests
// (type=ZooKeeperClientMetrics). A broker whose connection flaps or whose sessions expire shows
// it here before its partitions go offline.

import type { MetadataStore } from '../metadata/store/metadata-store.js';
import { Reservoir } from './reservoir.js';

export class ZooKeeperSessionStats {
  /** Each request's time to its answer, ms (ZooKeeperClientMetrics ZooKeeperRequestLatencyMs). */
  readonly requestLatency = new Reservoir();
  /** Connections established: the first one, every reconnection, every new session. */
  syncConnects = 0;
  disconnects = 0;
  expires = 0;

  /** Counts `store`'s events from now on; the store has connected already (started). */
  follow(store: Pick<MetadataStore, 'watch'>): () => void {
    this.syncConnects++;
    return store.watch({
      disconnected: () => {
        this.disconnects++;
      },
      reconnected: () => {
        this.syncConnects++;
      },
      // Told once the store has connected its new session.
      sessionExpired: () => {
        this.expires++;
        this.syncConnects++;
      },
    });
  }
}
