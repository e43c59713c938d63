// Committed offsets across KIP-848 online migration on the group coordinator, both ways
// (`bidirectional`): classic members (eager and cooperative, each a client whose JoinGroup and
// SyncGroup may wait for the others) and ConsumerGroupHeartbeat members, interleaved at random,
// commit what they own with their generation or member epoch; the last member of the new
// protocol leaves now and then, so the group turns classic again and back. Whenever a member is
// handed a partition, its OffsetFetch must return the last commit of that partition the
// coordinator acknowledged (to anyone): a partition is never handed over before its previous
// owner's commits are visible, in a classic group, in a consumer group or across a conversion;
// and after every step no partition is held by two members as the clients see it. (This seed
// runs into both holes that were fixed in group-migration.ts: a downgrade that recorded targets
// instead of what members still held, and an upgrade that ignored what an unsynced cooperative
// member owns.)
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { JoinGroupResult } from '../../../src/broker/coordinator/group/index.js';
import {
  decodeSubscription,
  encodeAssignment,
} from '../../../src/client/consumer/assignors/consumer-protocol.js';
import { ErrorCode } from '../../../src/protocol/errors.js';
import { assertDisjoint, formClassicGroup, SimClassic } from './classic-member-sim.js';
import {
  consumerHarness,
  FakeCatalog,
  fakeTopicId,
  memberCommit,
  SimMember,
} from './consumer-group-harness.js';

const PARTITIONS = 8;
type Harness = Awaited<ReturnType<typeof consumerHarness>>;

/** Acknowledged commits per partition, and the check a new owner's OffsetFetch must pass. */
class Offsets {
  readonly acked = new Map<number, bigint>();
  #next = 0n;
  handovers = 0;
  commits = 0;
  constructor(readonly h: Harness) {}

  /** One commit of every partition in `partitions`, each with a value never used before. */
  async commit(
    partitions: number[],
    generationId: number,
    memberId: string,
    apiVersion: number,
  ): Promise<void> {
    if (partitions.length === 0) return;
    const values = partitions.map(() => ++this.#next);
    const results = await this.h.gc.commitOffsets(
      memberCommit(
        'g',
        { memberId, generationId, apiVersion },
        't',
        partitions.map((p, i) => [p, values[i]!] as const),
      ),
    );
    for (const p of results[0]?.partitions ?? []) {
      if (p.errorCode !== ErrorCode.NONE) continue;
      this.acked.set(p.partition, values[partitions.indexOf(p.partition)]!);
      this.commits++;
    }
  }

  /** A member was handed `partitions`: what it fetches is the last acknowledged commit of each. */
  async handedOver(
    who: string,
    partitions: number[],
    member: { memberId: string; memberEpoch: number } | undefined,
    when: string,
  ): Promise<void> {
    if (partitions.length === 0) return;
    const r = await this.h.gc.fetchOffsets('g', [{ name: 't', partitions }], true, member);
    assert.equal(r.errorCode, ErrorCode.NONE, `${when}: ${who}'s OffsetFetch`);
    for (const p of r.topics[0]?.partitions ?? []) {
      assert.equal(
        p.offset,
        this.acked.get(p.partition) ?? -1n,
        `${when}: ${who} handed t-${p.partition} fetches ${p.offset}, the last acknowledged commit is ${this.acked.get(p.partition)}`,
      );
      this.handovers++;
    }
  }
}

const partitionOf = (key: string) => Number(key.slice(key.lastIndexOf('-') + 1));

/**
 * A classic client, one request per step; its JoinGroup and SyncGroup are not awaited (in a
 * classic group they wait for the other members), the step after an answer carries on. As the
 * group's leader it assigns ranges, holding back a partition another member still owns (what a
 * cooperative assignor does: its owner revokes it and rejoins first).
 */
class ClassicClient {
  phase: 'stable' | 'join' | 'sync' | 'waiting' = 'stable';
  #joined: JoinGroupResult | null = null;
  /** Between an assignment and its OffsetFetch's answer: no commits (the position is not known yet). */
  fetching = false;
  /** A check that failed in an answer's callback, for the loop to throw. */
  failure: unknown = null;

  constructor(
    readonly c: SimClassic,
    readonly offsets: Offsets,
    readonly when: () => string,
  ) {}

  #lost(): void {
    this.c.owned = [];
    this.phase = 'join';
  }

  async step(): Promise<void> {
    const { c } = this;
    if (this.phase === 'waiting') return;
    if (this.phase === 'stable') {
      if (await c.heartbeatOrRejoin()) this.phase = 'join';
      return;
    }
    if (this.phase === 'join') {
      this.phase = 'waiting';
      void c.join().then((r) => {
        if (r.errorCode === ErrorCode.NONE) {
          this.#joined = r;
          this.phase = 'sync';
        } else if (r.errorCode === ErrorCode.UNKNOWN_MEMBER_ID) this.#lost();
        else this.phase = 'join';
      });
      return;
    }
    const joined = this.#joined!;
    const before = new Set(c.owned);
    const assignments = joined.leader === c.memberId ? this.#assign(joined.members) : [];
    this.phase = 'waiting';
    c.sync(assignments)
      .then(async (r) => {
        if (r.errorCode === ErrorCode.NONE) {
          const gained = c.owned.filter((k) => !before.has(k)).map(partitionOf);
          this.fetching = true;
          try {
            await this.offsets.handedOver(c.clientId, gained, undefined, this.when());
          } finally {
            this.fetching = false;
          }
          this.phase =
            c.opts.cooperative && [...before].some((k) => !c.owned.includes(k)) ? 'join' : 'stable';
        } else if (r.errorCode === ErrorCode.REBALANCE_IN_PROGRESS) this.phase = 'join';
        else this.#lost();
      })
      .catch((err: unknown) => {
        this.failure ??= err;
      });
  }

