// TxnOffsetCommit on the group coordinator: offsets written as a transactional batch stay
// pending (OffsetFetch RequireStable → UNSTABLE_OFFSET_COMMIT, plain fetch → the old offset)
// until a COMMIT marker through the runtime makes them visible; ABORT drops them; a reload from
// the log (records and markers in log order) rebuilds the same state.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { GroupCoordinator } from '../../../src/broker/coordinator/group/index.js';
import { InMemoryPartitionWriter, MockClock } from '../../../src/broker/coordinator/runtime/index.js';
import { ErrorCode } from '../../../src/protocol/errors.js';

const commitReq = (offset: bigint) => ({
  groupId: 'g',
  generationId: -1,
  memberId: '',
  groupInstanceId: null,
  retentionTimeMs: -1,
  topics: [{ name: 't', partitions: [{ partition: 0, offset, leaderEpoch: -1, metadata: null }] }],
});

async function setup() {
  const writer = new InMemoryPartitionWriter();
  const clock = new MockClock();
  const make = () => new GroupCoordinator({ config: { numPartitions: 1 }, writer, loader: writer, clock });
  const gc = make();
  await gc.onElection(0);
  const fetch = async (c: GroupCoordinator, requireStable: boolean) => {
    const r = await c.fetchOffsets('g', [{ name: 't', partitions: [0] }], requireStable);
    const p = r.topics[0]!.partitions[0]!;
    return { errorCode: p.errorCode, offset: p.offset };
  };
  const reload = async () => {
    gc.close();
    const fresh = make();
    await fresh.onElection(0);
    return fresh;
  };
  return { writer, gc, fetch, reload };
}

test('pending until COMMIT, dropped on ABORT, and the same after a reload from the log', async () => {
  const { writer, gc, fetch, reload } = await setup();
  await gc.commitOffsets(commitReq(5n));
  const res = await gc.commitTransactionalOffsets(commitReq(10n), { producerId: 7n, producerEpoch: 0 });
  assert.equal(res[0]!.partitions[0]!.errorCode, ErrorCode.NONE);
  assert.deepEqual(await fetch(gc, true), { errorCode: ErrorCode.UNSTABLE_OFFSET_COMMIT, offset: -1n });
  assert.deepEqual(await fetch(gc, false), { errorCode: ErrorCode.NONE, offset: 5n });
  await gc.runtime.completeTransaction(0, {
    producerId: 7n,
    producerEpoch: 0,
    coordinatorEpoch: 0,
    commit: true,
  });
  assert.deepEqual(await fetch(gc, true), { errorCode: ErrorCode.NONE, offset: 10n });

  await gc.commitTransactionalOffsets(commitReq(20n), { producerId: 7n, producerEpoch: 0 });
  await gc.runtime.completeTransaction(0, {
    producerId: 7n,
    producerEpoch: 0,
    coordinatorEpoch: 0,
    commit: false,
  });
  assert.deepEqual(await fetch(gc, true), { errorCode: ErrorCode.NONE, offset: 10n });
  // A transaction still open when the coordinator moves.
  await gc.commitTransactionalOffsets(commitReq(30n), { producerId: 8n, producerEpoch: 2 });
  assert.deepEqual(
    writer
      .entries(0)
      .map((e) =>
        writer.markers.get(0)?.has(e.offset)
          ? 'marker'
          : e.producer === undefined
            ? 'plain'
            : `tx${e.producer.producerId}`,
      ),
    ['plain', 'tx7', 'marker', 'tx7', 'marker', 'tx8'],
  );

  const again = await reload();
  assert.deepEqual(await fetch(again, false), { errorCode: ErrorCode.NONE, offset: 10n });
  assert.deepEqual(await fetch(again, true), { errorCode: ErrorCode.UNSTABLE_OFFSET_COMMIT, offset: -1n });
  await again.runtime.completeTransaction(0, {
    producerId: 8n,
    producerEpoch: 2,
    coordinatorEpoch: 0,
    commit: true,
  });
  assert.deepEqual(await fetch(again, true), { errorCode: ErrorCode.NONE, offset: 30n });
});

test('a transactional commit for a group with members needs a valid member and generation', async () => {
  const { gc } = await setup();
  const r = await gc.commitTransactionalOffsets(
    { ...commitReq(1n), generationId: 3, memberId: 'nobody' },
    { producerId: 1n, producerEpoch: 0 },
  );
  assert.equal(
    r[0]!.partitions[0]!.errorCode,
    ErrorCode.ILLEGAL_GENERATION,
    'unknown group with a generation',
  );
});
