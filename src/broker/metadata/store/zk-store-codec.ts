// The ZooKeeper store's translations: ZkError/ZkDataError → MetadataStoreError, and the store's
// records (records.ts) ↔ Kafka's znode contents (zookeeper/zk-data.ts).

import { ZERO_UUID } from '../uuid.js';
import {
  type BrokerRegistration,
  encodeBrokerRegistration,
  encodeTopicAssignment,
  type PartitionReplicaAssignment,
  SECURITY_PROTOCOLS,
  type SecurityProtocol,
  type BrokerEndpoint as ZkBrokerEndpoint,
  ZkDataError,
  type TopicAssignment as ZkTopicAssignment,
} from '../zookeeper/zk-data.js';
import { ZkError } from '../zookeeper/zk-errors.js';
import { MetadataStoreError } from './metadata-store.js';
import type { BrokerInfo, TopicAssignment } from './records.js';

type StoreCode = MetadataStoreError['code'];

const CODE_BY_ZK: Partial<Record<ZkError['code'], StoreCode>> = {
  NODE_EXISTS: 'NODE_EXISTS',
  NO_NODE: 'NO_NODE',
  BAD_VERSION: 'BAD_VERSION',
  // The outcome is unknown: the caller re-reads before retrying.
  CONNECTION_LOSS: 'CONNECTION_LOSS',
  SESSION_EXPIRED: 'SESSION_EXPIRED',
  // close() was called: the store is gone, as the memory store reports it.
  CLOSED: 'SESSION_EXPIRED',
  CONNECT_TIMEOUT: 'TIMEOUT',
  OPERATION_TIMEOUT: 'TIMEOUT',
};

/**
 * A MetadataStoreError for what a ZooKeeper call threw. Errors with no store meaning (a caller's
 * bad argument, a programming error) are returned unchanged.
 */
export function toStoreError(e: unknown): unknown {
  if (e instanceof MetadataStoreError) return e;
  if (e instanceof ZkDataError) return withCause(new MetadataStoreError('CORRUPT', e.message), e);
  if (e instanceof ZkError) {
    const code = CODE_BY_ZK[e.code];
    if (code !== undefined) return withCause(new MetadataStoreError(code, e.message), e);
  }
  return e;
}

function withCause(err: MetadataStoreError, cause: unknown): MetadataStoreError {
  Object.defineProperty(err, 'cause', { value: cause, enumerable: false, writable: true });
  return err;
}

// ---- brokers -----------------------------------------------------------------------------------

function securityProtocol(p: string, nodeId: number): SecurityProtocol {
  const upper = p.toUpperCase();
  if (!(SECURITY_PROTOCOLS as readonly string[]).includes(upper))
    throw new Error(`broker ${nodeId}: unknown security protocol ${JSON.stringify(p)}`);
  return upper as SecurityProtocol;
}

/** Kafka's v5 registration JSON (features {}, jmx_port -1, timestamp now). */
export function encodeBroker(broker: Omit<BrokerInfo, 'epoch'>, timestampMs = Date.now()): Buffer {
  const endpoints: ZkBrokerEndpoint[] =
    broker.endpoints.length > 0
      ? broker.endpoints.map((e) => ({
          listenerName: e.listener.toUpperCase(),
          host: e.host,
          port: e.port,
          securityProtocol: securityProtocol(e.securityProtocol, broker.nodeId),
        }))
      : [{ listenerName: 'PLAINTEXT', host: broker.host, port: broker.port, securityProtocol: 'PLAINTEXT' }];
  return encodeBrokerRegistration({ endpoints, rack: broker.rack, features: {} }, timestampMs);
}

/** The store's view of a registration; host/port are the first endpoint's, as the records define. */
export function brokerInfo(r: BrokerRegistration, epoch: bigint): BrokerInfo {
  const first = r.endpoints[0];
  return {
    nodeId: r.id,
    host: first?.host ?? '',
    port: first?.port ?? -1,
    rack: r.rack,
    endpoints: r.endpoints.map((e) => ({
      listener: e.listenerName,
      securityProtocol: e.securityProtocol,
      host: e.host,
      port: e.port,
    })),
    epoch,
  };
}

// ---- topic assignments ---------------------------------------------------------------------------

export function encodeAssignment(a: TopicAssignment): Buffer {
  const partitions = new Map<number, PartitionReplicaAssignment>();
  a.partitions.forEach((replicas, p) => {
    partitions.set(p, {
      replicas,
      addingReplicas: a.addingReplicas?.[p] ?? [],
      removingReplicas: a.removingReplicas?.[p] ?? [],
    });
  });
  // The zero uuid means "no id yet": Kafka writes no topic_id then.
  return encodeTopicAssignment({ topicId: a.topicId === ZERO_UUID ? null : a.topicId, partitions });
}

/**
 * The store's view of `/brokers/topics/<t>`. A topic written before Kafka 2.8 has no topic id:
 * it reads as the zero uuid until a controller gives it one. Partitions must be 0..n-1.
 */
export function topicAssignment(name: string, z: ZkTopicAssignment): TopicAssignment {
  const n = z.partitions.size;
  const partitions: (readonly number[])[] = [];
  const adding: Record<number, readonly number[]> = {};
  const removing: Record<number, readonly number[]> = {};
  let reassigning = false;
  for (let p = 0; p < n; p++) {
    const a = z.partitions.get(p);
    if (a === undefined)
      throw new MetadataStoreError(
        'CORRUPT',
        `invalid /brokers/topics/${name}: partitions are not numbered 0..${n - 1} (no partition ${p})`,
      );
    partitions.push(a.replicas);
    if (a.addingReplicas.length > 0) {
      adding[p] = a.addingReplicas;
      reassigning = true;
    }
    if (a.removingReplicas.length > 0) {
      removing[p] = a.removingReplicas;
      reassigning = true;
    }
  }
  return {
    name,
    topicId: z.topicId ?? ZERO_UUID,
    partitions,
    ...(reassigning ? { addingReplicas: adding, removingReplicas: removing } : {}),
  };
}
