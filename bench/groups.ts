// Group coordinator benchmark, in process (coordinator runtime + group shard + Kafka record
// serde over an in-memory __consumer_offsets; no sockets, no disk):
//  1. time from the first JoinGroup to every member holding its assignment, for groups of 1,
//     10 and 50 members joining the way v4+ clients do (MEMBER_ID_REQUIRED, JoinGroup, SyncGroup),
//     group.initial.rebalance.delay.ms = 0; reports the generation reached (1 = one rebalance);
//  2. heartbeats handled per second (1,000 members in 100 stable groups);
//  3. offset commits per second (one partition per commit, 100 groups, 1,000 in flight),
//     against a baseline measured in the same run: the same commits through the runtime with
//     a shard that only echoes (runtime + serde cost without the group logic);
//  4. the same commits through a real broker's coordinator and its __consumer_offsets log on
//     disk (startBroker, temp data dir, no sockets), with the process CPU time per commit.
// End to end over TCP: bench/groups-e2e.ts.
// Run: npx tsx bench/groups.ts

import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startBroker } from '../src/broker/broker.js';
import type { GroupRecord } from '../src/broker/coordinator/group/group-records.js';
import { groupRecordSerde } from '../src/broker/coordinator/group/group-serde.js';
import { GroupCoordinator, type JoinGroupRequest } from '../src/broker/coordinator/group/index.js';
import {
  type CoordinatorResult,
  CoordinatorRuntime,
  type CoordinatorShard,
  InMemoryPartitionWriter,
  systemClock,
} from '../src/broker/coordinator/runtime/index.js';

const PARTITIONS = 50;

function subscription(topic: string): Buffer {
  const b = Buffer.alloc(2 + 4 + 2 + topic.length + 4);
  b.writeInt32BE(1, 2);
  b.writeInt16BE(topic.length, 6);
  b.write(topic, 8);
  b.writeInt32BE(-1, 8 + topic.length);
  return b;
}

async function coordinator(): Promise<GroupCoordinator> {
  const writer = new InMemoryPartitionWriter();
  const gc = new GroupCoordinator({
    config: { initialRebalanceDelayMs: 0, numPartitions: PARTITIONS },
    writer,
    loader: writer,
  });
  for (let p = 0; p < PARTITIONS; p++) await gc.onElection(p);
  return gc;
}

const origin = { clientId: 'bench', clientHost: '/127.0.0.1', apiVersion: 5 };
const joinReq = (groupId: string, memberId: string): JoinGroupRequest => ({
  groupId,
  sessionTimeoutMs: 30_000,
  rebalanceTimeoutMs: 60_000,
  memberId,
  groupInstanceId: null,
  protocolType: 'consumer',
  protocols: [{ name: 'range', metadata: subscription('t') }],
});

/** One member's whole way in: returns its generation. */
async function member(
  gc: GroupCoordinator,
  groupId: string,
): Promise<{ memberId: string; generation: number }> {
  const first = await gc.joinGroup(origin, joinReq(groupId, ''));
  for (;;) {
    const j = await gc.joinGroup(origin, joinReq(groupId, first.memberId));
    if (j.errorCode !== 0) throw new Error(`join error ${j.errorCode}`);
    const assignments =
      j.leader === j.memberId
        ? j.members.map((m) => ({ memberId: m.memberId, assignment: Buffer.from('a') }))
        : [];
    const s = await gc.syncGroup({
      groupId,
      generationId: j.generationId,
      memberId: j.memberId,
      groupInstanceId: null,
      protocolType: 'consumer',
      protocolName: j.protocolName,
      assignments,
    });
    if (s.errorCode === 0) return { memberId: j.memberId, generation: j.generationId };
    if (s.errorCode !== 27) throw new Error(`sync error ${s.errorCode}`);
  }
}

async function stableGroup(gc: GroupCoordinator, groupId: string, size: number) {
  const t0 = performance.now();
  const members = await Promise.all(Array.from({ length: size }, () => member(gc, groupId)));
  // A member that synced in an early generation rejoins when its heartbeat says so; wait for
  // everyone to be in the last generation.
  const last = Math.max(...members.map((m) => m.generation));
  return { ms: performance.now() - t0, generation: last, members };
}

async function timed(label: string, total: number, run: () => Promise<void>): Promise<number> {
  const t0 = performance.now();
  await run();
  const perSec = total / ((performance.now() - t0) / 1000);
  console.log(`${label.padEnd(44)} ${Math.round(perSec).toLocaleString('en-US').padStart(10)}/s`);
  return perSec;
}

