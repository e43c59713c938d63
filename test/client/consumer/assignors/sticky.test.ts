// Sticky and cooperative-sticky, property-tested on seeded random memberships:
// - balance within 1 with identical subscriptions, and no improving single move otherwise;
// - stickiness: exactly the minimum number of previously owned partitions move;
// - cooperative: a partition is never owned by two members, partitions that stay with a member
//   are never revoked, and the group converges (balanced, complete) within two rounds.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
  cooperativeStickyAssignor,
  type GroupMemberInfo,
  type MemberAssignment,
  stickyAssignor,
} from '../../../../src/client/consumer/assignors/index.js';
import { type TopicPartition, tpKey } from '../../../../src/client/consumer/types.js';
import { allPartitions, cluster, int, member, ownership, rng, spread } from './helpers.js';

/** Minimum number of owned partitions that must move to reach a balanced assignment. */
function minimumMoves(owned: number[], total: number): number {
  const m = owned.length;
  const q = Math.floor(total / m);
  const r = total % m;
  const sorted = [...owned].sort((a, b) => b - a);
  let moves = 0;
  sorted.forEach((o, i) => {
    moves += Math.max(0, o - (i < r ? q + 1 : q));
  });
  return moves;
}

/** Random previous ownership: a random subset of partitions spread unevenly over the members. */
function randomOwnership(r: () => number, keys: string[], ids: string[]): Map<string, TopicPartition[]> {
  const out = new Map<string, TopicPartition[]>(ids.map((id) => [id, []]));
  for (const k of keys) {
    if (r() < 0.3) continue;
    const [topic, p] = k.split('\u0000');
    // Skewed: low-numbered members get more.
    const idx = Math.min(ids.length - 1, Math.floor(r() * r() * ids.length));
    out.get(ids[idx]!)!.push({ topic: topic!, partition: Number(p) });
  }
  return out;
}

test('sticky: identical subscriptions are balanced within 1 and move only what balance needs', () => {
  const r = rng(42);
  for (let iter = 0; iter < 400; iter++) {
    const counts: Record<string, number> = {};
    for (let t = 0; t < int(r, 1, 3); t++) counts[`t${t}`] = int(r, 1, 30);
    const topics = Object.keys(counts);
    const ids = Array.from({ length: int(r, 1, 8) }, (_, i) => `member-${i}`);
    const prev = randomOwnership(r, allPartitions(counts), ids);
    const members = ids.map((id) => member(id, topics, prev.get(id)!, 3));
    const out = stickyAssignor().assign(cluster(counts), members, 'EAGER');
    const owner = ownership(members, out);
    const total = allPartitions(counts).length;
    assert.equal(owner.size, total);
    assert.ok(spread(out) <= 1, `iteration ${iter}: spread ${spread(out)}`);
    let moved = 0;
    for (const [id, parts] of prev)
      for (const tp of parts) if (owner.get(tpKey(tp.topic, tp.partition)) !== id) moved++;
    assert.equal(
      moved,
      minimumMoves(
        ids.map((id) => prev.get(id)!.length),
        total,
      ),
      `iteration ${iter}: moves`,
    );
  }
});

test('sticky: different subscriptions leave no single move that improves balance', () => {
  const r = rng(1234);
  for (let iter = 0; iter < 300; iter++) {
    const counts: Record<string, number> = {};
    for (let t = 0; t < int(r, 2, 5); t++) counts[`t${t}`] = int(r, 1, 12);
    const topics = Object.keys(counts);
    const ids = Array.from({ length: int(r, 2, 7) }, (_, i) => `m${i}`);
    const subs = new Map(ids.map((id) => [id, topics.filter(() => r() < 0.5)] as const));
    for (const [id, s] of subs) if (s.length === 0) subs.set(id, [topics[int(r, 0, topics.length - 1)]!]);
    const prev = randomOwnership(r, allPartitions(counts), ids);
    const members = ids.map((id) => member(id, subs.get(id)!, prev.get(id)!, 1));
    const out = stickyAssignor().assign(cluster(counts), members, 'EAGER');
    const owner = ownership(members, out);
    const subscribed = new Set(members.flatMap((m) => m.subscription.topics));
    assert.equal(owner.size, allPartitions(counts, subscribed).length);
    const size = new Map([...out].map(([id, a]) => [id, a.partitions.length]));
    for (const [k, from] of owner) {
      const topic = k.split('\u0000')[0]!;
      for (const m of members) {
        if (m.memberId === from || !m.subscription.topics.includes(topic)) continue;
        assert.ok(
          size.get(m.memberId)! >= size.get(from)! - 1,
          `iteration ${iter}: ${k} could move from ${from} to ${m.memberId}`,
        );
      }
    }
  }
});

