// Replication between real brokers in this process (one in-memory metadata service, loopback
// sockets): followers copy their leader batch for batch, the high watermark never passes what the
// followers have, acks=all waits for the ISR (min.insync.replicas, NOT_ENOUGH_REPLICAS,
// NOT_ENOUGH_REPLICAS_AFTER_APPEND), a follower that stops fetching leaves the ISR after
// replica.lag.time.max.ms and comes back once it catches up, a leader failover keeps the logs
// identical. See support/cluster.ts.

import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { BrokerHandle } from '../../../src/broker/broker.js';
import type { Partition } from '../../../src/broker/replica/partition.js';
import { ErrorCode } from '../../../src/protocol/errors.js';
import { findCoordinatorApi } from '../../../src/protocol/messages/generated/find-coordinator.js';
import { offsetCommitApi } from '../../../src/protocol/messages/generated/offset-commit.js';
import { offsetFetchApi } from '../../../src/protocol/messages/generated/offset-fetch.js';
import { iterateBatches } from '../../../src/protocol/record-batch/iterate.js';
import type { PartitionLog } from '../../../src/storage/index.js';
import { batch } from '../../storage/helpers.js';
import { RawClient } from '../support/raw-client.js';
import { fetchOnce } from '../support/wire.js';
import { InProcessCluster, produceTo, waitUntil } from './support/cluster.js';

async function createTopic(
  b: BrokerHandle,
  name: string,
  replicas: number[],
  configs: Record<string, string> = {},
): Promise<void> {
  await b.services.commands.createTopic({
    name,
    numPartitions: -1,
    replicationFactor: -1,
    assignments: [{ partitionIndex: 0, brokerIds: replicas }],
    configs,
  });
}

/** Every batch of a log up to its log end offset, as bytes. */
async function batches(log: PartitionLog): Promise<Buffer[]> {
  const out: Buffer[] = [];
  let offset = log.logStartOffset;
  while (offset < log.logEndOffset) {
    const r = await log.read(offset, { maxBytes: 1 << 20, upperBound: 'leo', minOneBatch: true });
    if (r.records.length === 0) break;
    for (const b of iterateBatches(r.records)) {
      const bytes = Buffer.from(r.records.subarray(b.position, b.position + b.size));
      out.push(bytes);
      offset = bytes.readBigInt64BE(0) + BigInt(bytes.readInt32BE(23)) + 1n;
    }
  }
  return out;
}

async function assertSameLog(a: PartitionLog, b: PartitionLog): Promise<void> {
  const [x, y] = [await batches(a), await batches(b)];
  assert.equal(x.length, y.length, 'same number of batches');
  x.forEach((bytes, i) => {
    assert.ok(bytes.equals(y[i]!), `batch ${i} differs`);
  });
}

const values = (prefix: string, n: number) => Array.from({ length: n }, (_, i) => `${prefix}-${i}`);

test('a follower copies its leader batch for batch; the HW never passes it; acks=all answers once it has the batch', async () => {
  const c = await InProcessCluster.start([1, 2], { 'replica.fetch.backoff.ms': 100 });
  try {
    const b1 = c.broker(1);
    await createTopic(b1, 'r', [1, 2]);
    await waitUntil('the leader on 1, the follower on 2', () => {
      const l = c.partition(1, 'r');
      const f = c.partition(2, 'r');
      return l?.isLeader === true && f !== undefined && f.leaderId === 1;
    });
    const leader = c.partition(1, 'r')!;
    const follower = c.partition(2, 'r')!;
    assert.deepEqual([...leader.isr].sort(), [1, 2]);
    const violations: string[] = [];
    const off = leader.log.onAppend(() => {
      if (leader.log.highWatermark > follower.log.logEndOffset)
        violations.push(`HW ${leader.log.highWatermark} > follower LEO ${follower.log.logEndOffset}`);
    });
    try {
      for (let i = 0; i < 20; i++) {
        const r = await produceTo(b1, 'r', 0, batch(5, 'x', { values: values(`b${i}`, 5) }), 1);
        assert.equal(r.errorCode, ErrorCode.NONE);
      }
      await waitUntil(
        'the follower has everything and the HW reached the end',
        () =>
          follower.log.logEndOffset === 100n &&
          leader.log.highWatermark === 100n &&
          follower.log.highWatermark === 100n,
        60_000,
        () =>
          `leader LEO ${leader.log.logEndOffset} HW ${leader.log.highWatermark}, follower LEO ${follower.log.logEndOffset} HW ${follower.log.highWatermark}`,
      );
      await assertSameLog(leader.log, follower.log);
      for (let i = 0; i < 5; i++) {
        const r = await produceTo(b1, 'r', 0, batch(3, 'x', { values: values(`all${i}`, 3) }), -1);
        assert.equal(r.errorCode, ErrorCode.NONE);
        assert.equal(r.baseOffset, 100n + 3n * BigInt(i));
        assert.ok(
          follower.log.logEndOffset >= r.baseOffset + 3n,
          'the follower had the batch when acks=all answered',
        );
        assert.ok(leader.log.highWatermark >= r.baseOffset + 3n);
      }
    } finally {
      off();
    }
    assert.deepEqual(violations, []);
    await waitUntil('the follower at the end', () => follower.log.logEndOffset === 115n);
    await assertSameLog(leader.log, follower.log);
  } finally {
    await c.close();
  }
});

