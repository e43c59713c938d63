// The metadata publisher: UpdateMetadata fills the cluster image (live brokers with endpoints,
// controller, partition states with offline replicas; leader -2 deletes), topic and broker
// configs come from the store and follow its notifications, events arrive in order, and admin
// waits resolve when the image catches up.

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ClusterImage, type MetadataView } from '../../../../src/broker/metadata/cluster-image.js';
import { updateMetadataForVersion } from '../../../../src/broker/metadata/controller/request-forms.js';
import {
  MetadataPublisher,
  type PublisherEvent,
  topicGone,
  topicReady,
} from '../../../../src/broker/metadata/publisher.js';
import type { LocalMetadataView } from '../../../../src/broker/metadata/topic-commands.js';
import { ErrorCode } from '../../../../src/protocol/errors.js';
import { FakeConfigStore } from './support/fake-store.js';
import { umBroker, updateMetadata } from './support/requests.js';

const ID_A = 'AAAAAAAAAAAAAAAAAAAAAw';
const ID_A2 = 'AAAAAAAAAAAAAAAAAAAAQQ';

// Compile-time: the image serves handlers; the publisher is what admin commands wait on.
const _views: [MetadataView, LocalMetadataView] = [
  null as unknown as ClusterImage,
  null as unknown as MetadataPublisher,
];
void _views;

async function publisher(store = new FakeConfigStore(), listenerName?: string) {
  const p = new MetadataPublisher({
    clusterId: 'cid',
    store,
    ...(listenerName ? { listenerName } : {}),
    configReadTimeoutMs: 100,
    configRetryBackoffMs: 10,
    configRetryBackoffMaxMs: 20,
  });
  await p.start();
  const events: PublisherEvent[] = [];
  p.subscribe((e) => events.push(e));
  return { p, store, events };
}

const kinds = (events: readonly PublisherEvent[]) =>
  events.map((e) => ('topic' in e && typeof e.topic !== 'string' ? `${e.kind}:${e.topic.name}` : e.kind));

test('UpdateMetadata fills brokers (endpoints, rack), controller and partition states with offline replicas', async () => {
  const { p, store, events } = await publisher(undefined, 'INTERNAL');
  try {
    store.put({ type: 'topics', name: 'a' }, { 'retention.ms': '1000' });
    const res = await p.applyUpdateMetadata(
      updateMetadata(
        { controllerId: 2, controllerEpoch: 4 },
        [umBroker(2, 9092, 'r2'), umBroker(1)],
        [
          {
            name: 'a',
            id: ID_A,
            partitions: [
              {
                partitionIndex: 1,
                leader: 2,
                leaderEpoch: 3,
                isr: [2],
                replicas: [2, 1],
                offlineReplicas: [1],
                zkVersion: 7,
              },
              { partitionIndex: 0, leader: 1, leaderEpoch: 1, isr: [1, 2], replicas: [1, 2] },
            ],
          },
          {
            name: '__consumer_offsets',
            id: 'AAAAAAAAAAAAAAAAAAAAEQ',
            partitions: [{ partitionIndex: 0, leader: -1, isr: [], replicas: [1] }],
          },
        ],
      ),
    );
    assert.deepEqual(res.deletedPartitions, []);
    const img = p.image;
    assert.equal(img.clusterId, 'cid');
    assert.equal(img.controllerId, 2);
    assert.equal(img.controllerEpoch, 4);
    assert.deepEqual(
      img.brokers.map((b) => [b.nodeId, b.host, b.port, b.rack]),
      [
        [1, 'internal-1', 10091, null],
        [2, 'internal-2', 10092, 'r2'],
      ],
    );
    assert.deepEqual(img.broker(2)!.endpoints, [
      { listener: 'PLAINTEXT', securityProtocol: 'PLAINTEXT', host: 'broker-2', port: 9092 },
      { listener: 'INTERNAL', securityProtocol: 'SSL', host: 'internal-2', port: 10092 },
    ]);
    const a = img.topic('a')!;
    assert.equal(a.topicId, ID_A);
    assert.equal(img.topicById(ID_A), a);
    assert.equal(a.internal, false);
    assert.deepEqual(a.configs, { 'retention.ms': '1000' });
    assert.deepEqual(
      a.partitions.map((x) => [
        x.partition,
        x.leader,
        x.leaderEpoch,
        x.isr,
        x.replicas,
        x.offlineReplicas,
        x.partitionEpoch,
      ]),
      [
        [0, 1, 1, [1, 2], [1, 2], [], 0],
        [1, 2, 3, [2], [2, 1], [1], 7],
      ],
    );
    assert.equal(img.topic('__consumer_offsets')!.internal, true);
    assert.equal(img.collidingTopic('__consumer.offsets'), '__consumer_offsets');
    assert.deepEqual(kinds(events), ['brokers-changed', 'created:a', 'created:__consumer_offsets']);
    assert.equal(img.topicCount, 2);
    assert.equal(await p.waitFor(topicReady('a'), 10), true);
    assert.equal(await p.waitFor(topicReady('__consumer_offsets'), 10), false, 'a leaderless partition');
    // Without a listener name, the first endpoint.
    const plain = await publisher();
    await plain.p.applyUpdateMetadata(updateMetadata({}, [umBroker(3)], []));
    assert.deepEqual([plain.p.image.broker(3)!.host, plain.p.image.broker(3)!.port], ['broker-3', 9093]);
    plain.p.close();
  } finally {
    p.close();
  }
});

