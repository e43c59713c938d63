// The property of KIP-848 online migration on the group coordinator: classic members (eager
// and cooperative, each a client loop one request per step) and ConsumerGroupHeartbeat members
// interleaved at random, with joins, leaves and time passing, never hold a partition twice —
// neither as the clients see it nor in the coordinator's state — and the group converges.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ErrorCode } from '../../../src/protocol/errors.js';
import { assertDisjoint, formClassicGroup, SimClassic } from './classic-member-sim.js';
import { consumerHarness, FakeCatalog, SimMember } from './consumer-group-harness.js';

/** A classic client's loop, one request per step: heartbeat, or the join/sync it owes. */
class ClassicDriver {
  phase: 'stable' | 'join' | 'sync' = 'stable';
  constructor(readonly c: SimClassic) {}

  #lost(): void {
    this.c.owned = [];
    this.phase = 'join';
  }

  async step(): Promise<void> {
    const { c } = this;
    if (this.phase === 'stable') {
      if (await c.heartbeatOrRejoin()) this.phase = 'join';
    } else if (this.phase === 'join') {
      const r = await c.join();
      if (r.errorCode === ErrorCode.NONE) this.phase = 'sync';
      else if (r.errorCode === ErrorCode.UNKNOWN_MEMBER_ID) this.#lost();
    } else {
      const before = new Set(c.owned);
      const r = await c.sync();
      if (r.errorCode === ErrorCode.NONE)
        this.phase = c.opts.cooperative && [...before].some((p) => !c.owned.includes(p)) ? 'join' : 'stable';
      else if (r.errorCode === ErrorCode.REBALANCE_IN_PROGRESS) this.phase = 'join';
      else this.#lost();
    }
  }
}

test('property: classic (eager and cooperative) and consumer-protocol members interleaved at random never hold a partition twice', async () => {
  let seed = 7;
  const rand = (n: number) => {
    seed = (seed * 1103515245 + 12345) & 0x7fffffff;
    return seed % n;
  };
  const long = { sessionTimeoutMs: 60_000, rebalanceTimeoutMs: 60_000 };
  for (let round = 0; round < 8; round++) {
    const h = await consumerHarness(new FakeCatalog().add('t', 8), { consumerMigrationPolicy: 'upgrade' });
    const classic = Array.from(
      { length: 2 + rand(3) },
      (_, i) => new SimClassic(() => h.gc, 'g', `c${i}`, ['t'], { ...long, cooperative: rand(2) === 0 }),
    );
    await formClassicGroup(classic, 't', 8, () => h.advance(0));
    const drivers = classic.map((c) => new ClassicDriver(c));
    const modern: SimMember[] = [];
    let next = 0;
    const check = async (when: string) => {
      assertDisjoint(
        classic,
        modern.filter((m) => !m.left),
        `round ${round} ${when}`,
      );
      const g = (await h.shard('g')).consumer.groups.get('g');
      const held = new Set<string>();
      for (const m of g?.members.values() ?? [])
        for (const a of [m.assignedPartitions, m.partitionsPendingRevocation])
          for (const [t, ps] of a)
            for (const p of ps) {
              assert.ok(!held.has(`${t}:${p}`), `round ${round} ${when}: coordinator holds ${p} twice`);
              held.add(`${t}:${p}`);
            }
    };
    for (let step = 0; step < 150; step++) {
      const live = modern.filter((m) => !m.left);
      const action = rand(12);
      if (action === 0 || (step === 0 && live.length === 0)) {
        modern.push(new SimMember(h, 'g', `m${next++}`, ['t']));
        await modern.at(-1)!.heartbeat();
      } else if (action === 1 && live.length > 1) {
        await live[rand(live.length)]!.leave();
      } else if (action < 7 || live.length === 0) {
        await drivers[rand(drivers.length)]!.step();
      } else {
        await live[rand(live.length)]!.heartbeat();
      }
      if (rand(4) === 0) await h.advance(20);
      await check(`step ${step}`);
    }
    // Converges: everyone keeps going until the group is Stable and every partition is owned.
    for (let i = 0; i < 30; i++) {
      for (const d of drivers) await d.step();
      for (const m of modern.filter((x) => !x.left)) await m.heartbeat();
    }
    await check('end');
    const g = (await h.shard('g')).consumer.groups.get('g')!;
    assert.equal(g.state, 'Stable', `round ${round}`);
    const owned =
      classic.reduce((n, c) => n + c.owned.length, 0) +
      modern
        .filter((m) => !m.left)
        .reduce((n, m) => n + m.owned.reduce((k, t) => k + t.partitions.length, 0), 0);
    assert.equal(owned, 8, `round ${round}: every partition owned`);
    h.gc.close();
  }
});
