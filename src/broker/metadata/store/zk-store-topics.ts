// Topic operations of the ZooKeeper store (zk-store.ts): assignments under /brokers/topics, a
// topic's creation together with its /config/topics znode, controller-fenced assignment changes,
// and the /admin/delete_topics requests with their fenced completion.

import type { ZkClient } from '../zookeeper/zk-client.js';
import {
  configEntityPath,
  decodeTopicAssignment,
  deleteTopicPath,
  encodeEntityConfig,
  topicPath,
  ZK_PATHS,
} from '../zookeeper/zk-data.js';
import { isZkError, ZkMultiError } from '../zookeeper/zk-errors.js';
import { MetadataStoreError } from './metadata-store.js';
import type { ControllerLease, TopicAssignment } from './records.js';
import { encodeAssignment, topicAssignment } from './zk-store-codec.js';
import {
  checkLease,
  fencedDeleteTopicTree,
  fencedMulti,
  pipelined,
  throwFailure,
} from './zk-store-partitions.js';

export async function readAssignments(c: ZkClient, names?: readonly string[]): Promise<TopicAssignment[]> {
  const wanted = names ?? (await c.getChildren(ZK_PATHS.topics)).sort();
  const read = await pipelined(wanted, async (name) => {
    try {
      return topicAssignment(name, decodeTopicAssignment(name, (await c.getData(topicPath(name))).data));
    } catch (e) {
      if (isZkError(e, 'NO_NODE')) return null;
      throw e;
    }
  });
  throwFailure(read);
  return read.flatMap((r) => (r.status === 'fulfilled' && r.value !== null ? [r.value] : []));
}

export async function createTopic(
  c: ZkClient,
  assignment: TopicAssignment,
  configs: Readonly<Record<string, string>>,
): Promise<void> {
  const path = topicPath(assignment.name);
  const configPath = configEntityPath('topics', assignment.name);
  const data = encodeAssignment(assignment);
  const configData = encodeEntityConfig({ ...configs });
  for (let attempt = 0; ; attempt++) {
    // A config znode may be left from an earlier topic of that name (Kafka writes it first).
    const existing = await c.exists(configPath);
    try {
      await c.multi([
        { type: 'create', path, data },
        existing === null
          ? { type: 'create', path: configPath, data: configData }
          : { type: 'setData', path: configPath, data: configData, version: existing.version },
      ]);
      return;
    } catch (e) {
      if (e instanceof ZkMultiError && e.failedOpIndex === 0 && e.code === 'NODE_EXISTS')
        throw new MetadataStoreError('NODE_EXISTS', `topic ${assignment.name} already exists`);
      // The config znode changed between our look and the multi: look again.
      if (!(e instanceof ZkMultiError && e.failedOpIndex === 1) || attempt >= 10) throw e;
    }
  }
}

export async function setAssignment(
  c: ZkClient,
  assignment: TopicAssignment,
  lease?: ControllerLease,
): Promise<void> {
  const path = topicPath(assignment.name);
  const data = encodeAssignment(assignment);
  try {
    if (lease === undefined) await c.setData(path, data, -1);
    else await fencedMulti(c, lease, [{ type: 'setData', path, data, version: -1 }]);
  } catch (e) {
    if (isZkError(e, 'NO_NODE'))
      throw new MetadataStoreError('NO_NODE', `topic ${assignment.name} does not exist`);
    throw e;
  }
}

export async function requestTopicDeletion(c: ZkClient, name: string): Promise<void> {
  const path = topicPath(name);
  const request = deleteTopicPath(name);
  try {
    // Atomic with the topic's existence: no request is left for a topic that is gone.
    await c.multi([
      { type: 'check', path, version: -1 },
      { type: 'create', path: request },
    ]);
  } catch (e) {
    if (e instanceof ZkMultiError && e.failedOpIndex === 0 && e.code === 'NO_NODE')
      throw new MetadataStoreError('NO_NODE', `topic ${name} does not exist`);
    if (isZkError(e, 'NODE_EXISTS')) return; // already being deleted
    throw e;
  }
}

export async function completeTopicDeletion(
  c: ZkClient,
  lease: ControllerLease,
  name: string,
): Promise<void> {
  await checkLease(c, lease);
  // Kafka's order: the topic's tree, its config, then the request (TopicDeletionManager).
  await fencedDeleteTopicTree(c, lease, name);
  for (const path of [configEntityPath('topics', name), deleteTopicPath(name)]) {
    try {
      await fencedMulti(c, lease, [{ type: 'delete', path, version: -1 }]);
    } catch (e) {
      if (!isZkError(e, 'NO_NODE')) throw e;
    }
  }
}