test('later UpdateMetadata: new partitions, state changes, brokers only, deletion with leader -2', async () => {
  const { p, events } = await publisher();
  try {
    const brokers = [umBroker(1), umBroker(2)];
    await p.applyUpdateMetadata(
      updateMetadata({}, brokers, [{ name: 'a', id: ID_A, partitions: [{ partitionIndex: 0, leader: 1 }] }]),
    );
    const first = p.image.topic('a')!;
    await p.applyUpdateMetadata(
      updateMetadata({}, brokers, [
        {
          name: 'a',
          id: ID_A,
          partitions: [
            { partitionIndex: 0, leader: 2, leaderEpoch: 1 },
            { partitionIndex: 1, leader: 1 },
            { partitionIndex: 2, leader: 2 },
          ],
        },
      ]),
    );
    assert.equal(first.partitions.length, 1, 'an image a handler holds does not change under it');
    const a = p.image.topic('a')!;
    assert.deepEqual(
      a.partitions.map((x) => [x.partition, x.leader]),
      [
        [0, 2],
        [1, 1],
        [2, 2],
      ],
    );
    const added = events.at(-1)!;
    assert.equal(added.kind, 'partitions-added');
    assert.deepEqual(added.kind === 'partitions-added' ? added.added.map((x) => x.partition) : [], [1, 2]);
    // No partition states: brokers and controller only, partitions kept.
    await p.applyUpdateMetadata(updateMetadata({ controllerId: 2 }, [umBroker(2)], []));
    assert.deepEqual(
      p.image.brokers.map((b) => b.nodeId),
      [2],
    );
    assert.equal(p.image.controllerId, 2);
    assert.equal(p.image.topic('a')!.partitions.length, 3);
    assert.equal(events.at(-1)!.kind, 'brokers-changed');
    // Deleting one partition leaves the topic; deleting all removes it.
    const r1 = await p.applyUpdateMetadata(
      updateMetadata(
        {},
        [umBroker(2)],
        [{ name: 'a', id: ID_A, partitions: [{ partitionIndex: 2, leader: -2 }] }],
      ),
    );
    assert.deepEqual(r1.deletedPartitions, [{ topic: 'a', partition: 2 }]);
    assert.equal(p.image.topic('a')!.partitions.length, 2);
    const gone = p.waitFor(topicGone('a', ID_A), 1000);
    const r2 = await p.applyUpdateMetadata(
      updateMetadata(
        {},
        [umBroker(2)],
        [
          {
            name: 'a',
            id: ID_A,
            partitions: [
              { partitionIndex: 0, leader: -2 },
              { partitionIndex: 1, leader: -2 },
            ],
          },
        ],
      ),
    );
    assert.equal(await gone, true);
    assert.deepEqual(
      r2.deletedPartitions.map((x) => x.partition),
      [0, 1],
    );
    assert.equal(p.image.topic('a'), undefined);
    assert.equal(p.image.topicById(ID_A), undefined);
    const del = events.at(-1)!;
    assert.equal(del.kind, 'deleted');
    assert.equal(del.kind === 'deleted' ? del.topic.partitions.length : -1, 2, 'the topic as it was');
    // -2 for something never seen: reported as deleted, nothing else.
    const r3 = await p.applyUpdateMetadata(
      updateMetadata(
        {},
        [umBroker(2)],
        [{ name: 'zz', id: ID_A, partitions: [{ partitionIndex: 0, leader: -2 }] }],
      ),
    );
    assert.deepEqual(r3.deletedPartitions, [{ topic: 'zz', partition: 0 }]);
    assert.equal(p.image.topic('zz'), undefined);
  } finally {
    p.close();
  }
});

