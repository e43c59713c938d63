// Picks the metadata backend from the broker config: ZooKeeper when `zookeeper.connect` is set
// (a cluster), else the local file in the first log dir (the embedded single broker).
import type { BrokerConfig } from '../../config/broker-config.js';
import type { Logger } from '../../logger.js';
import { LocalMetadataStore } from './local-store.js';
import type { MetadataStore } from './metadata-store.js';

export async function openMetadataStore(config: BrokerConfig, logger: Logger): Promise<MetadataStore> {
  if (config.zookeeperConnect === null) {
    const store = new LocalMetadataStore(config.logDirs[0]!);
    await store.start();
    return store;
  }
  void logger;
  throw new Error('zookeeper.connect: the ZooKeeper metadata store is not wired yet');
}
