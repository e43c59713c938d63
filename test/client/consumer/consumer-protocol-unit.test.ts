// KIP-848 client pieces without a broker: which ConsumerGroupHeartbeat fields are sent when
// (everything on a join and after a reset, then only changes; the owned set again whenever the
// local assignment changes), JavaScript patterns rewritten to the whole-name RE2 form the
// coordinator evaluates, the groupProtocol options, and OffsetFetch with the member epoch.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { resolveConsumerOptions } from '../../../src/client/consumer/consumer-config.js';
import {
  HeartbeatFields,
  type HeartbeatView,
  newMemberId,
} from '../../../src/client/consumer/consumer-protocol-heartbeat.js';
import type { GroupRpc } from '../../../src/client/consumer/group-rpc.js';
import type { Membership } from '../../../src/client/consumer/membership.js';
import { GroupOffsets } from '../../../src/client/consumer/offsets.js';
import { toRe2TopicRegex } from '../../../src/client/consumer/topic-regex.js';
import { ConfigError, KafkaResponseError } from '../../../src/client/errors.js';
import { ErrorCode } from '../../../src/protocol/errors.js';

const view = (over: Partial<HeartbeatView> = {}): HeartbeatView => ({
  groupId: 'g',
  memberId: 'm',
  memberEpoch: 0,
  instanceId: null,
  rackId: 'r1',
  rebalanceTimeoutMs: 300000,
  topics: ['a', 'b'],
  regex: null,
  serverAssignor: 'range',
  owned: { localEpoch: 0, partitions: new Map() },
  ...over,
});

test('heartbeat fields: all on join, then only what changed; all again after a reset', () => {
  const f = new HeartbeatFields();
  const join = f.build(view());
  assert.equal(join.memberEpoch, 0);
  assert.equal(join.rebalanceTimeoutMs, 300000);
  assert.deepEqual(join.subscribedTopicNames, ['a', 'b']);
  assert.equal(join.serverAssignor, 'range');
  assert.equal(join.rackId, 'r1');
  assert.deepEqual(join.topicPartitions, []);

  const steady = f.build(view({ memberEpoch: 3 }));
  assert.equal(steady.rebalanceTimeoutMs, -1);
  assert.equal(steady.subscribedTopicNames, null);
  assert.equal(steady.serverAssignor, null);
  assert.equal(steady.rackId, null);
  assert.equal(steady.topicPartitions, null);

  const owned = new Map([['topicIdA', [2, 0]]]);
  const ack = f.build(view({ memberEpoch: 3, owned: { localEpoch: 1, partitions: owned } }));
  assert.deepEqual(ack.topicPartitions, [{ topicId: 'topicIdA', partitions: [2, 0] }]);
  assert.equal(
    f.build(view({ memberEpoch: 3, owned: { localEpoch: 1, partitions: owned } })).topicPartitions,
    null,
  );
  // A new assignment with the same partitions is acknowledged again (local epoch changed).
  assert.notEqual(
    f.build(view({ memberEpoch: 4, owned: { localEpoch: 2, partitions: owned } })).topicPartitions,
    null,
  );

  const changed = f.build(
    view({ memberEpoch: 4, topics: ['a'], owned: { localEpoch: 2, partitions: owned } }),
  );
  assert.deepEqual(changed.subscribedTopicNames, ['a']);

  f.reset();
  const again = f.build(view({ memberEpoch: 4, topics: ['a'], owned: { localEpoch: 2, partitions: owned } }));
  assert.equal(again.rebalanceTimeoutMs, 300000);
  assert.deepEqual(again.subscribedTopicNames, ['a']);
  assert.equal(again.serverAssignor, 'range');
  assert.deepEqual(again.topicPartitions, [{ topicId: 'topicIdA', partitions: [2, 0] }]);
});