test('a name that comes back with a new topic id is a deletion then a creation', async () => {
  const { p, events } = await publisher();
  try {
    await p.applyUpdateMetadata(
      updateMetadata(
        {},
        [umBroker(1)],
        [
          {
            name: 'a',
            id: ID_A,
            partitions: [
              { partitionIndex: 0, leader: 1 },
              { partitionIndex: 1, leader: 1 },
            ],
          },
        ],
      ),
    );
    await p.applyUpdateMetadata(
      updateMetadata(
        {},
        [umBroker(1)],
        [{ name: 'a', id: ID_A2, partitions: [{ partitionIndex: 0, leader: 1 }] }],
      ),
    );
    assert.deepEqual(kinds(events), ['brokers-changed', 'created:a', 'deleted:a', 'created:a']);
    assert.equal(p.image.topic('a')!.topicId, ID_A2);
    assert.equal(p.image.topic('a')!.partitions.length, 1);
    assert.equal(p.image.topicById(ID_A), undefined);
    assert.equal(await p.waitFor(topicGone('a', ID_A), 10), true);
    assert.equal(await p.waitFor(topicReady('a', { topicId: ID_A2, partitions: 1 }), 10), true);
  } finally {
    p.close();
  }
});

test('configs follow the store: topic and broker notifications, session expiry re-reads everything', async () => {
  const store = new FakeConfigStore();
  store.put({ type: 'brokers', name: '<default>' }, { 'log.retention.ms': '5' });
  store.put({ type: 'brokers', name: '1' }, { 'log.cleaner.threads': '2' });
  const { p, events } = await publisher(store);
  try {
    assert.deepEqual(p.brokerConfigs(''), { 'log.retention.ms': '5' });
    assert.deepEqual(p.brokerConfigs('1'), { 'log.cleaner.threads': '2' });
    await p.applyUpdateMetadata(
      updateMetadata(
        {},
        [umBroker(1)],
        [{ name: 'a', id: ID_A, partitions: [{ partitionIndex: 0, leader: 1 }] }],
      ),
    );
    events.length = 0;
    // The admin command's wait: this broker shows the new configs.
    const seen = p.waitFor(() => p.topic('a')?.configs['retention.ms'] === '10', 1000);
    store.set({ type: 'topics', name: 'a' }, { 'retention.ms': '10' });
    assert.equal(await seen, true);
    assert.deepEqual(kinds(events), ['configs-changed:a']);
    // A notification that changes nothing publishes nothing.
    store.set({ type: 'topics', name: 'a' }, { 'retention.ms': '10' });
    store.set({ type: 'topics', name: 'unknown' }, { 'retention.ms': '1' });
    const defaults = p.waitFor(() => p.brokerConfigs('')['log.retention.ms'] === '6', 1000);
    store.set({ type: 'brokers', name: '<default>' }, { 'log.retention.ms': '6' });
    assert.equal(await defaults, true);
    assert.deepEqual(events.at(-1), { kind: 'broker-configs-changed', entity: '' });
    assert.equal(p.topic('unknown'), undefined);
    // Changes written while the session was gone arrive after the expiry.
    store.put({ type: 'topics', name: 'a' }, { 'retention.ms': '20' });
    store.put({ type: 'brokers', name: '1' }, {});
    const reloaded = p.waitFor(
      () => p.topic('a')?.configs['retention.ms'] === '20' && Object.keys(p.brokerConfigs('1')).length === 0,
      1000,
    );
    store.expireSession();
    assert.equal(await reloaded, true);
    assert.ok(kinds(events).includes('configs-changed:a'));
    assert.deepEqual(events.filter((e) => e.kind === 'broker-configs-changed').at(-1), {
      kind: 'broker-configs-changed',
      entity: '1',
    });
  } finally {
    p.close();
  }
});

test('a store that cannot answer does not hold metadata back: configs arrive by retry', async () => {
  const store = new FakeConfigStore();
  const { p, events } = await publisher(store);
  try {
    store.put({ type: 'topics', name: 'a' }, { 'cleanup.policy': 'compact' });
    store.hangReads = true;
    const t0 = Date.now();
    await p.applyUpdateMetadata(
      updateMetadata(
        {},
        [umBroker(1)],
        [{ name: 'a', id: ID_A, partitions: [{ partitionIndex: 0, leader: 1 }] }],
      ),
    );
    assert.ok(Date.now() - t0 < 2000, 'bounded by configReadTimeoutMs');
    assert.deepEqual(p.topic('a')!.configs, {});
    // A read the store never answers is bounded too (LeaderAndIsr would wait on it).
    await assert.rejects(p.topicConfigs('b'), { code: ErrorCode.REQUEST_TIMED_OUT });
    store.hangReads = false;
    store.failReads = true;
    await assert.rejects(p.topicConfigs('b'), { code: 'CONNECTION_LOSS' });
    store.failReads = false;
    assert.equal(await p.waitFor(() => p.topic('a')?.configs['cleanup.policy'] === 'compact', 2000), true);
    assert.deepEqual(kinds(events).slice(-1), ['configs-changed:a']);
    assert.deepEqual(await p.topicConfigs('b'), {});
  } finally {
    p.close();
  }
});

