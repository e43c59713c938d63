// A leader fenced because its metadata-store session was lost or expired (Partition.fence, set by
// metadata/session-guard.ts): what lifts the fence. A LeaderAndIsr at the same leader epoch naming
// this broker leader confirms the leadership only when the controller sent it for a registration
// newer than the one the fence was set under — never one for the registration in force while the
// broker was cut off (another controller may have moved the leadership meanwhile), nor one
// without a broker epoch. The cluster case: test/cluster/session-expiry.test.ts.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ErrorCode } from '../../../src/protocol/errors.js';
import { batch } from '../../storage/helpers.js';
import { SimBroker, SimEnv } from './support/sim.js';

test('a fenced leader is confirmed only by a same-epoch leadership sent for a newer registration', async () => {
  const l = await SimBroker.start(1, new SimEnv());
  try {
    l.become(1, 4, [1, 2, 3]);
    await l.write('a');
    l.partition.fence(100n);
    assert.equal(l.partition.fenced, true);
    await assert.rejects(
      l.partition.appendAsLeader(batch(1, 'x', { values: ['refused'] }), 1, 1),
      (e: { code?: number }) => e.code === ErrorCode.NOT_LEADER_OR_FOLLOWER,
    );
    assert.equal(l.partition.confirmsLeadership(1, 4, 100n), false, 'the registration it was fenced under');
    assert.equal(l.partition.confirmsLeadership(1, 4, 99n), false, 'an older registration');
    assert.equal(l.partition.confirmsLeadership(1, 4, -1n), false, 'no broker epoch');
    assert.equal(l.partition.confirmsLeadership(2, 4, 120n), false, 'another leader');
    assert.equal(l.partition.confirmsLeadership(1, 3, 120n), false, 'an older leader epoch');
    assert.equal(l.partition.confirmsLeadership(1, 4, 120n), true);
    l.partition.unfence();
    await l.write('b');
    assert.equal(l.log.logEndOffset, 2n);
    assert.equal(l.partition.confirmsLeadership(1, 4, 120n), false, 'nothing to confirm once unfenced');
    // Fenced again after another expiry (registration 120 lost too): 120 no longer confirms.
    l.partition.fence(100n);
    l.partition.fence(120n);
    l.partition.fence(110n);
    assert.equal(l.partition.confirmsLeadership(1, 4, 120n), false, 'the registration lost since');
    assert.equal(l.partition.confirmsLeadership(1, 4, 121n), true);
    // A newer leader epoch lifts the fence as any LeaderAndIsr does.
    l.partition.fence(120n);
    l.become(1, 5, [1, 2, 3]);
    assert.equal(l.partition.fenced, false);
  } finally {
    await l.close();
  }
});

test('a follower has no leadership to confirm', async () => {
  const f = await SimBroker.start(2, new SimEnv());
  try {
    f.become(1, 4, [1, 2, 3]);
    f.partition.fence(100n);
    assert.equal(f.partition.confirmsLeadership(1, 4, 120n), false);
    assert.equal(f.partition.confirmsLeadership(2, 4, 120n), false);
  } finally {
    await f.close();
  }
});
