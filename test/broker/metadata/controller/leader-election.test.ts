// Kafka's election strategies and partition-state transitions, as pure functions.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
  controlledShutdownLeader,
  electControlledShutdown,
  electOffline,
  electPreferred,
  electReassign,
  initialLeaderAndIsr,
  isUncleanElection,
  offlinePartitionLeader,
  preferredReplicaLeader,
  reassignPartitionLeader,
  reconcilePartition,
  removeFromIsr,
} from '../../../../src/broker/metadata/controller/leader-election.js';
import type { LeaderAndIsr } from '../../../../src/broker/metadata/store/records.js';

const among =
  (...ids: number[]) =>
  (id: number) =>
    ids.includes(id);

const st = (
  leader: number,
  isr: number[],
  leaderEpoch = 5,
  leaderRecoveryState: 0 | 1 = 0,
): LeaderAndIsr => ({
  leader,
  leaderEpoch,
  isr,
  controllerEpoch: 1,
  leaderRecoveryState,
});

test('offline election: first live ISR replica in assignment order; unclean only when enabled', () => {
  assert.deepEqual(offlinePartitionLeader([3, 1, 2], [1, 2], among(1, 2), false), {
    leader: 1,
    unclean: false,
  });
  assert.deepEqual(offlinePartitionLeader([3, 1, 2], [2, 1], among(1, 2, 3), false), {
    leader: 1,
    unclean: false,
  });
  assert.equal(offlinePartitionLeader([1, 2, 3], [1], among(2, 3), false), null);
  assert.deepEqual(offlinePartitionLeader([1, 2, 3], [1], among(2, 3), true), { leader: 2, unclean: true });
  assert.equal(offlinePartitionLeader([1, 2], [1], among(), true), null);
});

test('reassign, preferred and controlled-shutdown strategies', () => {
  assert.equal(reassignPartitionLeader([4, 5, 6], [1, 5, 6], among(5, 6)), 5);
  assert.equal(reassignPartitionLeader([4, 5], [1], among(4, 5)), null);
  assert.equal(preferredReplicaLeader([2, 1], [1, 2], among(1, 2)), 2);
  assert.equal(preferredReplicaLeader([2, 1], [1], among(1, 2)), null, 'preferred replica not in sync');
  assert.equal(preferredReplicaLeader([2, 1], [1, 2], among(1)), null, 'preferred replica offline');
  assert.equal(controlledShutdownLeader([1, 2, 3], [1, 2, 3], among(1, 2, 3), new Set([1])), 2);
  assert.equal(controlledShutdownLeader([1, 2, 3], [1, 3], among(1, 2, 3), new Set([1, 3])), null);
});

test('initial state: first online replica leads, online replicas form the ISR', () => {
  assert.deepEqual(initialLeaderAndIsr([3, 1, 2], among(1, 2), 7), {
    leader: 1,
    leaderEpoch: 0,
    isr: [1, 2],
    controllerEpoch: 7,
    leaderRecoveryState: 0,
  });
  assert.equal(initialLeaderAndIsr([3], among(1), 7), null);
});

test('offline transition: epoch bumped, ISR keeps its online members; unclean restarts the ISR and marks recovery', () => {
  assert.deepEqual(electOffline(st(1, [1, 2, 3]), [1, 2, 3], among(2, 3), false, 9), {
    leader: 2,
    leaderEpoch: 6,
    isr: [2, 3],
    controllerEpoch: 9,
    leaderRecoveryState: 0,
  });
  assert.equal(electOffline(st(1, [1]), [1, 2], among(2), false, 9), null);
  const unclean = electOffline(st(1, [1]), [1, 2], among(2), true, 9)!;
  assert.deepEqual(unclean, {
    leader: 2,
    leaderEpoch: 6,
    isr: [2],
    controllerEpoch: 9,
    leaderRecoveryState: 1,
  });
  assert.ok(isUncleanElection(st(1, [1]), unclean));
  assert.ok(!isUncleanElection(st(1, [1, 2]), { ...unclean, isr: [2] }));
});

test('preferred, reassign and controlled-shutdown transitions', () => {
  assert.deepEqual(electPreferred(st(2, [1, 2]), [1, 2], among(1, 2), 3), {
    leader: 1,
    leaderEpoch: 6,
    isr: [1, 2],
    controllerEpoch: 3,
    leaderRecoveryState: 0,
  });
  assert.equal(electPreferred(st(2, [2]), [1, 2], among(1, 2), 3), null);
  assert.equal(electReassign(st(1, [1, 4]), [4, 5], among(1, 4, 5), 3)!.leader, 4);
  assert.deepEqual(electControlledShutdown(st(1, [1, 2, 3]), [1, 2, 3], among(1, 2, 3), new Set([1]), 3), {
    leader: 2,
    leaderEpoch: 6,
    isr: [2, 3],
    controllerEpoch: 3,
    leaderRecoveryState: 0,
  });
  assert.equal(electControlledShutdown(st(1, [1]), [1, 2], among(1, 2), new Set([1]), 3), null);
});

test('ISR removal: the leader leaves leadership, the last ISR member stays', () => {
  assert.deepEqual(removeFromIsr(st(1, [1, 2, 3]), [2], 4), {
    leader: 1,
    leaderEpoch: 6,
    isr: [1, 3],
    controllerEpoch: 4,
    leaderRecoveryState: 0,
  });
  assert.deepEqual(removeFromIsr(st(1, [1, 2]), [1], 4)!.leader, -1);
  assert.deepEqual(
    removeFromIsr(st(1, [1, 2]), [2, 1], 4)!.isr,
    [2],
    'one at a time in id order, the last stays',
  );
  assert.deepEqual(removeFromIsr(st(1, [1]), [1], 4), { ...st(-1, [1], 6), controllerEpoch: 4 });
  assert.equal(removeFromIsr(st(-1, [1]), [1], 4), null, 'already leaderless with its last member');
  assert.equal(removeFromIsr(st(1, [1, 2]), [3], 4), null, 'not in the ISR: nothing to write');
});

test('reconcile: dead leader → offline election; dead followers leave the ISR; no change → null', () => {
  const live = among(1, 3);
  assert.deepEqual(reconcilePartition(st(2, [2, 3]), [2, 3, 1], live, live, false, 8), {
    leader: 3,
    leaderEpoch: 6,
    isr: [3],
    controllerEpoch: 8,
    leaderRecoveryState: 0,
  });
  assert.deepEqual(reconcilePartition(st(1, [1, 2]), [1, 2], live, live, false, 8)!.isr, [1]);
  assert.equal(reconcilePartition(st(1, [1, 3]), [1, 2, 3], live, live, false, 8), null);
  // No eligible leader: offline (-1), the last ISR member kept for a clean election later.
  assert.deepEqual(reconcilePartition(st(2, [2]), [2, 1], live, live, false, 8), {
    leader: -1,
    leaderEpoch: 6,
    isr: [2],
    controllerEpoch: 8,
    leaderRecoveryState: 0,
  });
  assert.equal(
    reconcilePartition(st(-1, [2]), [2, 1], live, live, false, 8),
    null,
    'still waiting: nothing to write',
  );
  assert.equal(reconcilePartition(st(-1, [2]), [2, 1], among(1, 2), among(1, 2), false, 8)!.leader, 2);
  // A live leader in controlled shutdown is not moved by a reconcile.
  assert.equal(reconcilePartition(st(1, [1, 3]), [1, 3], among(1, 3), among(3), false, 8), null);
});