test('waitFor: true at once or on a change, false on timeout or close; a throwing predicate rejects', async () => {
  const { p } = await publisher();
  assert.equal(await p.waitFor(() => true, 0), true);
  assert.equal(await p.waitFor(() => false, 20), false);
  const pending = p.waitFor(topicReady('x'), 5000);
  const throwing = p.waitFor((img) => {
    if (img.topic('x')) throw new Error('bad predicate');
    return false;
  }, 5000);
  await p.applyUpdateMetadata(
    updateMetadata(
      {},
      [umBroker(1)],
      [{ name: 'x', id: ID_A, partitions: [{ partitionIndex: 0, leader: 1 }] }],
    ),
  );
  assert.equal(await pending, true);
  await assert.rejects(throwing, /bad predicate/);
  const never = p.waitFor(() => false, 60_000);
  p.close();
  assert.equal(await never, false);
  assert.equal(await p.waitFor(() => false, 60_000), false, 'after close');
});

test('malformed UpdateMetadata is refused before anything changes; v0 form (single host/port) works', async () => {
  const { p, events } = await publisher();
  try {
    for (const bad of [
      updateMetadata(
        {},
        [umBroker(1)],
        [
          { name: 'ok', id: ID_A, partitions: [{ partitionIndex: 0, leader: 1 }] },
          { name: 'bad/name', id: ID_A, partitions: [{ partitionIndex: 0, leader: 1 }] },
        ],
      ),
      updateMetadata(
        {},
        [umBroker(1)],
        [{ name: 'ok', id: ID_A, partitions: [{ partitionIndex: -3, leader: 1 }] }],
      ),
      updateMetadata({}, [{ ...umBroker(1), id: -5 }], []),
    ]) {
      await assert.rejects(p.applyUpdateMetadata(bad), { code: ErrorCode.INVALID_REQUEST });
    }
    assert.equal(p.image.topicCount, 0);
    assert.equal(p.image.brokers.length, 0);
    assert.deepEqual(events, []);
    const v0 = updateMetadataForVersion(
      {
        ...updateMetadata({}, [], [{ name: 'ok', id: ID_A, partitions: [{ partitionIndex: 0, leader: 7 }] }]),
        liveBrokers: [{ id: 7, v0Host: 'h7', v0Port: 7777, endpoints: [], rack: null }],
      },
      0,
    );
    assert.equal(v0.topicStates.length, 0);
    await p.applyUpdateMetadata(v0);
    assert.deepEqual([p.image.broker(7)!.host, p.image.broker(7)!.port], ['h7', 7777]);
    assert.equal(p.image.topic('ok')!.topicId, 'AAAAAAAAAAAAAAAAAAAAAA', 'no topic id before v7');
    assert.equal(p.image.topicById('AAAAAAAAAAAAAAAAAAAAAA'), undefined);
  } finally {
    p.close();
  }
});

test('leadership events are published in order with the others; listeners that throw do not stop the rest', async () => {
  const { p, events } = await publisher();
  try {
    p.subscribe(() => {
      throw new Error('listener bug');
    });
    const late: string[] = [];
    const unsubscribe = p.subscribe((e) => late.push(e.kind));
    p.publishLeadership([
      { topic: 't', topicId: ID_A, partition: 0, isLeader: true, leaderEpoch: 3 },
      { topic: 't', topicId: ID_A, partition: 1, isLeader: false, leaderEpoch: 4 },
    ]);
    unsubscribe();
    p.publishLeadership([{ topic: 't', topicId: ID_A, partition: 2, isLeader: true, leaderEpoch: 1 }]);
    assert.deepEqual(
      events.map((e) => (e.kind === 'leadership' ? [e.partition, e.isLeader, e.leaderEpoch] : e.kind)),
      [
        [0, true, 3],
        [1, false, 4],
        [2, true, 1],
      ],
    );
    assert.deepEqual(late, ['leadership', 'leadership']);
  } finally {
    p.close();
  }
});

test('start() fails when the store cannot be read; close() stops watching', async () => {
  const store = new FakeConfigStore();
  store.failReads = true;
  const p = new MetadataPublisher({ clusterId: 'c', store });
  await assert.rejects(p.start(), { code: 'CONNECTION_LOSS' });
  p.close();
  assert.equal(store.watchers, 0);
  assert.ok(new ClusterImage('c').brokerConfigs('') !== undefined);
});
