// The broker side of LeaderAndIsr / StopReplica / UpdateMetadata without a socket: epoch
// fencing (broker epoch, controller epoch, a non-controller with an invented epoch), log
// creation and leadership transitions with Kafka's per-partition rules, replica stops and
// deletions, the fetcher hooks, and every request version's form.

import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { test } from 'node:test';
import {
  leaderAndIsrForVersion,
  stopReplicaForVersion,
} from '../../../../src/broker/metadata/controller/request-forms.js';
import { ReceiverUnavailableError } from '../../../../src/broker/metadata/controller-request-receiver.js';
import type { Partition } from '../../../../src/broker/replica/partition.js';
import type { LiveLeader, TopicPartitionRef } from '../../../../src/broker/replica/transitions.js';
import { ErrorCode } from '../../../../src/protocol/errors.js';
import type { LeaderAndIsrResponse } from '../../../../src/protocol/messages/generated/leader-and-isr.js';
import { startHarness } from './support/harness.js';
import { leaderAndIsr, stopReplica, umBroker, updateMetadata } from './support/requests.js';

const ID_A = 'AAAAAAAAAAAAAAAAAAAAAw';
const ID_B = 'AAAAAAAAAAAAAAAAAAAABA';

const codes = (r: LeaderAndIsrResponse) =>
  r.partitionErrors.map((p) => [p.topicName, p.partitionIndex, p.errorCode]);
const leadership = (events: readonly { kind: string }[]) =>
  events
    .filter(
      (
        e,
      ): e is {
        kind: 'leadership';
        topic: string;
        partition: number;
        isLeader: boolean;
        leaderEpoch: number;
      } => e.kind === 'leadership',
    )
    .map((e) => [e.topic, e.partition, e.isLeader, e.leaderEpoch]);

test('LeaderAndIsr creates the logs of new replicas with the topic configs, leads or follows, reports leadership', async () => {
  const h = await startHarness(1);
  try {
    h.store.put({ type: 'topics', name: 'a' }, { 'retention.ms': '1234', 'cleanup.policy': 'compact' });
    const res = await h.receiver.leaderAndIsr(
      leaderAndIsr({ brokerEpoch: 100n }, [
        {
          name: 'a',
          id: ID_A,
          partitions: [
            { partitionIndex: 0, leader: 1, leaderEpoch: 0, replicas: [1, 2], isr: [1, 2] },
            { partitionIndex: 1, leader: 2, leaderEpoch: 3, replicas: [2, 1], isr: [2, 1] },
            { partitionIndex: 2, leader: 3, leaderEpoch: 0, replicas: [3, 2], isr: [3, 2] },
          ],
        },
      ]),
    );
    assert.equal(res.errorCode, 0);
    assert.deepEqual(codes(res), [
      ['a', 0, 0],
      ['a', 1, 0],
      ['a', 2, ErrorCode.UNKNOWN_TOPIC_OR_PARTITION],
    ]);
    assert.deepEqual(
      res.topics.map((t) => [t.topicId, t.partitionErrors.map((p) => p.errorCode)]),
      [[ID_A, [0, 0, 3]]],
    );
    const log0 = h.logs.getLog('a', 0);
    assert.ok(log0, 'log of the led partition');
    assert.equal(log0.topicId, ID_A);
    assert.equal(log0.config.retentionMs, 1234);
    assert.equal(log0.config.cleanupPolicy, 'compact');
    assert.ok(h.logs.getLog('a', 1), 'log of the followed partition');
    assert.equal(h.logs.getLog('a', 2), undefined, 'no log where this broker is not a replica');
    const p0 = h.replicas.get('a', 0)!;
    assert.equal(p0.isLeader, true);
    assert.deepEqual([p0.leaderEpoch, p0.partitionEpoch, p0.controllerEpoch, p0.isr], [0, 0, 1, [1, 2]]);
    const p1 = h.replicas.get('a', 1)!;
    assert.equal(p1.isLeader, false);
    assert.equal(p1.leaderId, 2);
    assert.deepEqual(leadership(h.events), [['a', 0, true, 0]]);
    assert.equal(h.receiver.controllerEpoch, 1);
    // The leader accepts appends; the follower refuses them.
    await assert.rejects(p1.appendAsLeader(Buffer.alloc(0), 1, 1), {
      code: ErrorCode.NOT_LEADER_OR_FOLLOWER,
    });
  } finally {
    await h.close();
  }
});

