// A deterministic "cluster" for controller tests: one memory ensemble, one session per broker
// with its registration and its Controller, a recording network, and a mock clock for session
// timeouts. `kill` is a crash (the session lingers until its timeout, no resignation), `restart`
// registers again with a new epoch, `settle` waits until watches, events and answers are all done.

import { MockClock } from '../../../../../src/broker/coordinator/runtime/clock.js';
import { Controller } from '../../../../../src/broker/metadata/controller/controller.js';
import {
  MemoryMetadataService,
  type MemoryMetadataStore,
} from '../../../../../src/broker/metadata/store/memory-store.js';
import type { PartitionState, TopicAssignment } from '../../../../../src/broker/metadata/store/records.js';
import { randomUuid } from '../../../../../src/broker/metadata/uuid.js';
import { RecordingNetwork } from './recording-channel.js';

export const SESSION_TIMEOUT_MS = 6000;

export interface Node {
  readonly id: number;
  readonly store: MemoryMetadataStore;
  readonly controller: Controller;
  readonly epoch: bigint;
}

export class TestCluster {
  readonly clock = new MockClock();
  readonly service = new MemoryMetadataService({ clock: this.clock, sessionTimeoutMs: SESSION_TIMEOUT_MS });
  readonly network = new RecordingNetwork();
  readonly nodes = new Map<number, Node>();
  /** A session of the test itself, as an admin tool (or another broker's command façade). */
  readonly admin = this.service.connect();

  static async start(ids: readonly number[]): Promise<TestCluster> {
    const c = new TestCluster();
    for (const id of ids) await c.startNode(id);
    await c.settle();
    return c;
  }

  /** Starts (or restarts) a broker: new session, registration, controller. */
  async startNode(id: number): Promise<Node> {
    const store = this.service.connect();
    const epoch = await store.registerBroker({
      nodeId: id,
      host: `broker${id}`,
      port: 9090 + id,
      rack: null,
      endpoints: [
        { listener: 'PLAINTEXT', securityProtocol: 'PLAINTEXT', host: `broker${id}`, port: 9090 + id },
      ],
    });
    const controller = new Controller({
      nodeId: id,
      store,
      channel: this.network.channel(id),
      clock: this.clock,
      topicConfig: async (topic) => {
        const configs = await store.configs({ type: 'topics', name: topic });
        return { uncleanLeaderElectionEnable: configs['unclean.leader.election.enable'] === 'true' };
      },
    });
    const node = { id, store, controller, epoch };
    this.nodes.set(id, node);
    await controller.start();
    return node;
  }

  /** kill -9: the process is gone, its session expires after the timeout. */
  async kill(id: number): Promise<void> {
    const node = this.nodes.get(id)!;
    this.nodes.delete(id);
    this.service.disconnect(node.store);
    await node.controller.close(); // nothing reaches the store: it is disconnected
    this.clock.advance(SESSION_TIMEOUT_MS);
    await this.settle();
  }

  async restart(id: number): Promise<Node> {
    const node = await this.startNode(id);
    await this.settle();
    return node;
  }

  /** Waits until no watch, event or answer is left anywhere. */
  async settle(): Promise<void> {
    let quiet = 0;
    let last = '';
    for (let i = 0; i < 10_000 && quiet < 3; i++) {
      await new Promise<void>((r) => setImmediate(r));
      await Promise.all([...this.nodes.values()].map((n) => n.controller.whenIdle()));
      const now = `${this.network.log.length}/${this.service.changeCount}`;
      quiet = now === last ? quiet + 1 : 0;
      last = now;
    }
  }

  active(): Node[] {
    return [...this.nodes.values()].filter((n) => n.controller.isActive);
  }

  activeController(): Node {
    const active = this.active();
    if (active.length !== 1)
      throw new Error(`expected one active controller, found ${active.map((n) => n.id)}`);
    return active[0]!;
  }

  async createTopic(
    name: string,
    partitions: number[][],
    configs: Record<string, string> = {},
  ): Promise<TopicAssignment> {
    const assignment = { name, topicId: randomUuid(), partitions };
    await this.admin.createTopic(assignment, configs);
    await this.settle();
    return assignment;
  }

  async states(topic: string): Promise<Map<number, PartitionState>> {
    return this.admin.partitionStates(topic);
  }

  async state(topic: string, partition: number): Promise<PartitionState> {
    const s = (await this.states(topic)).get(partition);
    if (s === undefined) throw new Error(`no state for ${topic}-${partition}`);
    return s;
  }

  /** Kafka's promise: a partition never lacks a leader while one of its ISR replicas is alive. */
  async assertNoLeaderlessPartitionWithLiveIsr(): Promise<void> {
    const live = new Set((await this.admin.liveBrokers()).map((b) => b.nodeId));
    for (const t of await this.admin.topicNames()) {
      for (const [p, s] of await this.states(t)) {
        if (s.leader === -1 && s.isr.some((r) => live.has(r)))
          throw new Error(`${t}-${p} has no leader although ISR ${s.isr} has live replicas ${[...live]}`);
        if (s.leader >= 0 && !live.has(s.leader))
          throw new Error(`${t}-${p} is led by dead broker ${s.leader}`);
      }
    }
  }

  async close(): Promise<void> {
    for (const n of this.nodes.values()) await n.controller.close();
    for (const n of this.nodes.values()) await n.store.close();
  }
}