test('a follower that stops fetching leaves the ISR after replica.lag.time.max.ms; acks=all and min.insync.replicas follow; it returns once caught up', async () => {
  const c = await InProcessCluster.start([1, 2], {
    'replica.fetch.backoff.ms': 100,
    'replica.lag.time.max.ms': 4000,
  });
  let raw: RawClient | null = null;
  try {
    const b1 = c.broker(1);
    await c.addFakeBroker(3);
    await waitUntil('broker 3 known to the cluster', () => b1.services.image.broker(3) !== undefined);
    await createTopic(b1, 's', [1, 2, 3], { 'min.insync.replicas': '3' });
    // Led by broker 2, whose AlterPartition goes over the wire to the controller (broker 1).
    await createTopic(b1, 'remote', [2, 1, 3]);
    await waitUntil('leader on 1', () => c.partition(1, 's')?.isLeader === true);
    const leader: Partition = c.partition(1, 's')!;
    assert.deepEqual([...leader.isr].sort(), [1, 2, 3]);
    // Broker 3 never fetches: the HW cannot pass 0 until the leader drops it from the ISR, which
    // leaves 2 < min.insync.replicas members.
    const started = Date.now();
    const r1 = await produceTo(b1, 's', 0, batch(2, 'x', { values: values('a', 2) }), -1, 120_000);
    assert.equal(r1.errorCode, ErrorCode.NOT_ENOUGH_REPLICAS_AFTER_APPEND);
    assert.ok(Date.now() - started >= 1000, 'answered only after the ISR shrank');
    assert.deepEqual([...leader.isr].sort(), [1, 2]);
    await waitUntil('the cluster sees ISR {1, 2}', () => {
      const p = c.broker(2).services.image.topic('s')?.partitions[0];
      return p !== undefined && [...p.isr].sort().join() === '1,2';
    });
    assert.equal(leader.log.highWatermark, 2n, 'committed by the remaining ISR');
    await waitUntil('broker 2 dropped 3 from its partition through the remote controller', () => {
      const p = c.partition(2, 'remote');
      return p?.isLeader === true && [...p.isr].sort().join() === '1,2' && !p.isrChangePending;
    });
    assert.equal(c.broker(2).services.image.controllerId, 1, 'the controller is another broker');
    const r2 = await produceTo(b1, 's', 0, batch(1, 'x', { values: ['b'] }), -1);
    assert.equal(r2.errorCode, ErrorCode.NOT_ENOUGH_REPLICAS);
    assert.equal(leader.log.logEndOffset, 2n, 'rejected before the append');
    assert.equal(
      (await produceTo(b1, 's', 0, batch(1, 'x', { values: ['c'] }), 1)).errorCode,
      ErrorCode.NONE,
    );
    await b1.services.commands.setTopicConfigs('s', { 'min.insync.replicas': '2' }, false);
    assert.equal(
      (await produceTo(b1, 's', 0, batch(1, 'x', { values: ['d'] }), -1)).errorCode,
      ErrorCode.NONE,
    );

    // Broker 3 catches up (a fetch at the leader's log end): back in the ISR.
    raw = await RawClient.connect(b1.port);
    const r = await fetchOnce(raw, 's', 0, leader.log.logEndOffset, {
      version: 12,
      replicaId: 3,
      maxBytes: 1 << 20,
      currentLeaderEpoch: leader.leaderEpoch,
      logStartOffset: 0n,
    });
    assert.equal(r.errorCode, ErrorCode.NONE);
    await waitUntil('broker 3 back in the ISR', () => [...leader.isr].sort().join() === '1,2,3');
    // It stops again: acks=all waits for it, then for the shrink, and is accepted (ISR 2 ≥ 2).
    const r3 = await produceTo(b1, 's', 0, batch(1, 'x', { values: ['e'] }), -1, 120_000);
    assert.equal(r3.errorCode, ErrorCode.NONE);
    assert.deepEqual([...leader.isr].sort(), [1, 2]);
  } finally {
    raw?.close();
    await c.close();
  }
});