test('per partition: equal or older leader epochs are stale, newer ones move leadership, older partition epochs are skipped', async () => {
  const h = await startHarness(1);
  try {
    const send = (leader: number, leaderEpoch: number, partitionEpoch: number, controllerEpoch = 1) =>
      h.receiver.leaderAndIsr(
        leaderAndIsr({ controllerEpoch }, [
          {
            name: 'a',
            id: ID_A,
            partitions: [
              { partitionIndex: 0, leader, leaderEpoch, partitionEpoch, replicas: [1, 2], isr: [1, 2] },
            ],
          },
        ]),
      );
    assert.deepEqual(codes(await send(1, 5, 5)), [['a', 0, 0]]);
    // A resend of the same decision (e.g. the channel retried after a lost response).
    assert.deepEqual(codes(await send(1, 5, 5)), [['a', 0, ErrorCode.STALE_CONTROLLER_EPOCH]]);
    assert.deepEqual(codes(await send(2, 4, 9)), [['a', 0, ErrorCode.STALE_CONTROLLER_EPOCH]]);
    assert.equal(h.replicas.get('a', 0)!.isLeader, true);
    // Newer epoch, another leader: this broker follows.
    assert.deepEqual(codes(await send(2, 6, 6, 2)), [['a', 0, 0]]);
    const p = h.replicas.get('a', 0)!;
    assert.deepEqual([p.isLeader, p.leaderId, p.leaderEpoch], [false, 2, 6]);
    // Newer leader epoch but an older partition epoch than the one applied: skipped, no error.
    assert.deepEqual(codes(await send(1, 7, 3, 2)), [['a', 0, 0]]);
    assert.deepEqual([p.isLeader, p.leaderEpoch], [false, 6]);
    assert.deepEqual(codes(await send(1, 8, 8, 2)), [['a', 0, 0]]);
    assert.equal(p.isLeader, true);
    assert.deepEqual(leadership(h.events), [
      ['a', 0, true, 5],
      ['a', 0, false, 6],
      ['a', 0, true, 8],
    ]);
    // A topic id that differs from the log's: another incarnation of the name.
    const other = await h.receiver.leaderAndIsr(
      leaderAndIsr({ controllerEpoch: 2 }, [
        {
          name: 'a',
          id: ID_B,
          partitions: [{ partitionIndex: 0, leader: 1, leaderEpoch: 20, replicas: [1] }],
        },
      ]),
    );
    assert.deepEqual(codes(other), [['a', 0, ErrorCode.INCONSISTENT_TOPIC_ID]]);
    assert.equal(p.leaderEpoch, 8);
  } finally {
    await h.close();
  }
});

