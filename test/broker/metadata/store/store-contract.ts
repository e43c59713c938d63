// The MetadataStore contract: the same scenarios run against every backend (the in-memory
// ensemble in memory-store-contract.test.ts, a real ZooKeeper in zk-store.test.ts), so the
// controller and the brokers can be tested on the memory store and trusted on ZooKeeper.
//
// Only outcomes are asserted, never speed; watch events are awaited with generous liveness limits
// and never asserted absent (ZooKeeper may repeat them, e.g. after a reconnection).

import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
  type MetadataStore,
  MetadataStoreError,
  type MetadataStoreListener,
} from '../../../../src/broker/metadata/store/metadata-store.js';
import type {
  BrokerInfo,
  ConfigEntity,
  ControllerLease,
  LeaderAndIsr,
  TopicAssignment,
} from '../../../../src/broker/metadata/store/records.js';
import { scaled, TestTimeoutError } from '../../../support/timeouts.js';

/** One isolated cluster (a memory ensemble, a ZooKeeper chroot) for one test. */
export interface ContractCluster {
  /** A started store with its own session. `shortSession`: the shortest session the backend allows. */
  open(options?: { readonly shortSession?: boolean }): Promise<MetadataStore>;
  /** Expires the store's session from outside; resolves once the store told its listeners `sessionExpired`. */
  expire(store: MetadataStore): Promise<void>;
  /** Closes every store it opened. */
  close(): Promise<void>;
}

export interface ContractBackend {
  cluster(): Promise<ContractCluster>;
}

export const LIVENESS_MS = scaled(30_000);

// ---- helpers (also used by the backend-specific tests) -----------------------------------------

export function broker(nodeId: number, rack: string | null = null): Omit<BrokerInfo, 'epoch'> {
  return {
    nodeId,
    host: 'localhost',
    port: 9090 + nodeId,
    rack,
    endpoints: [
      { listener: 'PLAINTEXT', securityProtocol: 'PLAINTEXT', host: 'localhost', port: 9090 + nodeId },
    ],
  };
}

/** A valid Kafka uuid text (22 chars of URL-safe base64 for 16 bytes) derived from the name. */
export function topicId(name: string): string {
  return Buffer.from(`id:${name}`.padEnd(16, '.').slice(0, 16)).toString('base64url');
}

export function topic(name: string, partitions: number[][]): TopicAssignment {
  return { name, topicId: topicId(name), partitions };
}

export function state(leader: number, isr: number[], leaderEpoch = 0, controllerEpoch = 1): LeaderAndIsr {
  return { leader, leaderEpoch, isr, controllerEpoch, leaderRecoveryState: 0 };
}

export async function rejects(
  p: Promise<unknown>,
  code: MetadataStoreError['code'],
  what = '',
): Promise<void> {
  await assert.rejects(p, (e: unknown) => {
    assert.ok(e instanceof MetadataStoreError, `${what}: expected a MetadataStoreError, got ${String(e)}`);
    assert.equal(e.code, code, `${what}: ${e.message}`);
    return true;
  });
}

export async function eventually<T>(
  what: string,
  check: () => Promise<T | undefined | false> | T | undefined | false,
  timeoutMs = LIVENESS_MS,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = await check();
    if (v !== undefined && v !== false) return v;
    if (Date.now() > deadline) throw new TestTimeoutError(what, timeoutMs);
    await new Promise((r) => setTimeout(r, 20));
  }
}

/** Records a store's listener calls as strings (`assignmentChanged:t`, `configChanged:brokers/1`...). */
export class Recorder {
  readonly calls: string[] = [];
  readonly stop: () => void;
  constructor(store: MetadataStore) {
    const push = (s: string) => () => this.calls.push(s);
    const listener: MetadataStoreListener = {
      brokersChanged: push('brokersChanged'),
      controllerChanged: push('controllerChanged'),
      topicsChanged: push('topicsChanged'),
      topicDeletionRequested: push('topicDeletionRequested'),
      disconnected: push('disconnected'),
      reconnected: push('reconnected'),
      sessionExpired: push('sessionExpired'),
      assignmentChanged: (t) => this.calls.push(`assignmentChanged:${t}`),
      adminRequest: (k) => this.calls.push(`adminRequest:${k}`),
      configChanged: (e) => this.calls.push(`configChanged:${e.type}/${e.name}`),
    };
    this.stop = store.watch(listener);
  }
  clear(): void {
    this.calls.length = 0;
  }
  /** Waits until `call` was recorded (since the last clear()). */
  seen(call: string): Promise<true> {
    return eventually(`listener call ${call} (seen: ${JSON.stringify(this.calls)})`, () =>
      this.calls.includes(call),
    );
  }
}

