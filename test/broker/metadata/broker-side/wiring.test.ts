// From the receiver's transitions to the coordinators and the logs: leadership events load and
// unload an internal topic's coordinator partitions (InternalTopic.onLeadershipChange), config
// events reach the logs (followPublisher).

import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
  InternalTopic,
  type InternalTopicDeps,
  type PartitionedCoordinator,
} from '../../../../src/broker/coordinator/runtime/internal-topic.js';
import { silentLogger } from '../../../../src/broker/logger.js';
import { followPublisher } from '../../../../src/broker/metadata/publisher-wiring.js';
import { startHarness } from './support/harness.js';
import { leaderAndIsr, stopReplica, umBroker, updateMetadata } from './support/requests.js';

const OFFSETS_ID = 'AAAAAAAAAAAAAAAAAAAAEQ';

/** A coordinator whose loads finish when the test says so. */
function fakeCoordinator() {
  const status = new Map<number, 'loading' | 'active'>();
  const log: string[] = [];
  const coordinator: PartitionedCoordinator = {
    runtime: {
      status: (p) => status.get(p),
      partitions: () => [...status.keys()],
    },
    partitionFor: () => 0,
    async onElection(p) {
      log.push(`elect-${p}`);
      status.set(p, 'loading');
      await new Promise((r) => setImmediate(r));
      status.set(p, 'active');
    },
    onResignation(p) {
      log.push(`resign-${p}`);
      status.delete(p);
    },
  };
  return { coordinator, status, log };
}

function internalTopic(name: string, coordinator: PartitionedCoordinator): InternalTopic {
  const deps = {
    config: { nodeId: 1 },
    image: { topic: () => undefined },
    controller: { onChange() {} },
    logger: silentLogger,
  } as unknown as InternalTopicDeps;
  return new InternalTopic(name, deps, coordinator, () => {
    throw new Error('not used');
  });
}

test('InternalTopic.onLeadershipChange loads on a gain (once), unloads on a loss', async () => {
  const { coordinator, status, log } = fakeCoordinator();
  const topic = internalTopic('__consumer_offsets', coordinator);
  topic.onLeadershipChange(3, true, 1);
  topic.onLeadershipChange(3, true, 2); // loading already
  assert.deepEqual(log, ['elect-3']);
  await new Promise((r) => setImmediate(r));
  assert.equal(status.get(3), 'active');
  topic.onLeadershipChange(4, false, 1); // never loaded: nothing to do
  topic.onLeadershipChange(3, false, 3);
  assert.deepEqual(log, ['elect-3', 'resign-3']);
  topic.onLeadershipChange(3, true, 4);
  assert.deepEqual(log, ['elect-3', 'resign-3', 'elect-3']);
});

test('followPublisher: LeaderAndIsr/StopReplica leadership drives the coordinator, config events reach the logs', async () => {
  const h = await startHarness(1);
  const { coordinator, log } = fakeCoordinator();
  const topic = internalTopic('__consumer_offsets', coordinator);
  const stop = followPublisher(h.publisher, { replicas: h.replicas, internalTopics: [topic] });
  try {
    await h.receiver.leaderAndIsr(
      leaderAndIsr({}, [
        {
          name: '__consumer_offsets',
          id: OFFSETS_ID,
          partitions: [
            { partitionIndex: 0, leader: 1, leaderEpoch: 0, replicas: [1, 2] },
            { partitionIndex: 1, leader: 2, leaderEpoch: 0, replicas: [2, 1] },
          ],
        },
        {
          name: 'plain',
          id: 'AAAAAAAAAAAAAAAAAAAAAw',
          partitions: [{ partitionIndex: 0, leader: 1, leaderEpoch: 0 }],
        },
      ]),
    );
    assert.deepEqual(log, ['elect-0']);
    // Leadership moves to broker 2: unloaded here.
    await h.receiver.leaderAndIsr(
      leaderAndIsr({}, [
        {
          name: '__consumer_offsets',
          id: OFFSETS_ID,
          partitions: [{ partitionIndex: 0, leader: 2, leaderEpoch: 1, replicas: [1, 2] }],
        },
      ]),
    );
    assert.deepEqual(log, ['elect-0', 'resign-0']);
    await h.receiver.leaderAndIsr(
      leaderAndIsr({}, [
        {
          name: '__consumer_offsets',
          id: OFFSETS_ID,
          partitions: [{ partitionIndex: 1, leader: 1, leaderEpoch: 1, replicas: [2, 1] }],
        },
      ]),
    );
    await new Promise((r) => setImmediate(r));
    await h.receiver.stopReplica(
      stopReplica({}, [
        {
          name: '__consumer_offsets',
          partitions: [{ partitionIndex: 1, leaderEpoch: -2, deletePartition: true }],
        },
      ]),
    );
    assert.deepEqual(log, ['elect-0', 'resign-0', 'elect-1', 'resign-1']);

    // Configs: the topic's overrides reach its logs when it appears and when they change.
    // Changed (and notified) after LeaderAndIsr created the log, before UpdateMetadata announced the topic.
    h.store.set({ type: 'topics', name: 'plain' }, { 'retention.ms': '111' });
    await h.receiver.updateMetadata(
      updateMetadata(
        {},
        [umBroker(1)],
        [{ name: 'plain', id: 'AAAAAAAAAAAAAAAAAAAAAw', partitions: [{ partitionIndex: 0, leader: 1 }] }],
      ),
    );
    assert.equal(
      h.logs.getLog('plain', 0)!.config.retentionMs,
      111,
      'changed between LeaderAndIsr and UpdateMetadata',
    );
    h.store.set({ type: 'topics', name: 'plain' }, { 'retention.ms': '222' });
    assert.equal(
      await h.publisher.waitFor(() => h.publisher.topic('plain')?.configs['retention.ms'] === '222', 1000),
      true,
    );
    assert.equal(h.logs.getLog('plain', 0)!.config.retentionMs, 222);
  } finally {
    stop();
    await h.close();
  }
});