test('the controller epoch fences whole requests: older, same epoch from another id, KRaft flag', async () => {
  const h = await startHarness(1);
  try {
    const lai = (controllerId: number, controllerEpoch: number, leaderEpoch: number) =>
      leaderAndIsr({ controllerId, controllerEpoch }, [
        { name: 'a', id: ID_A, partitions: [{ partitionIndex: 0, leader: 1, leaderEpoch }] },
        { name: 'b', id: ID_B, partitions: [{ partitionIndex: 0, leader: 1, leaderEpoch }] },
      ]);
    assert.equal((await h.receiver.leaderAndIsr(lai(3, 7, 0))).errorCode, 0);
    assert.deepEqual([h.receiver.controllerId, h.receiver.controllerEpoch], [3, 7]);
    for (const [id, epoch] of [
      [3, 6],
      [2, 7],
      [-1, 8],
    ] as const) {
      const r = await h.receiver.leaderAndIsr(lai(id, epoch, 1));
      assert.equal(r.errorCode, ErrorCode.STALE_CONTROLLER_EPOCH, `controller ${id} epoch ${epoch}`);
      assert.deepEqual(
        codes(r).map((c) => c[2]),
        [11, 11],
      );
    }
    assert.equal(h.replicas.get('a', 0)!.leaderEpoch, 0, 'nothing applied');
    const kraft = { ...lai(3, 9, 1), isKRaftController: true };
    assert.equal((await h.receiver.leaderAndIsr(kraft)).errorCode, ErrorCode.STALE_CONTROLLER_EPOCH);
    const um = updateMetadata({ controllerId: 3, controllerEpoch: 6 }, [umBroker(1)], []);
    assert.deepEqual(await h.receiver.updateMetadata(um), { errorCode: ErrorCode.STALE_CONTROLLER_EPOCH });
    assert.equal(h.publisher.image.brokers.length, 0);
    const sr = stopReplica({ controllerId: 3, controllerEpoch: 6 }, [
      { name: 'a', partitions: [{ partitionIndex: 0, deletePartition: true }] },
    ]);
    assert.deepEqual(await h.receiver.stopReplica(sr), {
      errorCode: ErrorCode.STALE_CONTROLLER_EPOCH,
      partitionErrors: [],
    });
    assert.ok(h.logs.getLog('a', 0), 'a stale StopReplica deletes nothing');
    // A newer controller takes over; the old one is fenced from then on.
    assert.equal((await h.receiver.leaderAndIsr(lai(2, 8, 1))).errorCode, 0);
    assert.equal((await h.receiver.leaderAndIsr(lai(3, 7, 2))).errorCode, ErrorCode.STALE_CONTROLLER_EPOCH);
  } finally {
    await h.close();
  }
});

test('broker epoch: older than this registration → STALE_BROKER_EPOCH; -1 and newer pass', async () => {
  const h = await startHarness(1);
  try {
    h.brokerEpoch = 100n;
    const topics = [{ name: 'a', id: ID_A, partitions: [{ partitionIndex: 0, leader: 1, leaderEpoch: 0 }] }];
    const old = await h.receiver.leaderAndIsr(leaderAndIsr({ brokerEpoch: 99n }, topics));
    assert.equal(old.errorCode, ErrorCode.STALE_BROKER_EPOCH);
    assert.deepEqual(codes(old), [['a', 0, ErrorCode.STALE_BROKER_EPOCH]]);
    assert.equal(h.logs.getLog('a', 0), undefined);
    assert.deepEqual(await h.receiver.updateMetadata(updateMetadata({ brokerEpoch: 99n }, [], [])), {
      errorCode: ErrorCode.STALE_BROKER_EPOCH,
    });
    assert.equal(
      (await h.receiver.stopReplica(stopReplica({ brokerEpoch: 1n }, []))).errorCode,
      ErrorCode.STALE_BROKER_EPOCH,
    );
    assert.equal((await h.receiver.leaderAndIsr(leaderAndIsr({ brokerEpoch: -1n }, topics))).errorCode, 0);
    const umNewer = updateMetadata({ brokerEpoch: 101n }, [umBroker(1)], []);
    assert.equal((await h.receiver.updateMetadata(umNewer)).errorCode, 0);
    assert.equal(
      h.receiver.controllerEpoch,
      1,
      'a broker-epoch rejection does not touch the controller epoch',
    );
  } finally {
    await h.close();
  }
});