async function main(): Promise<void> {
  console.log('join → all members assigned (initial delay 0)');
  for (const size of [1, 10, 50]) {
    const gc = await coordinator();
    const runs: number[] = [];
    let gen = 0;
    for (let i = 0; i < 5; i++) {
      const r = await stableGroup(gc, `join-${size}-${i}`, size);
      runs.push(r.ms);
      gen = Math.max(gen, r.generation);
    }
    runs.sort((a, b) => a - b);
    console.log(
      `  ${String(size).padStart(2)} members: median ${runs[2]?.toFixed(2)} ms, generation reached ${gen}`,
    );
    gc.close();
  }

  const gc = await coordinator();
  const groups = await Promise.all(Array.from({ length: 100 }, (_, g) => stableGroup(gc, `hb-${g}`, 10)));
  const targets = groups.flatMap((g, i) =>
    g.members.map((m) => ({ groupId: `hb-${i}`, memberId: m.memberId, generationId: g.generation })),
  );
  const HEARTBEATS = 200_000;
  await timed('heartbeats (1,000 members, 100 groups)', HEARTBEATS, async () => {
    for (let done = 0; done < HEARTBEATS; done += targets.length) {
      const codes = await Promise.all(targets.map((t) => gc.heartbeat({ ...t, groupInstanceId: null })));
      if (codes.some((c) => c !== 0)) throw new Error('heartbeat failed');
    }
  });

  const COMMITS = 200_000;
  const IN_FLIGHT = 1000;
  const commit = (i: number) => {
    const t = targets[i % targets.length] as (typeof targets)[number];
    return {
      groupId: t.groupId,
      generationId: t.generationId,
      memberId: t.memberId,
      groupInstanceId: null,
      retentionTimeMs: -1,
      topics: [
        { name: 't', partitions: [{ partition: i % 6, offset: BigInt(i), leaderEpoch: 0, metadata: '' }] },
      ],
    };
  };
  const commits = await timed('offset commits (group coordinator)', COMMITS, async () => {
    for (let done = 0; done < COMMITS; done += IN_FLIGHT) {
      const rs = await Promise.all(
        Array.from({ length: IN_FLIGHT }, (_, k) => gc.commitOffsets(commit(done + k))),
      );
      if (rs.some((r) => r[0]?.partitions[0]?.errorCode !== 0)) throw new Error('commit failed');
    }
  });
  gc.close();

  // Baseline: the runtime and the Kafka serde with a shard that only turns the request into
  // its record, no validation or state.
  class EchoShard implements CoordinatorShard<GroupRecord> {
    replay(): void {}
    onLoaded(): void {}
    onUnloaded(): void {}
  }
  const writer = new InMemoryPartitionWriter();
  const rt = new CoordinatorRuntime<EchoShard, GroupRecord>({
    writer,
    loader: writer,
    serde: groupRecordSerde,
    clock: systemClock,
    newShard: () => new EchoShard(),
  });
  for (let p = 0; p < PARTITIONS; p++) await rt.load(p);
  const baseline = await timed('baseline: runtime + serde, echo shard', COMMITS, async () => {
    for (let done = 0; done < COMMITS; done += IN_FLIGHT) {
      await Promise.all(
        Array.from({ length: IN_FLIGHT }, (_, k) => {
          const c = commit(done + k);
          const p = c.topics[0]?.partitions[0] as { partition: number; offset: bigint };
          const rec: GroupRecord = {
            kind: 'offset',
            group: c.groupId,
            topic: 't',
            partition: p.partition,
            value: {
              offset: p.offset,
              leaderEpoch: 0,
              metadata: '',
              commitTimestamp: Date.now(),
              expireTimestamp: -1,
            },
          };
          return rt.write(
            gc.partitionFor(c.groupId),
            (): CoordinatorResult<GroupRecord, number> => ({ records: [rec], response: 0 }),
          );
        }),
      );
    }
  });
  rt.close();
  console.log(`group logic overhead: commits at ${(commits / baseline).toFixed(2)}× the echo baseline`);

  // 4. A real broker's coordinator and log, no sockets: best of 5 rounds (the machine is shared).
  const dataDir = await mkdtemp(join(tmpdir(), 'samsa-bench-groups-'));
  const broker = await startBroker({ host: '127.0.0.1', port: 0, dataDir });
  try {
    const groups = broker.services.groups;
    if (groups === undefined) throw new Error('no group coordinator');
    await groups.locate('warm-up');
    const real = groups.coordinator;
    for (let p = 0; p < PARTITIONS; p++) {
      while (real.runtime.status(p) !== 'active') await new Promise((r) => setTimeout(r, 10));
    }
    const simple = (i: number) => ({
      ...commit(i),
      groupId: `real-${i % 100}`,
      generationId: -1,
      memberId: '',
    });
    let bestRate = 0;
    let bestCpu = Number.POSITIVE_INFINITY;
    for (let round = 0; round < 6; round++) {
      const cpu0 = process.cpuUsage();
      const t0 = performance.now();
      for (let done = 0; done < COMMITS / 4; done += IN_FLIGHT) {
        const rs = await Promise.all(
          Array.from({ length: IN_FLIGHT }, (_, k) => real.commitOffsets(simple(done + k))),
        );
        if (rs.some((r) => r[0]?.partitions[0]?.errorCode !== 0)) throw new Error('commit failed');
      }
      const cpu = process.cpuUsage(cpu0);
      // Round 0 warms up the log (first append per partition writes its leader-epoch checkpoint).
      if (round === 0) continue;
      bestRate = Math.max(bestRate, COMMITS / 4 / ((performance.now() - t0) / 1000));
      bestCpu = Math.min(bestCpu, (cpu.user + cpu.system) / (COMMITS / 4));
    }
    console.log(
      `${'offset commits (broker coordinator + disk log)'.padEnd(44)} ${Math.round(bestRate).toLocaleString('en-US').padStart(10)}/s` +
        `  (${bestCpu.toFixed(1)} µs CPU per commit)`,
    );
  } finally {
    await broker.close();
    await rm(dataDir, { recursive: true, force: true });
  }
}

// Coordinator timers are unref'd (they must never keep a broker alive); keep the bench alive.
const keepAlive = setInterval(() => {}, 1000);
await main();
clearInterval(keepAlive);
