// Two in-process brokers for the transaction tests where a partition's leader is not the
// transactional id's coordinator (KIP-890 verification and protocol v2 across brokers): the
// cluster, raw connections closed after the file, and a topic laid out against the coordinator.
import assert from 'node:assert/strict';
import { after, before } from 'node:test';
import { Admin } from '../../src/client/index.js';
import { startTestCluster, type TestCluster } from '../../src/testkit/index.js';
import { RawClient } from '../broker/support/raw-client.js';
import { coordinatorOf, TRANSACTION } from '../broker/txn/txn-v2-wire-support.js';
import { type BrokerView, leaderOf, waitForFullIsr } from './support.js';

export interface RemoteTxnLayout {
  /** The transactional id's coordinator. */
  coordinator: number;
  /** The coordinator's view once every replica is in sync. */
  view: BrokerView;
  /** The topic's partitions the other broker leads (at least one). */
  remote: number[];
  /** A connection to the first broker. */
  any: RawClient;
}

/**
 * Starts the cluster before the file's tests (single-replica transaction state, plus
 * `overrides`) and stops it after them.
 */
export function remoteTxnCluster(overrides: Record<string, string | number> = {}) {
  let cluster: TestCluster;
  const clients: RawClient[] = [];
  before(async () => {
    cluster = await startTestCluster({
      brokers: 2,
      mode: 'in-process',
      overrides: {
        'transaction.state.log.replication.factor': 1,
        'transaction.state.log.min.isr': 1,
        ...overrides,
      },
    });
  });
  after(async () => {
    for (const c of clients) c.close();
    await cluster?.close();
  });

  const connect = async (nodeId: number): Promise<RawClient> => {
    const c = await RawClient.connect(cluster.broker(nodeId).port!);
    clients.push(c);
    return c;
  };

  /** Creates `topic` (4 partitions, one replica each) and finds which of them `txnId`'s coordinator does not lead. */
  const layout = async (topic: string, txnId: string): Promise<RemoteTxnLayout> => {
    const admin = new Admin({ bootstrapServers: cluster.bootstrap() });
    try {
      await admin.createTopics([{ name: topic, numPartitions: 4, replicationFactor: 1 }]);
    } finally {
      await admin.close();
    }
    await waitForFullIsr(cluster, [topic]);
    const any = await connect(cluster.nodeIds[0]!);
    const coordinator = await coordinatorOf(any, TRANSACTION, txnId);
    // FindCoordinator created __transaction_state through the first broker: every broker must
    // know where its partitions are before one asks the coordinator on another's behalf.
    const views = await waitForFullIsr(cluster, [topic, '__transaction_state']);
    const view = views.get(coordinator)!;
    const remote = [0, 1, 2, 3].filter((p) => leaderOf(view, topic, p) !== coordinator);
    assert.ok(remote.length > 0, 'a partition led by the other broker');
    return { coordinator, view, remote, any };
  };

  /** Until every broker's metadata has `topics` with a full ISR (e.g. an internal topic just created). */
  const settled = async (topics: readonly string[]): Promise<void> => {
    await waitForFullIsr(cluster, topics);
  };

  return { connect, layout, settled };
}
