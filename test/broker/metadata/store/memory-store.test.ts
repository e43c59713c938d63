// The in-memory ensemble keeps ZooKeeper's semantics: versioned conditional writes, ephemerals
// owned by sessions, controller writes fenced by the epoch's version, asynchronous coalesced
// watches, and the fault hooks (expiry, disconnect/reconnect, lost replies).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { MockClock } from '../../../../src/broker/coordinator/runtime/clock.js';
import { MemoryMetadataService } from '../../../../src/broker/metadata/store/memory-store.js';
import {
  type MetadataStore,
  MetadataStoreError,
  type MetadataStoreListener,
} from '../../../../src/broker/metadata/store/metadata-store.js';
import type { LeaderAndIsr, TopicAssignment } from '../../../../src/broker/metadata/store/records.js';

const tick = () => new Promise<void>((r) => setImmediate(r));

function broker(nodeId: number) {
  return {
    nodeId,
    host: 'localhost',
    port: 9090 + nodeId,
    rack: null,
    endpoints: [
      { listener: 'PLAINTEXT', securityProtocol: 'PLAINTEXT', host: 'localhost', port: 9090 + nodeId },
    ],
  };
}

function topic(name: string, partitions: number[][]): TopicAssignment {
  return { name, topicId: `id-${name}`.padEnd(22, 'A'), partitions };
}

function state(leader: number, isr: number[], leaderEpoch = 0, controllerEpoch = 1): LeaderAndIsr {
  return { leader, leaderEpoch, isr, controllerEpoch, leaderRecoveryState: 0 };
}

async function rejects(p: Promise<unknown>, code: MetadataStoreError['code']): Promise<void> {
  await assert.rejects(p, (e: unknown) => e instanceof MetadataStoreError && e.code === code);
}

/** Records every listener call of a store, by name. */
function recorder(store: MetadataStore): string[] {
  const calls: string[] = [];
  const names = [
    'brokersChanged',
    'controllerChanged',
    'topicsChanged',
    'topicDeletionRequested',
    'disconnected',
    'reconnected',
    'sessionExpired',
  ] as const;
  const listener: MetadataStoreListener = {
    assignmentChanged: (t) => calls.push(`assignmentChanged:${t}`),
    configChanged: (e) => calls.push(`configChanged:${e.type}/${e.name}`),
  };
  for (const n of names) (listener as Record<string, () => void>)[n] = () => calls.push(n);
  store.watch(listener);
  return calls;
}

test('partition states: created at version 0, each write bumps it, conditional on the version read', async () => {
  const service = new MemoryMetadataService();
  const s = service.connect();
  await s.createTopic(topic('t', [[1, 2]]), {});
  const lease = (await s.tryElectController(1))!;
  assert.deepEqual(lease, { nodeId: 1, epoch: 1, epochVersion: 1 });

  const [created] = await s.writePartitionStates(lease, [
    { topic: 't', partition: 0, state: state(1, [1, 2]), expectedVersion: -1 },
  ]);
  assert.deepEqual(created, { topic: 't', partition: 0, ok: true, version: 0 });
  const again = await s.writePartitionStates(lease, [
    { topic: 't', partition: 0, state: state(1, [1, 2]), expectedVersion: -1 },
  ]);
  assert.equal(again[0]!.ok, false);
  assert.equal((again[0] as { reason: string }).reason, 'NODE_EXISTS');

  const [updated] = await s.writePartitionStates(lease, [
    { topic: 't', partition: 0, state: state(2, [2], 1), expectedVersion: 0 },
  ]);
  assert.deepEqual(updated, { topic: 't', partition: 0, ok: true, version: 1 });
  const stale = await s.writePartitionStates(lease, [
    { topic: 't', partition: 0, state: state(1, [1], 2), expectedVersion: 0 },
    { topic: 'gone', partition: 0, state: state(1, [1]), expectedVersion: 0 },
    { topic: 't', partition: 7, state: state(1, [1]), expectedVersion: -1 },
  ]);
  assert.deepEqual(
    stale.map((r) => (r.ok ? 'ok' : r.reason)),
    ['BAD_VERSION', 'NO_NODE', 'NO_NODE'],
  );
  const states = await s.partitionStates('t');
  assert.deepEqual({ ...states.get(0) }, { ...state(2, [2], 1), version: 1 });
});

