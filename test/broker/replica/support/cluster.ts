// Real brokers in this process sharing one in-memory metadata service (ZooKeeper's semantics, no
// ZooKeeper): each broker has its own session (`startBroker({ metadataStore })`), its controller
// (the first one elected acts), and talks to the others over loopback sockets — LeaderAndIsr,
// UpdateMetadata, AlterPartition, and the followers' fetches. `stop` closes a broker (its session
// ends, the controller reacts as to a lost broker); `start` brings it back on its data. A fake
// broker (a registration whose address answers controller requests and never fetches) stands in
// for a follower that is alive but does not keep up.

import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type BrokerHandle, startBroker } from '../../../../src/broker/broker.js';
import type { Logger } from '../../../../src/broker/logger.js';
import {
  MemoryMetadataService,
  type MemoryMetadataStore,
} from '../../../../src/broker/metadata/store/memory-store.js';
import type { Partition } from '../../../../src/broker/replica/partition.js';
import { produceApi } from '../../../../src/protocol/messages/generated/produce.js';
import { scaled, TestTimeoutError } from '../../../support/timeouts.js';
import { FakeBroker } from '../../metadata/broker-side/support/fake-broker.js';
import { RawClient } from '../../support/raw-client.js';

interface Node {
  readonly dataDir: string;
  broker: BrokerHandle | null;
}

export class InProcessCluster {
  readonly service = new MemoryMetadataService({ sessionTimeoutMs: 6000 });
  readonly #nodes = new Map<number, Node>();
  readonly #fakes: { store: MemoryMetadataStore; broker: FakeBroker }[] = [];

  private constructor(
    readonly overrides: Readonly<Record<string, string | number | boolean>>,
    readonly logger?: Logger,
  ) {}

  static async start(
    ids: readonly number[],
    overrides: Readonly<Record<string, string | number | boolean>> = {},
    logger?: Logger,
  ): Promise<InProcessCluster> {
    const c = new InProcessCluster(overrides, logger);
    try {
      for (const id of ids) await c.start(id);
    } catch (e) {
      await c.close();
      throw e;
    }
    return c;
  }

  /** Starts broker `id` (again, on its data when it ran before). */
  async start(id: number): Promise<BrokerHandle> {
    let node = this.#nodes.get(id);
    if (node === undefined) {
      node = { dataDir: await mkdtemp(join(tmpdir(), `samsa-repl-${id}-`)), broker: null };
      this.#nodes.set(id, node);
    }
    if (node.broker !== null) throw new Error(`broker ${id} is running`);
    node.broker = await startBroker({
      host: '127.0.0.1',
      port: 0,
      dataDir: node.dataDir,
      nodeId: id,
      overrides: { 'auto.create.topics.enable': false, ...this.overrides },
      metadataStore: this.service.connect(),
      ...(this.logger ? { logger: this.logger } : {}),
    });
    return node.broker;
  }

  /** Closes broker `id`, keeping its data. */
  async stop(id: number): Promise<void> {
    const node = this.#nodes.get(id);
    const b = node?.broker;
    if (!node || !b) return;
    node.broker = null;
    await b.close();
  }

  broker(id: number): BrokerHandle {
    const b = this.#nodes.get(id)?.broker;
    if (!b) throw new Error(`broker ${id} is not running`);
    return b;
  }

  partition(id: number, topic: string, partition = 0): Partition | undefined {
    return this.#nodes.get(id)?.broker?.services.replicas.get(topic, partition);
  }

  /** Registers broker `id` with an address that answers controller requests but never fetches. */
  async addFakeBroker(id: number): Promise<FakeBroker> {
    const broker = await FakeBroker.start();
    const store = this.service.connect();
    const endpoint = {
      listener: 'PLAINTEXT',
      securityProtocol: 'PLAINTEXT',
      host: '127.0.0.1',
      port: broker.port,
    };
    await store.registerBroker({
      nodeId: id,
      host: '127.0.0.1',
      port: broker.port,
      rack: null,
      endpoints: [endpoint],
    });
    this.#fakes.push({ store, broker });
    return broker;
  }

  async close(): Promise<void> {
    for (const id of this.#nodes.keys()) await this.stop(id);
    for (const f of this.#fakes) {
      await f.store.close();
      await f.broker.close();
    }
    for (const n of this.#nodes.values()) await rm(n.dataDir, { recursive: true, force: true });
  }
}

/** Polls `cond` until it holds; fails with "timed out" after the (scaled) limit. */
export async function waitUntil(
  what: string,
  cond: () => boolean | Promise<boolean>,
  limitMs = 60_000,
  detail: () => string = () => '',
): Promise<void> {
  const ms = scaled(limitMs);
  const deadline = Date.now() + ms;
  while (!(await cond())) {
    if (Date.now() > deadline) throw new TestTimeoutError(what, ms, detail());
    await new Promise((r) => setTimeout(r, 20));
  }
}

/** One Produce (v9) of one batch; the partition's answer. */
export async function produceTo(
  broker: BrokerHandle,
  topic: string,
  partition: number,
  records: Buffer,
  acks: number,
  timeoutMs = 30_000,
): Promise<{ errorCode: number; baseOffset: bigint }> {
  const c = await RawClient.connect(broker.port);
  try {
    const r = await c.request(
      produceApi,
      9,
      {
        transactionalId: null,
        acks,
        timeoutMs,
        topicData: [{ name: topic, partitionData: [{ index: partition, records }] }],
      },
      timeoutMs + 120_000,
    );
    return r.responses[0]!.partitionResponses[0]!;
  } finally {
    c.close();
  }
}
