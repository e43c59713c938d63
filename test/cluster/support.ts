// Helpers of the cluster tests: each broker's own view (Metadata asked of that broker alone),
// waiting for a condition on it, and reading the controller's znodes.
import { ZkClient } from '../../src/broker/metadata/zookeeper/zk-client.js';
import { metadataApi, type MetadataResponse } from '../../src/protocol/messages/generated/metadata.js';
import type { TestCluster } from '../../src/testkit/cluster.js';
import { RawClient } from '../broker/support/raw-client.js';
import { scaled, TestTimeoutError } from '../support/timeouts.js';

export interface BrokerView {
  controllerId: number;
  brokers: number[];
  /** topic → partitions sorted by index. */
  topics: Map<
    string,
    {
      partition: number;
      leader: number;
      leaderEpoch: number;
      replicas: number[];
      isr: number[];
      offline: number[];
      error: number;
    }[]
  >;
}

/** Metadata of every topic as broker `port` alone sees it. */
export async function viewOf(port: number): Promise<BrokerView> {
  const c = await RawClient.connect(port);
  try {
    const r: MetadataResponse = await c.request(metadataApi, 12, {
      topics: null,
      allowAutoTopicCreation: false,
      includeClusterAuthorizedOperations: false,
      includeTopicAuthorizedOperations: false,
    });
    const topics: BrokerView['topics'] = new Map();
    for (const t of r.topics) {
      topics.set(
        t.name!,
        t.partitions
          .map((p) => ({
            partition: p.partitionIndex,
            leader: p.leaderId,
            leaderEpoch: p.leaderEpoch,
            replicas: [...p.replicaNodes],
            isr: [...p.isrNodes],
            offline: [...p.offlineReplicas],
            error: p.errorCode,
          }))
          .sort((a, b) => a.partition - b.partition),
      );
    }
    return { controllerId: r.controllerId, brokers: r.brokers.map((b) => b.nodeId).sort(), topics };
  } finally {
    c.close();
  }
}

/** Polls broker views until `ok` holds for every running broker (or the named ones). */
export async function waitForViews(
  cluster: TestCluster,
  what: string,
  ok: (view: BrokerView, nodeId: number) => boolean,
  timeoutMs = 60_000,
  nodeIds: readonly number[] = cluster.nodeIds.filter((id) => cluster.broker(id).running),
): Promise<Map<number, BrokerView>> {
  const ms = scaled(timeoutMs);
  const deadline = Date.now() + ms;
  let last = '';
  for (;;) {
    const views = new Map<number, BrokerView>();
    let all = true;
    for (const id of nodeIds) {
      const port = cluster.broker(id).port;
      if (port === null) throw new Error(`broker ${id} is not running`);
      try {
        const v = await viewOf(port);
        views.set(id, v);
        if (!ok(v, id)) all = false;
      } catch (e) {
        all = false;
        last = e instanceof Error ? e.message : String(e);
      }
    }
    if (all) return views;
    if (Date.now() > deadline) {
      const shown = [...views].map(
        ([id, v]) =>
          `${id}: controller ${v.controllerId} brokers ${v.brokers} ${JSON.stringify([...v.topics])}`,
      );
      throw new TestTimeoutError(what, ms, `${shown.join('\n').slice(0, 3000)}\n${last}`);
    }
    await new Promise((r) => setTimeout(r, 200));
  }
}

/** `/controller` and `/controller_epoch` of the cluster. */
export async function controllerZnodes(
  cluster: TestCluster,
): Promise<{ controllerId: number; epoch: number }> {
  const zk = await ZkClient.connect(cluster.zookeeperConnect, { sessionTimeoutMs: 10_000 });
  try {
    const epoch = Number((await zk.getData('/controller_epoch')).data!.toString());
    let controllerId = -1;
    try {
      controllerId = JSON.parse((await zk.getData('/controller')).data!.toString()).brokerid;
    } catch {
      // No controller at this instant.
    }
    return { controllerId, epoch };
  } finally {
    await zk.close();
  }
}

export function leaderOf(view: BrokerView, topic: string, partition: number): number {
  return view.topics.get(topic)?.[partition]?.leader ?? -1;
}