test('broker registrations are ephemeral, their epochs are creation zxids that grow', async () => {
  const service = new MemoryMetadataService();
  const a = service.connect();
  const b = service.connect();
  const e1 = await a.registerBroker(broker(1));
  assert.equal(await a.registerBroker(broker(1)), e1, 'idempotent within the session');
  await rejects(b.registerBroker(broker(1)), 'NODE_EXISTS');
  const e2 = await b.registerBroker(broker(2));
  assert.ok(e2 > e1);
  assert.deepEqual(
    (await b.liveBrokers()).map((x) => [x.nodeId, x.epoch]),
    [
      [1, e1],
      [2, e2],
    ],
  );

  const seenByB = recorder(b);
  const seenByA = recorder(a);
  service.expireSession(a);
  assert.deepEqual(
    (await b.liveBrokers()).map((x) => x.nodeId),
    [2],
  );
  await tick();
  assert.deepEqual(seenByB, ['brokersChanged']);
  assert.deepEqual(seenByA, ['sessionExpired'], 'the expired session learns only that it expired');
  const e1b = await a.registerBroker(broker(1));
  assert.ok(e1b > e2, 'a re-registration gets a new, higher epoch');
});

test('controller election: one winner, epochs increase, a stale lease is fenced (NOT_CONTROLLER)', async () => {
  const service = new MemoryMetadataService();
  const a = service.connect();
  const b = service.connect();
  await a.createTopic(topic('t', [[1]]), {});
  const l1 = (await a.tryElectController(1))!;
  assert.equal(await b.tryElectController(2), null);
  assert.equal(await b.controllerId(), 1);
  assert.deepEqual(await a.tryElectController(1), l1, 'a retry by the same session gets its lease back');

  service.expireSession(a);
  assert.equal(await b.controllerId(), -1);
  const l2 = (await b.tryElectController(2))!;
  assert.equal(l2.epoch, 2);
  assert.ok(l2.epochVersion > l1.epochVersion);

  const write = { topic: 't', partition: 0, state: state(1, [1]), expectedVersion: -1 };
  await rejects(a.writePartitionStates(l1, [write]), 'NOT_CONTROLLER');
  await rejects(a.completeTopicDeletion(l1, 't'), 'NOT_CONTROLLER');
  await rejects(a.setAssignment(topic('t', [[1], [1]]), l1), 'NOT_CONTROLLER');
  assert.equal((await a.partitionStates('t')).size, 0, 'nothing written under the stale lease');
  await a.resignController(l1);
  assert.equal(await a.controllerId(), 2, 'resigning with a stale lease does not remove the new controller');
  assert.equal((await b.writePartitionStates(l2, [write]))[0]!.ok, true);

  await b.resignController(l2);
  assert.equal(await a.controllerId(), -1);
  assert.equal((await a.tryElectController(1))!.epoch, 3);
});

test('disconnect: calls fail with CONNECTION_LOSS; a reconnect within the timeout keeps the session', async () => {
  const clock = new MockClock();
  const service = new MemoryMetadataService({ clock, sessionTimeoutMs: 6000 });
  const a = service.connect();
  const b = service.connect();
  await a.registerBroker(broker(1));
  await tick(); // the registration's own watch event
  const seen = recorder(a);
  service.disconnect(a);
  await rejects(a.topicNames(), 'CONNECTION_LOSS');
  await b.createTopic(topic('x', [[1]]), {});
  await tick();
  assert.deepEqual(seen, ['disconnected'], 'watch events wait while disconnected');
  clock.advance(5999);
  service.reconnect(a);
  await tick();
  assert.deepEqual(seen, ['disconnected', 'reconnected', 'topicsChanged']);
  assert.deepEqual(
    (await b.liveBrokers()).map((x) => x.nodeId),
    [1],
  );
});

test('whenConnected: at once when connected, after a reconnect or a new session, false on timeout or close', async () => {
  const clock = new MockClock();
  const service = new MemoryMetadataService({ clock, sessionTimeoutMs: 6000 });
  const a = service.connect();
  assert.equal(await a.whenConnected(0), true, 'connected: at once');
  service.disconnect(a);
  assert.equal(await a.whenConnected(20), false, 'still disconnected when the wait ends');
  const back = a.whenConnected(60_000);
  service.reconnect(a);
  assert.equal(await back, true, 'reconnected within the session');
  service.disconnect(a);
  const renewed = a.whenConnected(60_000);
  clock.advance(6000); // the session expires meanwhile
  service.reconnect(a);
  assert.equal(await renewed, true, 'a new session after the expiry');
  await a.close();
  assert.equal(await a.whenConnected(60_000), false, 'closed');
});

test('disconnect past the session timeout: ephemerals go at the timeout, the store learns it on reconnect', async () => {
  const clock = new MockClock();
  const service = new MemoryMetadataService({ clock, sessionTimeoutMs: 6000 });
  const a = service.connect();
  const b = service.connect();
  await a.registerBroker(broker(1));
  await a.tryElectController(1);
  const seenByB = recorder(b);
  const seenByA = recorder(a);
  service.disconnect(a);
  clock.advance(6000);
  assert.deepEqual(await b.liveBrokers(), []);
  assert.equal(await b.controllerId(), -1);
  await tick();
  assert.deepEqual(seenByB.sort(), ['brokersChanged', 'controllerChanged']);
  await rejects(a.liveBrokers(), 'CONNECTION_LOSS');
  service.reconnect(a);
  await tick();
  assert.deepEqual(seenByA, ['disconnected', 'sessionExpired']);
  assert.ok((await a.registerBroker(broker(1))) > 0n, 'usable again in its new session');
});