test('sticky: previous assignment survives in user data across eager rebalances', () => {
  const counts = { t: 6 };
  const a = stickyAssignor();
  const b = stickyAssignor();
  const c = stickyAssignor();
  const sub = (id: string, x: typeof a) => member(id, ['t'], [], -1, x.subscriptionUserData?.(['t']) ?? null);
  let out = a.assign(cluster(counts), [sub('a', a), sub('b', b), sub('c', c)], 'EAGER');
  a.onAssignment?.(out.get('a')!, 1);
  b.onAssignment?.(out.get('b')!, 1);
  c.onAssignment?.(out.get('c')!, 1);
  const before = new Map([...out].map(([id, x]) => [id, x.partitions.map((p) => p.partition)]));
  // c leaves: a and b keep what they had and share c's partitions.
  out = b.assign(cluster(counts), [sub('a', a), sub('b', b)], 'EAGER');
  for (const id of ['a', 'b']) {
    const now = out.get(id)!.partitions.map((p) => p.partition);
    for (const p of before.get(id)!) assert.ok(now.includes(p), `${id} kept partition ${p}`);
    assert.equal(now.length, 3);
  }
});

/** Simulates a cooperative group: each member reports what it owns; revokes what it lost. */
class CoopGroup {
  owned = new Map<string, TopicPartition[]>();
  generation = 0;
  revokedThisChange = new Map<string, Set<string>>();
  constructor(
    readonly counts: Record<string, number>,
    readonly topics: string[],
  ) {}

  /** Runs one rebalance; returns true if someone revoked (so a follow-up rebalance is needed). */
  round(): boolean {
    const members: GroupMemberInfo[] = [...this.owned.keys()].map((id) =>
      member(id, this.topics, this.owned.get(id)!, this.generation),
    );
    const out: Map<string, MemberAssignment> = cooperativeStickyAssignor().assign(
      cluster(this.counts),
      members,
      'COOPERATIVE',
    );
    const owner = ownership(members, out);
    // No partition may be handed to a member while another still owns it.
    for (const [k, to] of owner) {
      for (const [id, parts] of this.owned) {
        if (id !== to && parts.some((tp) => tpKey(tp.topic, tp.partition) === k))
          assert.fail(`${k} given to ${to} while ${id} owns it`);
      }
    }
    this.generation++;
    let revoked = false;
    for (const [id, parts] of this.owned) {
      const next = out.get(id)!.partitions;
      const keep = new Set(next.map((tp) => tpKey(tp.topic, tp.partition)));
      for (const tp of parts) {
        const k = tpKey(tp.topic, tp.partition);
        if (!keep.has(k)) {
          revoked = true;
          this.revokedThisChange.get(id)?.add(k);
        }
      }
      this.owned.set(id, next);
    }
    return revoked;
  }

  /** Rebalances until nobody revokes; checks convergence, balance and "stayers never revoked". */
  settle(label: string): void {
    for (const id of this.owned.keys()) this.revokedThisChange.set(id, new Set());
    let rounds = 0;
    while (this.round()) {
      rounds++;
      assert.ok(rounds <= 2, `${label}: no convergence after ${rounds} rounds`);
    }
    const result = new Map([...this.owned].map(([id, partitions]) => [id, { partitions, userData: null }]));
    assert.equal(
      [...this.owned.values()].reduce((n, p) => n + p.length, 0),
      allPartitions(this.counts).length,
      `${label}: complete`,
    );
    assert.ok(spread(result) <= 1, `${label}: balanced`);
    for (const [id, parts] of this.owned) {
      for (const tp of parts) {
        assert.ok(
          !this.revokedThisChange.get(id)!.has(tpKey(tp.topic, tp.partition)),
          `${label}: ${id} had ${tp.topic}-${tp.partition} revoked but kept it`,
        );
      }
    }
  }
}

test('cooperative-sticky: random joins and leaves never double-own or revoke partitions that stay', () => {
  const r = rng(2024);
  for (let scenario = 0; scenario < 60; scenario++) {
    const counts: Record<string, number> = {};
    for (let t = 0; t < int(r, 1, 3); t++) counts[`t${t}`] = int(r, 1, 20);
    const g = new CoopGroup(counts, Object.keys(counts));
    let next = 0;
    for (let step = 0; step < 12; step++) {
      const size = g.owned.size;
      if (size === 0 || (size < 8 && r() < 0.6)) {
        for (let k = int(r, 1, 2); k > 0; k--) g.owned.set(`consumer-${next++}`, []);
      } else {
        const ids = [...g.owned.keys()];
        g.owned.delete(ids[int(r, 0, ids.length - 1)]!);
        if (g.owned.size === 0) continue;
      }
      g.settle(`scenario ${scenario} step ${step}`);
    }
  }
});

test('cooperative-sticky: a member with a stale generation loses a contested partition', () => {
  const members = [
    member('a', ['t'], [{ topic: 't', partition: 0 }], 5),
    member('b', ['t'], [{ topic: 't', partition: 0 }], 4),
  ];
  const out = cooperativeStickyAssignor().assign(cluster({ t: 2 }), members, 'COOPERATIVE');
  assert.deepEqual(out.get('a')!.partitions, [{ topic: 't', partition: 0 }]);
  // b must give up partition 0 first; partition 1 is free and goes to b.
  assert.deepEqual(out.get('b')!.partitions, [{ topic: 't', partition: 1 }]);
});
