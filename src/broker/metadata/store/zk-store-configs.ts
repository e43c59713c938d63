// The ZooKeeper store's cluster-wide records (zk-store.ts): `/cluster/id`, dynamic configs under
// `/config/<type>/<name>` with their `/config/changes` notifications, and producer id blocks in
// `/latest_producer_id_block`.

import { randomUuid } from '../uuid.js';
import type { ZkClient } from '../zookeeper/zk-client.js';
import {
  CONFIG_CHANGE_CREATE_PATH,
  configEntityPath,
  configEntityTypePath,
  decodeClusterId,
  decodeEntityConfig,
  decodeProducerIdBlock,
  encodeClusterId,
  encodeConfigChangeNotification,
  encodeEntityConfig,
  encodeProducerIdBlock,
  ZK_PATHS,
} from '../zookeeper/zk-data.js';
import { isZkError } from '../zookeeper/zk-errors.js';
import { MetadataStoreError } from './metadata-store.js';
import type { ConfigEntity, ProducerIdBlock } from './records.js';
import { pipelined, throwFailure } from './zk-store-partitions.js';
import { desanitizeUserName, sanitizeUserName } from './zk-user-names.js';

/** The znode name of an entity: user names are sanitized as Kafka does. */
function znodeName(entity: ConfigEntity): string {
  return entity.type === 'users' ? sanitizeUserName(entity.name) : entity.name;
}

export async function getOrCreateClusterId(c: ZkClient): Promise<string> {
  for (;;) {
    try {
      return decodeClusterId((await c.getData(ZK_PATHS.clusterId)).data);
    } catch (e) {
      if (!isZkError(e, 'NO_NODE')) throw e;
    }
    // Kafka's createOrGetClusterId: the first broker's id wins the race, the others read it.
    const id = randomUuid();
    try {
      await c.create(ZK_PATHS.clusterId, encodeClusterId(id), { createParents: true });
      return id;
    } catch (e) {
      if (!isZkError(e, 'NODE_EXISTS')) throw e;
    }
  }
}

export async function readConfigs(c: ZkClient, entity: ConfigEntity): Promise<Record<string, string>> {
  const path = configEntityPath(entity.type, znodeName(entity));
  try {
    return decodeEntityConfig(path, (await c.getData(path)).data);
  } catch (e) {
    if (isZkError(e, 'NO_NODE')) return {};
    throw e;
  }
}

export async function writeConfigs(
  c: ZkClient,
  entity: ConfigEntity,
  configs: Readonly<Record<string, string>>,
): Promise<void> {
  const path = configEntityPath(entity.type, znodeName(entity));
  const data = encodeEntityConfig({ ...configs });
  // Kafka's setOrCreateEntityConfigs, then a sequential change notification (version 2).
  for (;;) {
    try {
      await c.setData(path, data, -1);
      break;
    } catch (e) {
      if (!isZkError(e, 'NO_NODE')) throw e;
    }
    try {
      await c.create(path, data, { createParents: true });
      break;
    } catch (e) {
      if (!isZkError(e, 'NODE_EXISTS')) throw e;
    }
  }
  await c.create(CONFIG_CHANGE_CREATE_PATH, encodeConfigChangeNotification(entity.type, znodeName(entity)), {
    mode: 'PERSISTENT_SEQUENTIAL',
  });
}

export async function readConfigEntities(c: ZkClient, type: ConfigEntity['type']): Promise<string[]> {
  let names: string[];
  try {
    names = await c.getChildren(configEntityTypePath(type));
  } catch (e) {
    if (isZkError(e, 'NO_NODE')) return [];
    throw e;
  }
  // Entities whose overrides were all removed keep a `{"config":{}}` znode: not listed.
  const read = await pipelined(names, async (name) => {
    const path = configEntityPath(type, name);
    try {
      return Object.keys(decodeEntityConfig(path, (await c.getData(path)).data)).length > 0 ? name : null;
    } catch (e) {
      if (isZkError(e, 'NO_NODE')) return null;
      throw e;
    }
  });
  throwFailure(read);
  const found = read.flatMap((r) => (r.status === 'fulfilled' && r.value !== null ? [r.value] : []));
  return (type === 'users' ? found.map(desanitizeUserName) : found).sort();
}

export async function allocateProducerIdBlock(
  c: ZkClient,
  nodeId: number,
  size: number,
): Promise<ProducerIdBlock> {
  if (!Number.isInteger(size) || size <= 0) throw new RangeError(`invalid producer id block size ${size}`);
  const path = ZK_PATHS.latestProducerIdBlock;
  // Kafka's ZkProducerIdManager: read the latest block, write the next one at the version read.
  for (;;) {
    let first = 0n;
    let version = -1;
    try {
      const { data, stat } = await c.getData(path);
      version = stat.version;
      if (data !== null && data.length > 0) first = decodeProducerIdBlock(data).lastProducerId + 1n;
    } catch (e) {
      if (!isZkError(e, 'NO_NODE')) throw e;
    }
    const last = first + BigInt(size) - 1n;
    if (last > 0x7fffffffffffffffn)
      throw new MetadataStoreError('CORRUPT', `producer ids exhausted: block ${first}..${last} overflows`);
    const data = encodeProducerIdBlock({
      brokerId: nodeId,
      firstProducerId: first,
      lastProducerId: last,
    });
    try {
      if (version === -1) await c.create(path, data);
      else await c.setData(path, data, version);
      return { firstProducerId: first, size };
    } catch (e) {
      // Another broker took a block between our read and our write: read again.
      if (!isZkError(e, 'BAD_VERSION', 'NODE_EXISTS', 'NO_NODE')) throw e;
    }
  }
}
