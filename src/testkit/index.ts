// "A real Kafka inside your test run": starts in-process brokers on ephemeral loopback ports
// with throw-away data directories. Used by Samsa's own tests and offered to users.

import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type BrokerHandle, startBroker } from '../broker/broker.js';
import type { Logger } from '../broker/logger.js';

export interface TestBrokerOptions {
  /**
   * Kafka broker configs (e.g. `{ 'num.partitions': 3 }`). With `listeners` (several listeners,
   * TLS: `SSL://127.0.0.1:0` plus `ssl.keystore.*`; SASL: `SASL_PLAINTEXT://127.0.0.1:0` plus
   * `sasl.enabled.mechanisms` and, for PLAIN, `sasl.jaas.config`) the broker binds those instead
   * of one PLAINTEXT listener on an ephemeral loopback port.
   */
  overrides?: Readonly<Record<string, string | number | boolean>>;
  /** Reuse a data directory (e.g. to restart on the data of a closed broker). */
  dataDir?: string;
  nodeId?: number;
  logger?: Logger;
}

export interface TestBroker extends BrokerHandle {
  readonly dataDir: string;
  /** Closes the broker and deletes its data directory. */
  close(): Promise<void>;
  /** Closes the broker and keeps its data (for restart tests). */
  stop(): Promise<void>;
  /** `host:port` of one listener (e.g. `SSL`), as the broker advertises it. */
  bootstrapFor(listener: string): string;
}

/**
 * `SAMSA_TEST_NETWORK_THREADS=N` gives every test broker N network threads unless its test sets
 * `num.network.threads` itself: a whole suite then runs against the threaded network path.
 */
function withNetworkThreads(
  overrides: TestBrokerOptions['overrides'],
): TestBrokerOptions['overrides'] | undefined {
  const threads = process.env.SAMSA_TEST_NETWORK_THREADS;
  if (threads === undefined || threads === '' || overrides?.['num.network.threads'] !== undefined)
    return overrides;
  return { 'num.network.threads': threads, ...overrides };
}

export async function startTestBroker(options: TestBrokerOptions = {}): Promise<TestBroker> {
  const dataDir = options.dataDir ?? (await mkdtemp(join(tmpdir(), 'samsa-test-')));
  let broker: BrokerHandle;
  try {
    const ownListeners = options.overrides?.listeners !== undefined;
    const overrides = withNetworkThreads(options.overrides);
    broker = await startBroker({
      ...(ownListeners ? {} : { host: '127.0.0.1', port: 0 }),
      dataDir,
      ...(options.nodeId !== undefined ? { nodeId: options.nodeId } : {}),
      ...(overrides ? { overrides } : {}),
      ...(options.logger ? { logger: options.logger } : {}),
    });
  } catch (e) {
    if (!options.dataDir) await rm(dataDir, { recursive: true, force: true });
    throw e;
  }
  return {
    ...broker,
    dataDir,
    stop: () => broker.close(),
    bootstrapFor(listener) {
      const e = broker.endpoints.find((x) => x.listener === listener.toUpperCase());
      if (e === undefined) throw new Error(`broker ${broker.nodeId} has no listener ${listener}`);
      return `${e.host.includes(':') ? `[${e.host}]` : e.host}:${e.port}`;
    },
    async close() {
      await broker.close();
      await rm(dataDir, { recursive: true, force: true });
    },
  };
}

export {
  startTestCluster,
  type TestCluster,
  type TestClusterBroker,
  type TestClusterOptions,
} from './cluster.js';
export {
  expireZkSession,
  startTestZooKeeper,
  type TestZooKeeper,
  type TestZooKeeperOptions,
} from './zookeeper.js';