const withCluster =
  (backend: () => ContractBackend, fn: (cl: ContractCluster) => Promise<void>) => async () => {
    const cl = await backend().cluster();
    try {
      await fn(cl);
    } finally {
      await cl.close();
    }
  };

const outcome = (r: { ok: boolean; reason?: string; version?: number }) =>
  r.ok ? `ok@${r.version}` : r.reason;

// ---- the contract -------------------------------------------------------------------------------

export function storeContract(backend: () => ContractBackend): void {
  const it = (name: string, fn: (cl: ContractCluster) => Promise<void>) =>
    test(name, withCluster(backend, fn));

  it('cluster id: concurrent first calls from several sessions agree on one id', async (cl) => {
    const stores = await Promise.all([cl.open(), cl.open(), cl.open(), cl.open()]);
    const ids = await Promise.all(stores.map((s) => s.clusterId()));
    assert.match(ids[0]!, /^[A-Za-z0-9_-]{22}$/);
    assert.deepEqual(new Set(ids).size, 1, `one winner: ${ids.join(', ')}`);
    assert.equal(await (await cl.open()).clusterId(), ids[0]);
  });

  it('registration: idempotent in its session, NODE_EXISTS for a live duplicate id, fields kept', async (cl) => {
    const a = await cl.open();
    const b = await cl.open();
    const e1 = await a.registerBroker(broker(1));
    assert.equal(await a.registerBroker(broker(1)), e1, 'idempotent within the session');
    await assert.rejects(b.registerBroker(broker(1)), (e: unknown) => {
      assert.ok(e instanceof MetadataStoreError && e.code === 'NODE_EXISTS', String(e));
      assert.match(e.message, /\b1\b/, 'the message names the id');
      return true;
    });
    const three: Omit<BrokerInfo, 'epoch'> = {
      nodeId: 3,
      host: 'b3.example',
      port: 9093,
      rack: 'rack-a',
      endpoints: [
        { listener: 'EXTERNAL', securityProtocol: 'SSL', host: 'b3.example', port: 9093 },
        { listener: 'INTERNAL', securityProtocol: 'PLAINTEXT', host: '10.0.0.3', port: 19093 },
      ],
    };
    const e3 = await b.registerBroker(three);
    const e2 = await b.registerBroker(broker(2));
    assert.ok(e1 < e3 && e3 < e2, 'epochs are creation zxids: they grow');
    const live = await a.liveBrokers();
    assert.deepEqual(live, [
      { ...broker(1), epoch: e1 },
      { ...broker(2), epoch: e2 },
      { ...three, epoch: e3 },
    ]);
    await b.close();
    await eventually('broker 2 and 3 to leave', async () =>
      (await a.liveBrokers()).map((x) => x.nodeId).join() === '1' ? true : undefined,
    );
  });

  it('a re-registration after a session expiry gets a higher epoch; others see it leave', async (cl) => {
    const a = await cl.open({ shortSession: true });
    const b = await cl.open();
    const e1 = await a.registerBroker(broker(1));
    const seenByB = new Recorder(b);
    const seenByA = new Recorder(a);
    await cl.expire(a);
    assert.ok(seenByA.calls.includes('sessionExpired'));
    await seenByB.seen('brokersChanged');
    assert.deepEqual(await b.liveBrokers(), []);
    const e1b = await a.registerBroker(broker(1));
    assert.ok(e1b > e1, `epoch ${e1b} after the expiry > ${e1}`);
    assert.deepEqual(
      (await b.liveBrokers()).map((x) => [x.nodeId, x.epoch]),
      [[1, e1b]],
    );
  });

  it('election: one winner among concurrent candidates, retries get the lease back, epochs increase', async (cl) => {
    const stores = await Promise.all([cl.open(), cl.open(), cl.open()]);
    const leases = await Promise.all(stores.map((s, i) => s.tryElectController(i + 1)));
    const winners = leases.flatMap((l, i) => (l === null ? [] : [i]));
    assert.equal(winners.length, 1, `exactly one winner: ${JSON.stringify(leases)}`);
    const w = winners[0]!;
    const l1 = leases[w]!;
    assert.deepEqual(l1, { nodeId: w + 1, epoch: 1, epochVersion: 1 });
    for (const s of stores) assert.equal(await s.controllerId(), w + 1);
    assert.deepEqual(await stores[w]!.tryElectController(w + 1), l1, 'a retry by the winner gets its lease');
    const other = (w + 1) % 3;
    assert.equal(await stores[other]!.tryElectController(other + 1), null);

    await stores[w]!.resignController(l1);
    assert.equal(await stores[other]!.controllerId(), -1);
    const l2 = (await stores[other]!.tryElectController(other + 1))!;
    assert.equal(l2.epoch, 2);
    assert.ok(l2.epochVersion > l1.epochVersion);

    await stores[other]!.close(); // its ephemeral /controller goes with its session
    const third = stores.findIndex((_, i) => i !== w && i !== other);
    await eventually(
      'the closed controller to be gone',
      async () => (await stores[third]!.controllerId()) === -1,
    );
    const l3 = (await stores[third]!.tryElectController(third + 1))!;
    assert.equal(l3.epoch, 3);
    assert.ok(l3.epochVersion > l2.epochVersion);
  });

  it('a deposed controller is fenced (NOT_CONTROLLER) while the new one writes', async (cl) => {
    const a = await cl.open({ shortSession: true });
    const b = await cl.open();
    await a.createTopic(topic('t', [[1]]), {});
    const l1 = (await a.tryElectController(1))!;
    assert.ok(l1);
    await cl.expire(a);
    const l2 = await eventually('b to win the election', () =>
      b.tryElectController(2).then((l) => l ?? undefined),
    );
    assert.equal(l2.epoch, 2);

    const write = { topic: 't', partition: 0, state: state(1, [1]), expectedVersion: -1 };
    await rejects(a.writePartitionStates(l1, [write]), 'NOT_CONTROLLER', 'state write');
    await rejects(a.setAssignment(topic('t', [[1], [1]]), l1), 'NOT_CONTROLLER', 'assignment');
    await rejects(a.completeTopicDeletion(l1, 't'), 'NOT_CONTROLLER', 'deletion');
    assert.equal((await a.partitionStates('t')).size, 0, 'nothing written under the stale lease');
    assert.equal((await a.assignments(['t']))[0]!.partitions.length, 1);
    await a.resignController(l1);
    assert.equal(await a.controllerId(), 2, 'resigning with a stale lease leaves the new controller');

    assert.deepEqual((await b.writePartitionStates(l2, [write])).map(outcome), ['ok@0']);
    await b.setAssignment(topic('t', [[1], [1]]), l2);
    assert.equal((await b.assignments(['t']))[0]!.partitions.length, 2);
  });

  it('a lease at version 0 of a fresh /controller_epoch fences (the multi version-0 check)', async (cl) => {
    const s = await cl.open();
    await s.createTopic(topic('t', [[1]]), {});
    const forged: ControllerLease = { nodeId: 9, epoch: 0, epochVersion: 0 };
    const write = { topic: 't', partition: 0, state: state(9, [9]), expectedVersion: -1 };
    await rejects(s.writePartitionStates(forged, [write]), 'NOT_CONTROLLER', 'no election yet');
    const lease = (await s.tryElectController(1))!;
    assert.deepEqual(lease, { nodeId: 1, epoch: 1, epochVersion: 1 });
    // /controller_epoch is now at version 1: a check expecting version 0 must fail, not match any.
    await rejects(s.writePartitionStates(forged, [write]), 'NOT_CONTROLLER', 'state write at version 0');
    await rejects(s.setAssignment(topic('t', [[9]]), forged), 'NOT_CONTROLLER', 'assignment at version 0');
    await rejects(s.completeTopicDeletion(forged, 't'), 'NOT_CONTROLLER', 'deletion at version 0');
    await rejects(s.writePartitionStates(forged, []), 'NOT_CONTROLLER', 'an empty batch');
    const unknown = { ...write, topic: 'gone' };
    await rejects(s.writePartitionStates(forged, [unknown]), 'NOT_CONTROLLER', 'only unknown topics');
    assert.equal((await s.partitionStates('t')).size, 0);
    assert.deepEqual((await s.assignments())[0]!.partitions, [[1]]);
    assert.deepEqual((await s.writePartitionStates(lease, [write])).map(outcome), ['ok@0']);
  });

  it('partition states: created at version 0, each write conditional on the version read', async (cl) => {
    const s = await cl.open();
    await s.createTopic(
      topic('t', [
        [1, 2],
        [2, 3],
        [3, 1],
      ]),
      {},
    );
    await s.createTopic(topic('u', [[1]]), {});
    const lease = (await s.tryElectController(1))!;
    const created = await s.writePartitionStates(lease, [
      { topic: 't', partition: 0, state: state(1, [1, 2]), expectedVersion: -1 },
      { topic: 't', partition: 1, state: state(2, [2, 3]), expectedVersion: -1 },
      { topic: 'u', partition: 0, state: state(1, [1]), expectedVersion: -1 },
    ]);
    assert.deepEqual(created, [
      { topic: 't', partition: 0, ok: true, version: 0 },
      { topic: 't', partition: 1, ok: true, version: 0 },
      { topic: 'u', partition: 0, ok: true, version: 0 },
    ]);
    const recovering: LeaderAndIsr = { ...state(2, [2], 1, 1), leaderRecoveryState: 1 };
    const second = await s.writePartitionStates(lease, [
      { topic: 't', partition: 0, state: state(1, [1, 2]), expectedVersion: -1 }, // exists
      { topic: 't', partition: 1, state: recovering, expectedVersion: 0 },
      { topic: 't', partition: 2, state: state(3, [3]), expectedVersion: 0 }, // never created
      { topic: 't', partition: 3, state: state(1, [1]), expectedVersion: -1 }, // not in the assignment
      { topic: 'gone', partition: 0, state: state(1, [1]), expectedVersion: 0 },
      { topic: 't', partition: 2, state: state(3, [3, 1]), expectedVersion: -1 },
    ]);
    assert.deepEqual(second.map(outcome), ['NODE_EXISTS', 'ok@1', 'NO_NODE', 'NO_NODE', 'NO_NODE', 'ok@0']);
    const stale = await s.writePartitionStates(lease, [
      { topic: 't', partition: 1, state: state(3, [3], 2), expectedVersion: 0 },
      { topic: 't', partition: 1, state: state(3, [3], 2), expectedVersion: 1 },
    ]);
    assert.deepEqual(stale.map(outcome), ['BAD_VERSION', 'ok@2']);
    const states = await s.partitionStates('t');
    assert.deepEqual(
      [...states].map(([p, st]) => [p, { ...st }]),
      [
        [0, { ...state(1, [1, 2]), version: 0 }],
        [1, { ...state(3, [3], 2), version: 2 }],
        [2, { ...state(3, [3, 1]), version: 0 }],
      ],
    );
    await s.writePartitionStates(lease, [
      { topic: 'u', partition: 0, state: recovering, expectedVersion: 0 },
    ]);
    assert.deepEqual({ ...(await s.partitionStates('u')).get(0) }, { ...recovering, version: 1 });
    assert.equal((await s.partitionStates('nope')).size, 0);
  });

  it('topics: created with their configs atomically, NODE_EXISTS when taken, assignments replaced', async (cl) => {
    const s = await cl.open();
    const t1 = topic('t1', [
      [1, 2],
      [2, 3],
    ]);
    await s.createTopic(t1, { 'retention.ms': '10', 'cleanup.policy': 'compact' });
    await rejects(s.createTopic(topic('t1', [[1]]), {}), 'NODE_EXISTS');
    await s.createTopic(topic('t0', [[3]]), {});
    assert.deepEqual(await s.topicNames(), ['t0', 't1']);
    assert.deepEqual(await s.assignments(), [topic('t0', [[3]]), t1]);
    assert.deepEqual(await s.assignments(['t1', 'nope']), [t1]);
    assert.deepEqual(await s.configs({ type: 'topics', name: 't1' }), {
      'retention.ms': '10',
      'cleanup.policy': 'compact',
    });
    assert.deepEqual(await s.configs({ type: 'topics', name: 't0' }), {});
    assert.deepEqual(await s.configEntities('topics'), ['t1']);

    const reassigning: TopicAssignment = {
      ...topic('t1', [
        [1, 2, 3],
        [2, 3],
        [3, 1],
      ]),
      addingReplicas: { 0: [3] },
      removingReplicas: { 0: [1] },
    };
    await s.setAssignment(reassigning);
    assert.deepEqual(await s.assignments(['t1']), [reassigning]);
    await rejects(s.setAssignment(topic('nope', [[1]])), 'NO_NODE');
    const lease = (await s.tryElectController(1))!;
    await rejects(s.setAssignment(topic('nope', [[1]]), lease), 'NO_NODE');
    await s.setAssignment(
      topic('t1', [
        [2, 3],
        [2, 3],
        [3, 1],
      ]),
      lease,
    );
    assert.deepEqual((await s.assignments(['t1']))[0]!.partitions, [
      [2, 3],
      [2, 3],
      [3, 1],
    ]);
  });

  it('topic deletion: requested idempotently, NO_NODE when unknown, completed under the lease', async (cl) => {
    const s = await cl.open();
    await s.createTopic(
      topic('t', [
        [1, 2],
        [2, 1],
      ]),
      { 'retention.ms': '10' },
    );
    await s.createTopic(topic('keep', [[1]]), {});
    await rejects(s.requestTopicDeletion('nope'), 'NO_NODE');
    const lease = (await s.tryElectController(1))!;
    await s.writePartitionStates(lease, [
      { topic: 't', partition: 0, state: state(1, [1, 2]), expectedVersion: -1 },
      { topic: 't', partition: 1, state: state(2, [2, 1]), expectedVersion: -1 },
    ]);
    await s.requestTopicDeletion('t');
    await s.requestTopicDeletion('t');
    assert.deepEqual(await s.pendingTopicDeletions(), ['t']);
    await s.completeTopicDeletion(lease, 't');
    assert.deepEqual(await s.topicNames(), ['keep']);
    assert.deepEqual(await s.pendingTopicDeletions(), []);
    assert.deepEqual(await s.configs({ type: 'topics', name: 't' }), {});
    assert.deepEqual(await s.configEntities('topics'), []);
    assert.equal((await s.partitionStates('t')).size, 0);
    assert.deepEqual(await s.assignments(['t']), []);
    await s.completeTopicDeletion(lease, 't'); // idempotent
    await rejects(s.requestTopicDeletion('t'), 'NO_NODE', 'the topic is gone');

    // The name can be used again, with nothing left of the old topic.
    await s.createTopic(topic('t', [[2]]), { 'segment.ms': '5' });
    assert.deepEqual(await s.configs({ type: 'topics', name: 't' }), { 'segment.ms': '5' });
    assert.deepEqual(
      (
        await s.writePartitionStates(lease, [
          { topic: 't', partition: 0, state: state(2, [2]), expectedVersion: -1 },
        ])
      ).map(outcome),
      ['ok@0'],
    );
  });

  it('dynamic configs: replaced, listed, and each change notifies the other sessions', async (cl) => {
    const a = await cl.open();
    const b = await cl.open();
    const seenByB = new Recorder(b);
    const dflt: ConfigEntity = { type: 'brokers', name: '<default>' };
    await a.setConfigs({ type: 'topics', name: 't' }, { 'retention.ms': '1' });
    await a.setConfigs(dflt, { 'log.retention.ms': '2' });
    await a.setConfigs({ type: 'brokers', name: '1' }, { 'log.cleaner.threads': '2' });
    await seenByB.seen('configChanged:topics/t');
    await seenByB.seen('configChanged:brokers/<default>');
    await seenByB.seen('configChanged:brokers/1');
    assert.deepEqual(await b.configs(dflt), { 'log.retention.ms': '2' });
    assert.deepEqual(await b.configEntities('brokers'), ['1', '<default>']);
    assert.deepEqual(await b.configEntities('topics'), ['t']);

    seenByB.clear();
    await a.setConfigs({ type: 'brokers', name: '1' }, {});
    await seenByB.seen('configChanged:brokers/1');
    assert.deepEqual(await b.configs({ type: 'brokers', name: '1' }), {});
    assert.deepEqual(await b.configEntities('brokers'), ['<default>']);
    await a.setConfigs(dflt, { 'log.retention.ms': '3', 'log.segment.bytes': '1024' });
    await seenByB.seen('configChanged:brokers/<default>');
    assert.deepEqual(await b.configs(dflt), { 'log.retention.ms': '3', 'log.segment.bytes': '1024' });

    // A session opened later is told of new changes only.
    const c = await cl.open();
    const seenByC = new Recorder(c);
    await a.setConfigs({ type: 'topics', name: 'later' }, { 'retention.ms': '4' });
    await seenByC.seen('configChanged:topics/later');
    assert.ok(
      seenByC.calls.every((x) => !x.startsWith('configChanged:') || x === 'configChanged:topics/later'),
      `only the new change: ${JSON.stringify(seenByC.calls)}`,
    );
  });

  it('producer id blocks: unique across two sessions racing (2 × 20 interleaved allocations)', async (cl) => {
    const a = await cl.open();
    const b = await cl.open();
    const size = 10;
    const calls = Array.from({ length: 40 }, (_, i) =>
      i % 2 === 0 ? a.allocateProducerIdBlock(1, size) : b.allocateProducerIdBlock(2, size),
    );
    const blocks = (await Promise.all(calls)).sort((x, y) => Number(x.firstProducerId - y.firstProducerId));
    assert.ok(blocks.every((x) => x.size === size));
    assert.equal(blocks[0]!.firstProducerId, 0n, 'the first block starts at 0');
    for (let i = 1; i < blocks.length; i++)
      assert.ok(
        blocks[i]!.firstProducerId >= blocks[i - 1]!.firstProducerId + BigInt(size),
        `blocks ${i - 1} and ${i} overlap: ${blocks[i - 1]!.firstProducerId}, ${blocks[i]!.firstProducerId}`,
      );
    const next = await a.allocateProducerIdBlock(1, 5);
    assert.ok(next.firstProducerId >= blocks.at(-1)!.firstProducerId + BigInt(size));
    await assert.rejects(a.allocateProducerIdBlock(1, 0), RangeError);
  });

  it('watches: every kind of change reaches the listeners of every session', async (cl) => {
    const a = await cl.open();
    const b = await cl.open();
    const seenByB = new Recorder(b);
    const seenByA = new Recorder(a);
    const step = async (action: () => Promise<unknown>, expected: string): Promise<void> => {
      seenByB.clear();
      seenByA.clear();
      await action();
      await seenByB.seen(expected);
      await seenByA.seen(expected);
    };
    await step(() => a.registerBroker(broker(1)), 'brokersChanged');
    let lease: ControllerLease | null = null;
    await step(async () => {
      lease = await a.tryElectController(1);
    }, 'controllerChanged');
    await step(() => a.createTopic(topic('w', [[1]]), {}), 'topicsChanged');
    await step(() => a.setAssignment(topic('w', [[1], [1]])), 'assignmentChanged:w');
    await step(() => a.setAssignment(topic('w', [[1], [1], [1]]), lease!), 'assignmentChanged:w');
    await step(() => a.requestTopicDeletion('w'), 'topicDeletionRequested');
    await step(() => a.setConfigs({ type: 'topics', name: 'w' }, { a: 'b' }), 'configChanged:topics/w');
    await step(() => a.completeTopicDeletion(lease!, 'w'), 'topicsChanged');
    await step(() => a.resignController(lease!), 'controllerChanged');
    // A topic created after start is watched too.
    await step(() => b.createTopic(topic('w2', [[1]]), {}), 'topicsChanged');
    await step(() => b.setAssignment(topic('w2', [[2]])), 'assignmentChanged:w2');
  });

  it('watches survive a session expiry: later changes still reach the renewed session', async (cl) => {
    const a = await cl.open({ shortSession: true });
    const b = await cl.open();
    await b.createTopic(topic('before', [[1]]), {});
    await a.setConfigs({ type: 'topics', name: 'before' }, { x: '1' });
    await cl.expire(a);
    const seen = new Recorder(a);
    const step = async (action: () => Promise<unknown>, expected: string): Promise<void> => {
      seen.clear();
      await action();
      await seen.seen(expected);
    };
    await step(() => b.setConfigs({ type: 'brokers', name: '2' }, { y: '2' }), 'configChanged:brokers/2');
    await step(() => b.registerBroker(broker(2)), 'brokersChanged');
    await step(() => b.createTopic(topic('after', [[2]]), {}), 'topicsChanged');
    await step(() => b.setAssignment(topic('before', [[2]])), 'assignmentChanged:before');
    await step(() => b.setAssignment(topic('after', [[1]])), 'assignmentChanged:after');
    await step(() => b.requestTopicDeletion('after'), 'topicDeletionRequested');
    await step(() => b.tryElectController(2), 'controllerChanged');
  });

  it('close ends the session at once: its ephemerals go and its calls fail', async (cl) => {
    const a = await cl.open();
    const b = await cl.open();
    await a.registerBroker(broker(1));
    await a.tryElectController(1);
    await a.close();
    assert.deepEqual(await b.liveBrokers(), []);
    assert.equal(await b.controllerId(), -1);
    await rejects(a.topicNames(), 'SESSION_EXPIRED');
  });
}