test('heartbeat fields: a static member always sends its instance id; a regex replaces topic names', () => {
  const f = new HeartbeatFields();
  const v = view({ instanceId: 'i-1', topics: null, regex: '.*(?:orders).*' });
  const join = f.build(v);
  assert.equal(join.instanceId, 'i-1');
  assert.equal(join.subscribedTopicNames, null);
  assert.equal(join.subscribedTopicRegex, '.*(?:orders).*');
  const next = f.build({ ...v, memberEpoch: 2 });
  assert.equal(next.instanceId, 'i-1');
  assert.equal(next.subscribedTopicRegex, null);
});

test('member ids look like Kafka Uuids (22 base64url characters) and differ', () => {
  const a = newMemberId();
  assert.match(a, /^[A-Za-z0-9_][A-Za-z0-9_-]{21}$/);
  assert.notEqual(a, newMemberId());
});

test('JavaScript patterns become whole-name RE2 patterns with the same matches', () => {
  assert.equal(toRe2TopicRegex(/^orders-.*$/), 'orders-.*');
  assert.equal(toRe2TopicRegex(/^orders-/), '(?:orders-).*');
  assert.equal(toRe2TopicRegex(/orders/), '.*(?:orders).*');
  assert.equal(toRe2TopicRegex(/^a|b$/), '.*(?:^a|b$).*');
  assert.equal(toRe2TopicRegex(/^price\$$/), 'price\\$');
  assert.equal(toRe2TopicRegex(/^Orders$/i), '(?i)Orders');
  assert.equal(toRe2TopicRegex(/^(?<kind>a|b)-x$/), '(?P<kind>a|b)-x');
  assert.equal(toRe2TopicRegex(/^a\/b$/), 'a/b');
  // The translated form matches the same names as the JavaScript pattern (under full match).
  const cases: [RegExp, string[]][] = [
    [/^orders-/, ['orders-eu', 'orders-', 'x-orders-eu', 'order']],
    [/eu$/, ['orders-eu', 'eu-orders', 'eu']],
    [/^a|b$/, ['ax', 'xb', 'xa', 'bx']],
    [/ORD/i, ['my-orders', 'x']],
  ];
  for (const [re, names] of cases) {
    const full = new RegExp(
      `^(?:${toRe2TopicRegex(re).replace(/^\(\?i\)/, '')})$`,
      re.flags.includes('i') ? 'i' : '',
    );
    for (const n of names) assert.equal(full.test(n), re.test(n), `${re} on ${n}`);
  }
});

test('patterns RE2 cannot express are refused at once', () => {
  assert.throws(() => toRe2TopicRegex(/^a(?=b)/), ConfigError);
  assert.throws(() => toRe2TopicRegex(/(a)\1/), ConfigError);
  assert.throws(() => toRe2TopicRegex(/\u00e9/), ConfigError);
});

test('groupProtocol and groupRemoteAssignor options', () => {
  assert.equal(resolveConsumerOptions({ bootstrapServers: 'x:1' }).groupProtocol, 'classic');
  const o = resolveConsumerOptions({
    bootstrapServers: 'x:1',
    groupId: 'g',
    groupProtocol: 'CONSUMER' as 'consumer',
    groupRemoteAssignor: 'org.apache.kafka.coordinator.group.assignor.RangeAssignor',
  });
  assert.equal(o.groupProtocol, 'consumer');
  assert.equal(o.groupRemoteAssignor, 'range');
  assert.throws(
    () => resolveConsumerOptions({ bootstrapServers: 'x:1', groupProtocol: 'eager' as 'classic' }),
    ConfigError,
  );
});

test('the coordinator accepts the translated patterns and matches the same names', async () => {
  const { compileTopicRegex } = await import('../../../src/broker/coordinator/group/consumer-group-regex.js');
  const cases: [RegExp, string[]][] = [
    [/^orders-/, ['orders-eu', 'x-orders']],
    [/eu$/i, ['orders-EU', 'eu-x']],
    [/^(?<k>a|b)-\d+$/, ['a-1', 'b-22', 'c-1']],
    [/^a|b$/, ['ax', 'xb', 'bx']],
  ];
  for (const [re, names] of cases) {
    const c = compileTopicRegex(toRe2TopicRegex(re));
    assert.ok(c.ok, `${re} → ${toRe2TopicRegex(re)}`);
    if (c.ok) for (const n of names) assert.equal(c.test(n), re.test(n), `${re} on ${n}`);
  }
});

