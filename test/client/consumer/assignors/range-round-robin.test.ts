// Range and round robin: Kafka's documented examples exactly, and random memberships checked for
// completeness and balance (range per topic, round robin overall with identical subscriptions).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { rangeAssignor, roundRobinAssignor } from '../../../../src/client/consumer/assignors/index.js';
import { allPartitions, cluster, int, member, ownership, rng, spread } from './helpers.js';

const names = (parts: { topic: string; partition: number }[]) =>
  parts.map((p) => `${p.topic}p${p.partition}`);

test('range: Kafka example (2 members, t0 and t1 with 3 partitions)', () => {
  const members = [member('C1', ['t0', 't1']), member('C0', ['t0', 't1'])];
  const out = rangeAssignor().assign(cluster({ t0: 3, t1: 3 }), members, 'EAGER');
  assert.deepEqual(names(out.get('C0')!.partitions), ['t0p0', 't0p1', 't1p0', 't1p1']);
  assert.deepEqual(names(out.get('C1')!.partitions), ['t0p2', 't1p2']);
});

test('range: static members sort before dynamic ones, by group.instance.id', () => {
  const a = { ...member('a-dyn', ['t']) };
  const z = { ...member('z-static', ['t']), groupInstanceId: 'b' };
  const y = { ...member('y-static', ['t']), groupInstanceId: 'a' };
  const out = rangeAssignor().assign(cluster({ t: 3 }), [a, z, y], 'EAGER');
  assert.deepEqual(names(out.get('y-static')!.partitions), ['tp0']);
  assert.deepEqual(names(out.get('z-static')!.partitions), ['tp1']);
  assert.deepEqual(names(out.get('a-dyn')!.partitions), ['tp2']);
});

test('roundrobin: Kafka example (2 members, t0 and t1 with 3 partitions)', () => {
  const members = [member('C0', ['t0', 't1']), member('C1', ['t0', 't1'])];
  const out = roundRobinAssignor().assign(cluster({ t0: 3, t1: 3 }), members, 'EAGER');
  assert.deepEqual(names(out.get('C0')!.partitions), ['t0p0', 't0p2', 't1p1']);
  assert.deepEqual(names(out.get('C1')!.partitions), ['t0p1', 't1p0', 't1p2']);
});

test('roundrobin: Kafka example with different subscriptions', () => {
  // C0: t0; C1: t0, t1; C2: t0, t1, t2 — t0:1, t1:2, t2:3 partitions.
  const members = [member('C0', ['t0']), member('C1', ['t0', 't1']), member('C2', ['t0', 't1', 't2'])];
  const out = roundRobinAssignor().assign(cluster({ t0: 1, t1: 2, t2: 3 }), members, 'EAGER');
  assert.deepEqual(names(out.get('C0')!.partitions), ['t0p0']);
  assert.deepEqual(names(out.get('C1')!.partitions), ['t1p0']);
  assert.deepEqual(names(out.get('C2')!.partitions), ['t1p1', 't2p0', 't2p1', 't2p2']);
});

test('range and roundrobin: random memberships assign everything once, balanced', () => {
  const r = rng(7);
  for (let iter = 0; iter < 300; iter++) {
    const topicCount = int(r, 1, 4);
    const counts: Record<string, number> = {};
    for (let t = 0; t < topicCount; t++) counts[`topic-${t}`] = int(r, 1, 24);
    const topics = Object.keys(counts);
    const n = int(r, 1, 9);
    const identical = r() < 0.5;
    const members = Array.from({ length: n }, (_, i) => {
      const subs = identical ? topics : topics.filter(() => r() < 0.6);
      return member(`m-${(i * 7919) % 101}-${i}`, subs.length > 0 ? subs : [topics[0]!]);
    });
    const subscribed = new Set(members.flatMap((m) => m.subscription.topics));
    for (const assignor of [rangeAssignor(), roundRobinAssignor()]) {
      const out = assignor.assign(cluster(counts), members, 'EAGER');
      const owner = ownership(members, out);
      assert.equal(
        owner.size,
        allPartitions(counts, subscribed).length,
        `${assignor.name}: every subscribed partition assigned`,
      );
      if (assignor.name === 'range') {
        for (const t of subscribed) {
          const per = members
            .filter((m) => m.subscription.topics.includes(t))
            .map((m) => out.get(m.memberId)!.partitions.filter((p) => p.topic === t).length);
          assert.ok(Math.max(...per) - Math.min(...per) <= 1, `range balanced within 1 on ${t}`);
        }
      } else if (identical) {
        assert.ok(spread(out) <= 1, 'roundrobin balanced within 1');
      }
    }
  }
});