test('a newer controller epoch is accepted only once verifyController confirms the sender', async () => {
  let elected = 1;
  let storeDown = false;
  const h = await startHarness(1, {
    verifyController: async (id) => {
      if (storeDown) throw new Error('store down');
      return id === elected;
    },
  });
  try {
    const um = (controllerId: number, controllerEpoch: number) =>
      updateMetadata({ controllerId, controllerEpoch }, [umBroker(1)], []);
    // A client inventing a huge epoch cannot fence the real controller.
    assert.equal(
      (await h.receiver.updateMetadata(um(7, 1_000_000))).errorCode,
      ErrorCode.STALE_CONTROLLER_EPOCH,
    );
    assert.equal(h.receiver.controllerEpoch, -1);
    assert.equal((await h.receiver.updateMetadata(um(1, 3))).errorCode, 0);
    // The store cannot confirm: transient, nothing remembered, retriable by the channel.
    storeDown = true;
    elected = 2;
    await assert.rejects(h.receiver.updateMetadata(um(2, 4)), (e: unknown) => {
      assert.ok(e instanceof ReceiverUnavailableError);
      assert.equal(e.retriable, true);
      return true;
    });
    assert.equal(h.receiver.controllerEpoch, 3);
    storeDown = false;
    assert.equal((await h.receiver.updateMetadata(um(2, 4))).errorCode, 0);
    assert.equal((await h.receiver.updateMetadata(um(1, 3))).errorCode, ErrorCode.STALE_CONTROLLER_EPOCH);
    assert.equal(h.publisher.image.controllerId, 2);
  } finally {
    await h.close();
  }
});

test('StopReplica: stop keeps the log, delete removes it (leader → lost leadership); older epochs are fenced', async () => {
  const h = await startHarness(1);
  try {
    await h.receiver.leaderAndIsr(
      leaderAndIsr({}, [
        {
          name: 'a',
          id: ID_A,
          partitions: [
            { partitionIndex: 0, leader: 1, leaderEpoch: 4, replicas: [1, 2] },
            { partitionIndex: 1, leader: 2, leaderEpoch: 4, replicas: [2, 1] },
            { partitionIndex: 2, leader: 1, leaderEpoch: 4, replicas: [1] },
          ],
        },
      ]),
    );
    const dir0 = h.logs.getLog('a', 0)!.dir;
    // A leftover log of a partition this broker no longer hosts (e.g. deleted while it was down).
    await h.logs.createLog('gone', 0, { topicId: ID_B });
    const r = await h.receiver.stopReplica(
      stopReplica({}, [
        {
          name: 'a',
          partitions: [
            { partitionIndex: 0, leaderEpoch: 4, deletePartition: true },
            { partitionIndex: 1, leaderEpoch: 5, deletePartition: false },
            { partitionIndex: 2, leaderEpoch: 3, deletePartition: true },
          ],
        },
        { name: 'gone', partitions: [{ partitionIndex: 0, leaderEpoch: -2, deletePartition: true }] },
        { name: 'never', partitions: [{ partitionIndex: 0, deletePartition: false }] },
      ]),
    );
    assert.equal(r.errorCode, 0);
    assert.deepEqual(
      r.partitionErrors.map((p) => [p.topicName, p.partitionIndex, p.errorCode]),
      [
        ['a', 0, 0],
        ['a', 1, 0],
        ['a', 2, ErrorCode.FENCED_LEADER_EPOCH],
        ['gone', 0, 0],
        ['never', 0, 0],
      ],
    );
    assert.equal(h.replicas.get('a', 0), undefined);
    assert.equal(h.logs.getLog('a', 0), undefined);
    assert.equal(existsSync(dir0), false, 'the partition directory is gone');
    assert.ok(h.replicas.get('a', 1), 'a stopped (not deleted) replica stays');
    assert.ok(h.logs.getLog('a', 1));
    assert.ok(h.replicas.get('a', 2), 'fenced: untouched');
    assert.equal(h.logs.getLog('gone', 0), undefined, 'leftover log deleted');
    assert.deepEqual(leadership(h.events), [
      ['a', 0, true, 4],
      ['a', 2, true, 4],
      ['a', 0, false, 4],
    ]);
    // Delete during a topic deletion (-2) bypasses the epoch check.
    const d = await h.receiver.stopReplica(
      stopReplica({}, [
        { name: 'a', partitions: [{ partitionIndex: 2, leaderEpoch: -2, deletePartition: true }] },
      ]),
    );
    assert.deepEqual(
      d.partitionErrors.map((p) => p.errorCode),
      [0],
    );
    assert.equal(h.logs.getLog('a', 2), undefined);
  } finally {
    await h.close();
  }
});

