// One broker's controller-facing side without a socket: a LogManager on a temp dir, the
// ReplicaManager, a MetadataPublisher over an in-memory config store, and the receiver.

import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ConfigResolver } from '../../../../../src/broker/config/config-resolver.js';
import { silentLogger } from '../../../../../src/broker/logger.js';
import {
  BrokerControllerRequestReceiver,
  type ControllerRequestReceiverDeps,
} from '../../../../../src/broker/metadata/controller-request-receiver.js';
import { MetadataPublisher, type PublisherEvent } from '../../../../../src/broker/metadata/publisher.js';
import { ReplicaManager } from '../../../../../src/broker/replica/replica-manager.js';
import { LogManager } from '../../../../../src/storage/index.js';
import { FakeConfigStore } from './fake-store.js';

export interface Harness {
  readonly dir: string;
  readonly logs: LogManager;
  readonly replicas: ReplicaManager;
  readonly store: FakeConfigStore;
  readonly publisher: MetadataPublisher;
  readonly receiver: BrokerControllerRequestReceiver;
  readonly events: PublisherEvent[];
  brokerEpoch: bigint;
  close(): Promise<void>;
}

export async function startHarness(
  nodeId = 1,
  extra: Partial<Pick<ControllerRequestReceiverDeps, 'verifyController'>> = {},
): Promise<Harness> {
  const dir = await mkdtemp(join(tmpdir(), 'samsa-broker-side-'));
  const logs = await LogManager.open({ logDirs: [dir], brokerId: nodeId });
  const configs = new ConfigResolver(new Map(), () => ({ cluster: {}, broker: {} }));
  const replicas = new ReplicaManager(logs, configs, nodeId, silentLogger);
  const store = new FakeConfigStore();
  const publisher = new MetadataPublisher({
    clusterId: 'test-cluster',
    store,
    configReadTimeoutMs: 200,
    configRetryBackoffMs: 20,
    configRetryBackoffMaxMs: 50,
  });
  await publisher.start();
  const events: PublisherEvent[] = [];
  publisher.subscribe((e) => events.push(e));
  const h: Harness = {
    dir,
    logs,
    replicas,
    store,
    publisher,
    events,
    brokerEpoch: 100n,
    receiver: undefined as unknown as BrokerControllerRequestReceiver,
    async close() {
      publisher.close();
      await logs.close();
      await rm(dir, { recursive: true, force: true });
    },
  };
  (h as { receiver: BrokerControllerRequestReceiver }).receiver = new BrokerControllerRequestReceiver({
    nodeId,
    replicas,
    publisher,
    brokerEpoch: () => h.brokerEpoch,
    ...extra,
  });
  return h;
}
