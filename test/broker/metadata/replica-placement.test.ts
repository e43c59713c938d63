// Replica placement matches Kafka's published assignments (AdminUtils tests) for fixed starts,
// and keeps its guarantees (distinct brokers, distinct racks first, even leaders) for random ones.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { assignReplicas, type PlacementBroker } from '../../../src/broker/metadata/replica-placement.js';
import { ErrorCode, KafkaError } from '../../../src/protocol/errors.js';

const plain = (n: number): PlacementBroker[] =>
  Array.from({ length: n }, (_, i) => ({ nodeId: i, rack: null }));
const racked = (m: Record<number, string>): PlacementBroker[] =>
  Object.entries(m).map(([id, rack]) => ({ nodeId: Number(id), rack }));

test('rack-unaware placement: Kafka’s assignment for 5 brokers, 10 partitions, RF 3, start 0', () => {
  assert.deepEqual(assignReplicas(plain(5), 10, 3, { startIndex: 0 }), [
    [0, 1, 2],
    [1, 2, 3],
    [2, 3, 4],
    [3, 4, 0],
    [4, 0, 1],
    [0, 2, 3],
    [1, 3, 4],
    [2, 4, 0],
    [3, 0, 1],
    [4, 1, 2],
  ]);
});

test('rack-aware placement: racks interleaved, Kafka’s assignment for 6 brokers on 3 racks', () => {
  const brokers = racked({ 0: 'rack1', 1: 'rack3', 2: 'rack3', 3: 'rack2', 4: 'rack2', 5: 'rack1' });
  assert.deepEqual(assignReplicas(brokers, 7, 3, { startIndex: 0 }), [
    [0, 3, 1],
    [3, 1, 5],
    [1, 5, 4],
    [5, 4, 2],
    [4, 2, 0],
    [2, 0, 3],
    [0, 4, 2],
  ]);
});

test('random starts: distinct brokers per partition, every rack used, leaders spread evenly', () => {
  const brokers = racked({ 1: 'a', 2: 'a', 3: 'b', 4: 'b', 5: 'c', 6: 'c' });
  for (let seed = 0; seed < 20; seed++) {
    const a = assignReplicas(brokers, 12, 3);
    const leaders = new Map<number, number>();
    for (const replicas of a) {
      assert.equal(new Set(replicas).size, 3);
      const racks = new Set(replicas.map((id) => brokers.find((b) => b.nodeId === id)!.rack));
      assert.equal(racks.size, 3, `replicas ${replicas} span every rack`);
      leaders.set(replicas[0]!, (leaders.get(replicas[0]!) ?? 0) + 1);
    }
    assert.deepEqual([...leaders.values()], [2, 2, 2, 2, 2, 2]);
  }
});

test('CreatePartitions continues the topic: partition index and start index carry on', () => {
  const all = assignReplicas(plain(3), 6, 2, { startIndex: 1 });
  const tail = assignReplicas(plain(3), 3, 2, { startIndex: 1, firstPartition: 3 });
  assert.deepEqual(tail, all.slice(3));
});

test('replication factor above the broker count or below 1 is INVALID_REPLICATION_FACTOR', () => {
  const code = (c: number) => (e: unknown) => e instanceof KafkaError && e.code === c;
  assert.throws(() => assignReplicas(plain(2), 1, 3), code(ErrorCode.INVALID_REPLICATION_FACTOR));
  assert.throws(() => assignReplicas(plain(2), 1, 0), code(ErrorCode.INVALID_REPLICATION_FACTOR));
  assert.deepEqual(assignReplicas(plain(1), 2, 1), [[0], [0]]);
});
