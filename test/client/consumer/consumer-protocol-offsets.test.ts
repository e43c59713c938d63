// Our KIP-848 consumer reads its committed offsets with its member id and epoch (OffsetFetch
// v9, as Kafka's consumer does), so the coordinator can refuse a member that is no longer the
// current one (the retries: consumer-protocol-unit.test.ts; the broker's answers:
// migration-wire.test.ts). The broker is in process: the test watches what reaches the group
// coordinator, unchanged.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import type { TestBroker } from '../../../src/testkit/index.js';
import { broker, consumer, createTopic, pollN, produce } from './support.js';

let b: TestBroker;
before(async () => {
  b = await broker({ 'group.consumer.heartbeat.interval.ms': 200 });
});
after(async () => {
  await b?.close();
});

type Member = { memberId: string | null; memberEpoch: number } | undefined;

/** Records the member of every OffsetFetch of `groupId` that reaches the coordinator. */
function watchOffsetFetches(groupId: string): Member[] {
  const gc = b.services.groups!.coordinator;
  const original = gc.fetchOffsets.bind(gc);
  const seen: Member[] = [];
  gc.fetchOffsets = (group, topics, requireStable, member) => {
    if (group === groupId) seen.push(member);
    return original(group, topics, requireStable, member);
  };
  return seen;
}

test('OffsetFetch carries the member id and epoch of a consumer-protocol member', async () => {
  const topic = 'cp-offsets';
  const groupId = 'cp-offsets-group';
  await createTopic(b, topic, 2);
  await produce(b, topic, 10, 2);
  const seen = watchOffsetFetches(groupId);
  const first = consumer(b, { groupId, groupProtocol: 'consumer', enableAutoCommit: false });
  first.subscribe([topic]);
  assert.equal((await pollN(first, 10)).length, 10);
  const meta = first.groupMetadata();
  assert.ok(meta.generationId > 0, 'a member epoch');
  const named = seen.filter((m) => m?.memberId !== null && m?.memberId !== undefined);
  assert.ok(named.length > 0, `an OffsetFetch named the member: ${JSON.stringify(seen)}`);
  for (const m of named) {
    assert.equal(m!.memberId, meta.memberId);
    assert.ok(m!.memberEpoch > 0 && m!.memberEpoch <= meta.generationId);
  }
  await first.commitSync();
  const committed = await first.committed([
    { topic, partition: 0 },
    { topic, partition: 1 },
  ]);
  assert.deepEqual(
    committed.map((c) => c?.offset),
    [5n, 5n],
  );
  assert.equal(seen.at(-1)?.memberId, meta.memberId, 'committed() names the member too');
  await first.close();
  // A classic consumer names no member (null / -1), as Kafka's classic consumer.
  seen.length = 0;
  const classic = consumer(b, { groupId: `${groupId}-classic`, enableAutoCommit: false });
  const seenClassic = watchOffsetFetches(`${groupId}-classic`);
  classic.subscribe([topic]);
  assert.equal((await pollN(classic, 10)).length, 10);
  assert.ok(seenClassic.length > 0);
  for (const m of seenClassic) assert.ok(m === undefined || (m.memberId === null && m.memberEpoch === -1));
  await classic.close();
});
