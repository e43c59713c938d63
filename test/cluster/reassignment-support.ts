// Helpers of the leadership and reassignment cluster tests: the topic znode as ZooKeeper holds it
// (replicas, adding_replicas, removing_replicas), whether a broker still has a partition's log
// directory, and a paced producer under way while something else happens.
import { existsSync, readdirSync } from 'node:fs';
import { ZkClient } from '../../src/broker/metadata/zookeeper/zk-client.js';
import { decodeTopicAssignment } from '../../src/broker/metadata/zookeeper/zk-data.js';
import type { Producer } from '../../src/client/index.js';
import type { TestCluster } from '../../src/testkit/cluster.js';

export interface TopicZnode {
  /** The znode's own JSON version field. */
  version: number;
  topicId: string | null;
  /** Per partition: RS, AR, RR as written. */
  partitions: Map<number, { replicas: number[]; adding: number[]; removing: number[] }>;
}

/** `/brokers/topics/<topic>` of the cluster, decoded (and its raw `version`). */
export async function topicZnode(cluster: TestCluster, topic: string): Promise<TopicZnode> {
  const zk = await ZkClient.connect(cluster.zookeeperConnect, { sessionTimeoutMs: 10_000 });
  try {
    const data = (await zk.getData(`/brokers/topics/${topic}`)).data!;
    const z = decodeTopicAssignment(topic, data);
    const partitions: TopicZnode['partitions'] = new Map();
    for (const [p, a] of z.partitions)
      partitions.set(p, {
        replicas: [...a.replicas],
        adding: [...a.addingReplicas],
        removing: [...a.removingReplicas],
      });
    return { version: JSON.parse(data.toString()).version, topicId: z.topicId, partitions };
  } finally {
    await zk.close();
  }
}

/** True while the broker's data dir holds the partition's log directory (`<topic>-<p>`). */
export function hostsLog(cluster: TestCluster, nodeId: number, topic: string, partition: number): boolean {
  const dir = cluster.broker(nodeId).dataDir;
  return existsSync(dir) && readdirSync(dir).includes(`${topic}-${partition}`);
}

export interface PacedProduction {
  /** Values acknowledged by the leader (acks=all), in acknowledgement order. */
  readonly acked: string[];
  /** Sends that failed for good (the test expects none). */
  readonly failed: string[];
  /** Stops sending, waits for every outstanding send to settle. */
  stop(): Promise<void>;
}

/**
 * Sends `<prefix>-<i>` to partition i % partitions every `intervalMs` until stopped, without
 * waiting for each acknowledgement (the producer keeps several in flight, as under real load).
 */
export function producePaced(
  producer: Producer,
  topic: string,
  partitions: number,
  prefix: string,
  intervalMs: number,
): PacedProduction {
  const acked: string[] = [];
  const failed: string[] = [];
  const pending = new Set<Promise<void>>();
  let i = 0;
  const timer = setInterval(() => {
    for (let k = 0; k < 5; k++, i++) {
      const value = `${prefix}-${i}`;
      const p = producer
        .send({ topic, partition: i % partitions, value })
        .then(
          () => void acked.push(value),
          (e: unknown) => void failed.push(`${value}: ${e instanceof Error ? e.message : String(e)}`),
        )
        .finally(() => pending.delete(p));
      pending.add(p);
    }
  }, intervalMs);
  return {
    acked,
    failed,
    async stop() {
      clearInterval(timer);
      while (pending.size > 0) await Promise.all([...pending]);
    },
  };
}
