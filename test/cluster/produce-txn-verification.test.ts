// KIP-890 verification in Produce across brokers: the data partition's leader is not the
// transactional id's coordinator, so the leader asks the coordinating broker. A transactional
// write its transaction never added is refused (INVALID_TXN_STATE, nothing appended); once
// AddPartitionsToTxn added it, the write is accepted.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ErrorCode } from '../../src/protocol/errors.js';
import { listOffset } from '../broker/support/wire.js';
import { addPartitions, endTxn, initPid, produceTo, txnBatch } from '../broker/txn/txn-v2-wire-support.js';
import { scaled } from '../support/timeouts.js';
import { remoteTxnCluster } from './remote-txn-support.js';
import { leaderOf } from './support.js';

const TOPIC = 'verified-remote';
const TXN_ID = 'remote-verified-tx';
const { connect, layout } = remoteTxnCluster();

test('leader ≠ coordinator: the unadded partition is refused, the added one accepted', {
  timeout: scaled(180_000),
}, async () => {
  const { coordinator, view, remote } = await layout(TOPIC, TXN_ID);
  const partition = remote[0]!;
  const leader = await connect(leaderOf(view, TOPIC, partition));
  const coord = await connect(coordinator);
  const p = await initPid(coord, TXN_ID);
  const produce = () => produceTo(leader, 9, TXN_ID, TOPIC, partition, txnBatch(p, 0, ['v']));

  const before = await listOffset(leader, TOPIC, partition);
  const refused = await produce();
  assert.equal(refused.errorCode, ErrorCode.INVALID_TXN_STATE, String(refused.errorMessage));
  assert.equal(await listOffset(leader, TOPIC, partition), before);

  await addPartitions(coord, p, TOPIC, [partition]);
  const accepted = await produce();
  assert.equal(accepted.errorCode, ErrorCode.NONE, String(accepted.errorMessage));
  assert.equal(accepted.baseOffset, before);
  assert.equal((await endTxn(coord, 3, p, true)).errorCode, ErrorCode.NONE);
});