test('an injected lost reply: the call is applied, the caller sees CONNECTION_LOSS', async () => {
  const service = new MemoryMetadataService();
  const s = service.connect();
  service.injectConnectionLoss(s, { afterApply: true });
  await rejects(s.createTopic(topic('t', [[1]]), {}), 'CONNECTION_LOSS');
  assert.deepEqual(await s.topicNames(), ['t']);
  service.injectConnectionLoss(s);
  await rejects(s.createTopic(topic('u', [[1]]), {}), 'CONNECTION_LOSS');
  assert.deepEqual(await s.topicNames(), ['t'], 'a loss before applying changes nothing');
});

test('watches fire asynchronously, coalesced per kind and topic, for every session', async () => {
  const service = new MemoryMetadataService();
  const a = service.connect();
  const b = service.connect();
  const seen = recorder(b);
  await a.createTopic(topic('t1', [[1]]), {});
  await a.createTopic(topic('t2', [[1]]), { 'cleanup.policy': 'compact' });
  await a.setAssignment(topic('t1', [[1], [1]]));
  await a.setAssignment(topic('t1', [[1], [1], [1]]));
  await a.requestTopicDeletion('t2');
  await a.requestTopicDeletion('t2');
  await a.setConfigs({ type: 'brokers', name: '<default>' }, { 'log.retention.ms': '1' });
  assert.deepEqual(seen, [], 'nothing synchronously');
  await tick();
  assert.deepEqual(seen, [
    'topicsChanged',
    'assignmentChanged:t1',
    'topicDeletionRequested',
    'configChanged:brokers/<default>',
  ]);
});

test('topics, configs, deletions and producer id blocks', async () => {
  const service = new MemoryMetadataService();
  const s = service.connect();
  await s.createTopic(topic('t', [[1, 2]]), { 'retention.ms': '10' });
  await rejects(s.createTopic(topic('t', [[1]]), {}), 'NODE_EXISTS');
  await rejects(s.requestTopicDeletion('nope'), 'NO_NODE');
  await rejects(s.setAssignment(topic('nope', [[1]])), 'NO_NODE');
  assert.deepEqual(await s.configs({ type: 'topics', name: 't' }), { 'retention.ms': '10' });
  await s.setConfigs({ type: 'brokers', name: '1' }, { a: 'b' });
  await s.setConfigs({ type: 'brokers', name: '<default>' }, { c: 'd' });
  assert.deepEqual(await s.configEntities('brokers'), ['1', '<default>']);
  await s.setConfigs({ type: 'brokers', name: '1' }, {});
  assert.deepEqual(await s.configEntities('brokers'), ['<default>']);
  assert.deepEqual(await s.configEntities('topics'), ['t']);

  const lease = (await s.tryElectController(1))!;
  await s.writePartitionStates(lease, [
    { topic: 't', partition: 0, state: state(1, [1, 2]), expectedVersion: -1 },
  ]);
  await s.requestTopicDeletion('t');
  assert.deepEqual(await s.pendingTopicDeletions(), ['t']);
  await s.completeTopicDeletion(lease, 't');
  assert.deepEqual(await s.topicNames(), []);
  assert.deepEqual(await s.pendingTopicDeletions(), []);
  assert.deepEqual(await s.configs({ type: 'topics', name: 't' }), {});
  assert.equal((await s.partitionStates('t')).size, 0);
  await s.completeTopicDeletion(lease, 't'); // idempotent

  const b1 = await s.allocateProducerIdBlock(1, 1000);
  const b2 = await service.connect().allocateProducerIdBlock(2, 1000);
  assert.deepEqual(b1, { firstProducerId: 0n, size: 1000 });
  assert.deepEqual(b2, { firstProducerId: 1000n, size: 1000 });
  assert.match(await s.clusterId(), /^[A-Za-z0-9_-]{22}$/);
  assert.equal(await s.clusterId(), await service.connect().clusterId());
});

test('close ends the session at once: its ephemerals go and its calls fail', async () => {
  const service = new MemoryMetadataService();
  const a = service.connect();
  const b = service.connect();
  await a.registerBroker(broker(1));
  await a.tryElectController(1);
  await a.close();
  assert.deepEqual(await b.liveBrokers(), []);
  assert.equal(await b.controllerId(), -1);
  await rejects(a.topicNames(), 'SESSION_EXPIRED');
});