  #assign(members: JoinGroupResult['members']): Array<{ memberId: string; assignment: Buffer }> {
    const ids = members.map((m) => m.memberId).sort();
    const ownerOf = new Map<number, string>();
    for (const m of members)
      for (const tp of decodeSubscription(m.metadata).ownedPartitions) ownerOf.set(tp.partition, m.memberId);
    return ids.map((memberId, i) => {
      const partitions: Array<{ topic: string; partition: number }> = [];
      for (let p = 0; p < PARTITIONS; p++) {
        const owner = ownerOf.get(p);
        if (p % ids.length === i && (owner === undefined || owner === memberId))
          partitions.push({ topic: 't', partition: p });
      }
      return { memberId, assignment: encodeAssignment({ partitions, userData: null }) };
    });
  }

  commit(): Promise<void> {
    const { c } = this;
    if (this.phase !== 'stable' || this.fetching) return Promise.resolve();
    return this.offsets.commit(c.owned.map(partitionOf), c.generation, c.memberId, 8);
  }
}

/** A ConsumerGroupHeartbeat client that fetches what it is handed before it commits anything. */
class ModernClient {
  constructor(
    readonly m: SimMember,
    readonly offsets: Offsets,
    readonly when: () => string,
  ) {}

  #partitions(): number[] {
    return this.m.owned.flatMap((t) => (t.topicId === fakeTopicId('t') ? t.partitions : []));
  }

  async heartbeat(): Promise<void> {
    const before = new Set(this.#partitions());
    await this.m.heartbeat();
    const gained = this.#partitions().filter((p) => !before.has(p));
    await this.offsets.handedOver(
      this.m.memberId,
      gained,
      { memberId: this.m.memberId, memberEpoch: this.m.epoch },
      this.when(),
    );
  }

  commit(): Promise<void> {
    return this.offsets.commit(this.#partitions(), this.m.epoch, this.m.memberId, 9);
  }
}

test('property: across upgrades and downgrades, a member handed a partition fetches the last commit the coordinator acknowledged for it', async () => {
  let seed = 13;
  const rand = (n: number) => {
    seed = (seed * 1103515245 + 12345) & 0x7fffffff;
    // The high bits: the low ones of this generator repeat with short periods.
    return (seed >>> 12) % n;
  };
  const long = { sessionTimeoutMs: 600_000, rebalanceTimeoutMs: 600_000 };
  let handovers = 0;
  let commits = 0;
  let downgrades = 0;
  for (let round = 0; round < 6; round++) {
    const h = await consumerHarness(new FakeCatalog().add('t', PARTITIONS), {
      consumerMigrationPolicy: 'bidirectional',
    });
    const offsets = new Offsets(h);
    let when = '';
    const now = () => when;
    const classic = Array.from(
      { length: 2 + rand(2) },
      (_, i) => new SimClassic(() => h.gc, 'g', `c${i}`, ['t'], { ...long, cooperative: rand(2) === 0 }),
    );
    await formClassicGroup(classic, 't', PARTITIONS, () => h.advance(0));
    const clients = classic.map((c) => new ClassicClient(c, offsets, now));
    const modern: ModernClient[] = [];
    let next = 0;
    for (let step = 0; step < 250; step++) {
      when = `round ${round} step ${step}`;
      const live = modern.filter((x) => !x.m.left);
      const action = rand(14);
      if (action === 0 && live.length < 2) {
        modern.push(new ModernClient(new SimMember(h, 'g', `m${next++}`, ['t']), offsets, now));
        await modern.at(-1)!.heartbeat();
      } else if (action === 1 && live.length > 0) {
        // The last one leaving turns the group classic again.
        if (live.length === 1) downgrades++;
        await live[rand(live.length)]!.m.leave();
      } else if (action < 5) {
        await clients[rand(clients.length)]!.commit();
      } else if (action < 7 && live.length > 0) {
        await live[rand(live.length)]!.commit();
      } else if (action < 11 || live.length === 0) {
        await clients[rand(clients.length)]!.step();
      } else {
        await live[rand(live.length)]!.heartbeat();
      }
      await h.advance(rand(3) === 0 ? 20 : 0);
      for (const c of clients) if (c.failure !== null) throw c.failure;
      assertDisjoint(
        classic,
        live.filter((x) => !x.m.left).map((x) => x.m),
        when,
      );
    }
    handovers += offsets.handovers;
    commits += offsets.commits;
    h.gc.close();
  }
  // The run exercised what it claims to: commits landed, partitions changed hands, groups turned classic.
  assert.ok(commits > 100, `${commits} commits acknowledged`);
  assert.ok(handovers > 50, `${handovers} partitions handed over`);
  assert.ok(downgrades > 3, `${downgrades} downgrades`);
});
