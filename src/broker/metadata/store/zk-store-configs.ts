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
import { znodeSegment } from '../zookeeper/zk-paths.js';
import { MetadataStoreError } from './metadata-store.js';
import type { ConfigEntity, ProducerIdBlock } from './records.js';
import { pipelined, throwFailure } from './zk-store-partitions.js';
import { desanitizeEntityName, parseUserClientEntityName, sanitizeEntityName } from './zk-user-names.js';

/** The znode name of an entity: user and client-id names are sanitized as Kafka does. */
function znodeName(entity: ConfigEntity): string {
  if (entity.type === 'users' || entity.type === 'clients') return sanitizeEntityName(entity.name);
  return entity.name;
}

/** Where an entity's config lives; a user's client-id entity is nested below the user's znode. */
function entityPath(entity: ConfigEntity): string {
  if (entity.type !== 'user-clients') return configEntityPath(entity.type, znodeName(entity));
  const parsed = parseUserClientEntityName(entity.name);
  if (parsed === null) throw new Error(`invalid user/client-id entity name ${JSON.stringify(entity.name)}`);
  const [user, , client] = entity.name.split('/') as [string, string, string];
  return `${configEntityPath('users', user)}/clients/${znodeSegment(client, 'clients entity name')}`;
}

/** The notification's entity type: Kafka's, where a user's client-id entity is a `users` one. */
const notifiedType = (entity: ConfigEntity) => (entity.type === 'user-clients' ? 'users' : entity.type);

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
  const path = entityPath(entity);
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
  const path = entityPath(entity);
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
  const change = encodeConfigChangeNotification(notifiedType(entity), znodeName(entity));
  await c.create(CONFIG_CHANGE_CREATE_PATH, change, { mode: 'PERSISTENT_SEQUENTIAL' });
}

/**
 * A versioned read-modify-write of an entity's config znode: a concurrent writer (SCRAM and quota
 * changes share `/config/users/<user>`, and any broker may write) makes the setData fail with
 * BAD_VERSION (or the create with NODE_EXISTS), and the update runs again on what it wrote.
 */
export async function updateConfigs(
  c: ZkClient,
  entity: ConfigEntity,
  update: (current: Record<string, string>) => Record<string, string> | null,
): Promise<Record<string, string> | null> {
  const path = entityPath(entity);
  for (;;) {
    let current: Record<string, string> = {};
    let version = -1;
    try {
      const { data, stat } = await c.getData(path);
      current = decodeEntityConfig(path, data);
      version = stat.version;
    } catch (e) {
      if (!isZkError(e, 'NO_NODE')) throw e;
    }
    const next = update({ ...current });
    if (next === null) return null;
    const data = encodeEntityConfig({ ...next });
    try {
      if (version >= 0) await c.setData(path, data, version);
      else await c.create(path, data, { createParents: true });
    } catch (e) {
      if (isZkError(e, 'BAD_VERSION') || isZkError(e, 'NODE_EXISTS') || isZkError(e, 'NO_NODE')) continue;
      throw e;
    }
    const change = encodeConfigChangeNotification(notifiedType(entity), znodeName(entity));
    await c.create(CONFIG_CHANGE_CREATE_PATH, change, { mode: 'PERSISTENT_SEQUENTIAL' });
    return next;
  }
}

async function childrenOf(c: ZkClient, path: string): Promise<string[]> {
  try {
    return await c.getChildren(path);
  } catch (e) {
    if (isZkError(e, 'NO_NODE')) return [];
    throw e;
  }
}

/** Kafka's fetchAllChildEntityConfigs(users, clients): every `<user>/clients/<client-id>` name. */
async function userClientNames(c: ZkClient): Promise<string[]> {
  const users = await childrenOf(c, configEntityTypePath('users'));
  const perUser = await pipelined(users, async (u) =>
    (await childrenOf(c, `${configEntityPath('users', u)}/clients`)).map(
      (client) => `${u}/clients/${client}`,
    ),
  );
  throwFailure(perUser);
  return perUser.flatMap((r) => (r.status === 'fulfilled' ? r.value : []));
}

export async function readConfigEntities(c: ZkClient, type: ConfigEntity['type']): Promise<string[]> {
  const names =
    type === 'user-clients' ? await userClientNames(c) : await childrenOf(c, configEntityTypePath(type));
  // Entities whose overrides were all removed keep a `{"config":{}}` znode: not listed.
  const read = await pipelined(names, async (name) => {
    const path = type === 'user-clients' ? entityPath({ type, name }) : configEntityPath(type, name);
    try {
      return Object.keys(decodeEntityConfig(path, (await c.getData(path)).data)).length > 0 ? name : null;
    } catch (e) {
      if (isZkError(e, 'NO_NODE')) return null;
      throw e;
    }
  });
  throwFailure(read);
  const found = read.flatMap((r) => (r.status === 'fulfilled' && r.value !== null ? [r.value] : []));
  return (type === 'users' || type === 'clients' ? found.map(desanitizeEntityName) : found).sort();
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
