// Picks the metadata backend from the broker config: ZooKeeper when `zookeeper.connect` is set
// (a cluster), else the local file in the first log dir (the embedded single broker).
import type { BrokerConfig } from '../../config/broker-config.js';
import type { Logger } from '../../logger.js';
import { LocalMetadataStore } from './local-store.js';
import type { MetadataStore } from './metadata-store.js';

/** `onZkRequestLatency`: told each ZooKeeper request's latency in ms (the broker's metrics). */
export async function openMetadataStore(
  config: BrokerConfig,
  logger: Logger,
  onZkRequestLatency?: (ms: number) => void,
): Promise<MetadataStore> {
  if (config.zookeeperConnect === null) {
    const store = new LocalMetadataStore(config.logDirs[0]!);
    await store.start();
    return store;
  }
  // Loaded only for clusters: the embedded broker never loads the ZooKeeper client.
  const { ZkMetadataStore } = await import('./zk-store.js');
  const store = new ZkMetadataStore({
    connectString: config.zookeeperConnect,
    sessionTimeoutMs: config.zookeeperSessionTimeoutMs,
    connectionTimeoutMs: config.zookeeperConnectionTimeoutMs,
    ...(onZkRequestLatency ? { onRequestLatency: onZkRequestLatency } : {}),
    logger,
  });
  try {
    await store.start();
  } catch (e) {
    await store.close().catch(() => {});
    throw e;
  }
  return store;
}