test('leader failover: the follower takes over with everything acknowledged, the old leader returns as follower and catches up', async () => {
  const c = await InProcessCluster.start([1, 2], { 'replica.fetch.backoff.ms': 100 });
  try {
    await createTopic(c.broker(1), 'f', [1, 2]);
    await waitUntil(
      'leader on 1, follower on 2',
      () => c.partition(2, 'f')?.leaderId === 1 && c.partition(1, 'f')?.isLeader === true,
    );
    await waitUntil('ISR {1, 2} on the leader', () => c.partition(1, 'f')!.isr.length === 2);
    for (let i = 0; i < 10; i++) {
      const r = await produceTo(c.broker(1), 'f', 0, batch(2, 'x', { values: values(`a${i}`, 2) }), -1);
      assert.equal(r.errorCode, ErrorCode.NONE);
    }
    await c.stop(1);
    await waitUntil('broker 2 leads', () => c.partition(2, 'f')?.isLeader === true);
    const p2 = c.partition(2, 'f')!;
    assert.ok(p2.log.logEndOffset >= 20n, 'every acknowledged record is on the new leader');
    for (let i = 0; i < 5; i++) {
      const r = await produceTo(c.broker(2), 'f', 0, batch(2, 'x', { values: values(`b${i}`, 2) }), 1);
      assert.equal(r.errorCode, ErrorCode.NONE);
    }
    await c.start(1);
    await waitUntil('broker 1 follows 2 and has caught up', () => {
      const p1 = c.partition(1, 'f');
      return p1 !== undefined && !p1.isLeader && p1.log.logEndOffset === p2.log.logEndOffset;
    });
    await assertSameLog(p2.log, c.partition(1, 'f')!.log);
    await waitUntil('broker 1 back in the ISR', () => p2.isr.includes(1));
  } finally {
    await c.close();
  }
});

test('__consumer_offsets with RF 2: a commit is answered once the follower has it, and reads back', async () => {
  const c = await InProcessCluster.start([1, 2], {
    'replica.fetch.backoff.ms': 100,
    'offsets.topic.num.partitions': 1,
  });
  const clients: RawClient[] = [];
  try {
    await createTopic(c.broker(1), 'o', [1, 2]);
    const raw = await RawClient.connect(c.broker(1).port);
    clients.push(raw);
    let coordinator = -1;
    await waitUntil('a group coordinator', async () => {
      const r = await raw.request(findCoordinatorApi, 3, { key: 'g', keyType: 0, coordinatorKeys: [] });
      coordinator = r.nodeId;
      return r.errorCode === ErrorCode.NONE;
    });
    const followerId = coordinator === 1 ? 2 : 1;
    await waitUntil(
      '__consumer_offsets-0 led by the coordinator, followed by the other',
      () =>
        c.partition(coordinator, '__consumer_offsets')?.isLeader === true &&
        c.partition(followerId, '__consumer_offsets')?.leaderId === coordinator,
    );
    const leader = c.partition(coordinator, '__consumer_offsets')!;
    assert.deepEqual([...leader.replicas].sort(), [1, 2]);
    const co = await RawClient.connect(c.broker(coordinator).port);
    clients.push(co);
    let committed = -1;
    await waitUntil('the commit accepted (the coordinator has loaded)', async () => {
      const r = await co.request(offsetCommitApi, 8, {
        groupId: 'g',
        generationIdOrMemberEpoch: -1,
        memberId: '',
        groupInstanceId: null,
        retentionTimeMs: -1n,
        topics: [
          {
            name: 'o',
            partitions: [
              {
                partitionIndex: 0,
                committedOffset: 42n,
                committedLeaderEpoch: -1,
                commitTimestamp: -1n,
                committedMetadata: null,
              },
            ],
          },
        ],
      });
      committed = r.topics[0]!.partitions[0]!.errorCode;
      return committed === ErrorCode.NONE;
    });
    const follower = c.partition(followerId, '__consumer_offsets')!;
    assert.ok(leader.log.highWatermark > 0n);
    assert.ok(
      follower.log.logEndOffset >= leader.log.highWatermark,
      'the follower had the commit when it was answered',
    );
    const f = await co.request(offsetFetchApi, 7, {
      groupId: 'g',
      topics: [{ name: 'o', partitionIndexes: [0] }],
      groups: [],
      requireStable: false,
    });
    assert.equal(f.topics[0]!.partitions[0]!.committedOffset, 42n);
  } finally {
    for (const r of clients) r.close();
    await c.close();
  }
});