test('a topic config the store cannot give fails the LeaderAndIsr with nothing applied (retriable)', async () => {
  const h = await startHarness(1);
  try {
    const req = leaderAndIsr({}, [
      { name: 'a', id: ID_A, partitions: [{ partitionIndex: 0, leader: 1, leaderEpoch: 0 }] },
    ]);
    h.store.failReads = true;
    await assert.rejects(h.receiver.leaderAndIsr(req), (e: unknown) => e instanceof ReceiverUnavailableError);
    assert.equal(h.logs.getLog('a', 0), undefined);
    assert.equal(h.replicas.get('a', 0), undefined);
    h.store.failReads = false;
    assert.deepEqual(codes(await h.receiver.leaderAndIsr(req)), [['a', 0, 0]]);
  } finally {
    await h.close();
  }
});

test('invalid topic names and partition indexes are answered per partition, the rest applies', async () => {
  const h = await startHarness(1);
  try {
    const r = await h.receiver.leaderAndIsr(
      leaderAndIsr({}, [
        { name: '../escape', id: ID_A, partitions: [{ partitionIndex: 0, leader: 1, leaderEpoch: 0 }] },
        { name: 'ok', id: ID_B, partitions: [{ partitionIndex: -1, leader: 1, leaderEpoch: 0 }] },
        { name: 'ok', id: ID_B, partitions: [{ partitionIndex: 1, leader: 1, leaderEpoch: 0 }] },
        { name: '', id: ID_B, partitions: [{ partitionIndex: 0, leader: 1, leaderEpoch: 0 }] },
      ]),
    );
    assert.deepEqual(codes(r), [
      ['../escape', 0, ErrorCode.INVALID_TOPIC_EXCEPTION],
      ['ok', -1, ErrorCode.UNKNOWN_TOPIC_OR_PARTITION],
      ['ok', 1, 0],
      ['', 0, ErrorCode.INVALID_TOPIC_EXCEPTION],
    ]);
    assert.deepEqual(
      h.logs.allLogs().map((l) => `${l.topic}-${l.partition}`),
      ['ok-1'],
    );
    const s = await h.receiver.stopReplica(
      stopReplica({}, [{ name: '..', partitions: [{ partitionIndex: 0, deletePartition: true }] }]),
    );
    assert.deepEqual(
      s.partitionErrors.map((p) => p.errorCode),
      [ErrorCode.INVALID_TOPIC_EXCEPTION],
    );
  } finally {
    await h.close();
  }
});