// ---- OffsetFetch of a KIP-848 member (GroupOffsets over a scripted GroupRpc) ----

function scriptedOffsets(protocol: 'classic' | 'consumer', answers: Array<number | 'ok'>) {
  const sent: Array<{ memberId: string; memberEpoch: number } | null> = [];
  const fenced: number[] = [];
  const membership = {
    protocol,
    groupId: 'g',
    state: 'STABLE' as const,
    generation: { generationId: 3, memberId: 'member-1' },
    fenced(code: number) {
      fenced.push(code);
      // A fenced KIP-848 member has no epoch until it rejoins.
      membership.generation = { generationId: -1, memberId: 'member-1' };
    },
  };
  const rpc = {
    groupId: 'g',
    noteError() {},
    noteCode() {},
    async fetchOffsets(_tps: unknown, member: { memberId: string; memberEpoch: number } | null = null) {
      sent.push(member);
      const a = answers.shift() ?? 'ok';
      if (a !== 'ok') throw new KafkaResponseError(a, 'OffsetFetch');
      // The heartbeat moved the epoch on meanwhile.
      return new Map([['t\u00000', { offset: 5n, metadata: '', leaderEpoch: -1 }]]);
    },
  };
  const opts = resolveConsumerOptions({ bootstrapServers: 'x:1', retryBackoffMs: 1, retryBackoffMaxMs: 2 });
  const offsets = new GroupOffsets(
    rpc as unknown as GroupRpc,
    opts,
    () => membership as unknown as Membership,
  );
  return { offsets, sent, fenced, membership };
}

test('OffsetFetch names a KIP-848 member (id and epoch) and retries STALE_MEMBER_EPOCH with the newest epoch', async () => {
  const s = scriptedOffsets('consumer', [ErrorCode.STALE_MEMBER_EPOCH, 'ok']);
  const fetching = s.offsets.fetch([{ topic: 't', partition: 0 }], Date.now() + 10_000);
  s.membership.generation = { generationId: 4, memberId: 'member-1' };
  const got = await fetching;
  assert.equal(got.get('t\u00000')?.offset, 5n);
  assert.deepEqual(s.sent, [
    { memberId: 'member-1', memberEpoch: 3 },
    { memberId: 'member-1', memberEpoch: 4 },
  ]);
  // A classic member sends neither (Kafka's classic consumer leaves them at null / -1).
  const c = scriptedOffsets('classic', ['ok']);
  await c.offsets.fetch([{ topic: 't', partition: 0 }], Date.now() + 10_000);
  assert.deepEqual(c.sent, [null]);
});

test('OffsetFetch answered UNKNOWN_MEMBER_ID fences the member and reads again as a non-member; other errors are not retried', async () => {
  const s = scriptedOffsets('consumer', [ErrorCode.UNKNOWN_MEMBER_ID, 'ok']);
  const got = await s.offsets.fetch([{ topic: 't', partition: 0 }], Date.now() + 10_000);
  assert.equal(got.get('t\u00000')?.offset, 5n);
  assert.deepEqual(s.fenced, [ErrorCode.UNKNOWN_MEMBER_ID]);
  assert.deepEqual(s.sent, [{ memberId: 'member-1', memberEpoch: 3 }, null]);
  const auth = scriptedOffsets('consumer', [ErrorCode.GROUP_AUTHORIZATION_FAILED]);
  await assert.rejects(
    auth.offsets.fetch([{ topic: 't', partition: 0 }], Date.now() + 10_000),
    (e: unknown) => {
      return e instanceof KafkaResponseError && e.errorCode === ErrorCode.GROUP_AUTHORIZATION_FAILED;
    },
  );
  assert.equal(auth.sent.length, 1);
});