test('fetcher hooks: followers are handed over with the live leaders, leaders and stopped replicas stop fetching', async () => {
  const h = await startHarness(1);
  try {
    const followed: string[] = [];
    const removed: string[] = [];
    let leaders: readonly LiveLeader[] = [];
    h.replicas.setReplicaFetcherHooks({
      onBecomeFollower(partitions: readonly Partition[], live) {
        followed.push(...partitions.map((p) => `${p.topic}-${p.index}@${p.leaderId}/${p.leaderEpoch}`));
        leaders = live;
      },
      removeFetchers(partitions: readonly TopicPartitionRef[]) {
        removed.push(...partitions.map((p) => `${p.topic}-${p.partition}`));
      },
    });
    const req = leaderAndIsr({}, [
      {
        name: 'a',
        id: ID_A,
        partitions: [
          { partitionIndex: 0, leader: 1, leaderEpoch: 1, replicas: [1, 2] },
          { partitionIndex: 1, leader: 2, leaderEpoch: 1, replicas: [2, 1] },
        ],
      },
    ]);
    req.liveLeaders = [{ brokerId: 2, hostName: 'b2', port: 9092 }];
    await h.receiver.leaderAndIsr(req);
    assert.deepEqual(followed, ['a-1@2/1']);
    assert.deepEqual(leaders, [{ brokerId: 2, hostName: 'b2', port: 9092 }]);
    assert.deepEqual(removed, ['a-0']);
    await h.receiver.stopReplica(stopReplica({}, [{ name: 'a', partitions: [{ partitionIndex: 1 }] }]));
    assert.deepEqual(removed, ['a-0', 'a-1']);
    // A hook that throws is logged, never fails the request.
    h.replicas.setReplicaFetcherHooks({
      onBecomeFollower() {
        throw new Error('boom');
      },
    });
    const r = await h.receiver.leaderAndIsr(
      leaderAndIsr({}, [
        {
          name: 'a',
          id: ID_A,
          partitions: [{ partitionIndex: 0, leader: 2, leaderEpoch: 2, replicas: [1, 2] }],
        },
      ]),
    );
    assert.deepEqual(codes(r), [['a', 0, 0]]);
  } finally {
    await h.close();
  }
});

test('old request forms (LeaderAndIsr v0-1 ungrouped, StopReplica v0 and v1) mean the same', async () => {
  const h = await startHarness(1);
  try {
    const req = leaderAndIsr({}, [
      { name: 'a', id: ID_A, partitions: [{ partitionIndex: 0, leader: 1, leaderEpoch: 0 }] },
      { name: 'b', id: ID_B, partitions: [{ partitionIndex: 3, leader: 1, leaderEpoch: 0 }] },
    ]);
    const v1 = leaderAndIsrForVersion(req, 1);
    assert.equal(v1.topicStates.length, 0);
    assert.deepEqual(
      v1.ungroupedPartitionStates.map((s) => [s.topicName, s.partitionIndex]),
      [
        ['a', 0],
        ['b', 3],
      ],
    );
    const r = await h.receiver.leaderAndIsr(v1);
    assert.deepEqual(codes(r), [
      ['a', 0, 0],
      ['b', 3, 0],
    ]);
    assert.equal(h.logs.getLog('b', 3)!.topicId, 'AAAAAAAAAAAAAAAAAAAAAA', 'v0-4 carry no topic id');
    const sr = stopReplica({}, [
      { name: 'a', partitions: [{ partitionIndex: 0, deletePartition: true }] },
      { name: 'b', partitions: [{ partitionIndex: 3, deletePartition: true }] },
    ]);
    const v0 = stopReplicaForVersion(sr, 0);
    assert.equal(v0.deletePartitions, true);
    assert.deepEqual(
      v0.ungroupedPartitions.map((p) => [p.topicName, p.partitionIndex]),
      [
        ['a', 0],
        ['b', 3],
      ],
    );
    const v1s = stopReplicaForVersion({ ...sr, topicStates: [sr.topicStates[0]!] }, 1);
    assert.deepEqual(v1s.topics, [{ name: 'a', partitionIndexes: [0] }]);
    assert.deepEqual(
      (await h.receiver.stopReplica(v1s)).partitionErrors.map((p) => p.errorCode),
      [0],
    );
    assert.equal(h.logs.getLog('a', 0), undefined);
    assert.deepEqual(
      (await h.receiver.stopReplica(v0)).partitionErrors.map((p) => [p.topicName, p.errorCode]),
      [
        ['a', 0],
        ['b', 0],
      ],
    );
    assert.equal(h.logs.getLog('b', 3), undefined);
  } finally {
    await h.close();
  }
});
