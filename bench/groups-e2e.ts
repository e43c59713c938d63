// Consumer groups end to end: a real broker (startBroker on an ephemeral port, temp data dir,
// __consumer_offsets on disk) in a child process (bench/groups-e2e-broker.ts), driven over TCP
// by a raw-protocol load generator built on the generated codecs (bench/groups-wire.ts);
// group.initial.rebalance.delay.ms=0.
//  1. time from the first JoinGroup to every member consuming (JoinGroup v9 → MEMBER_ID_REQUIRED,
//     JoinGroup, SyncGroup with a range assignment by the leader, OffsetFetch, first Fetch that
//     returns its partitions' records), groups of 1, 10 and 50 members, one connection each;
//     members that end up in an older generation heartbeat, rejoin, and count;
//  2. heartbeats/s, OffsetCommit requests/s (1 partition each) and offsets/s (5 partitions per
//     request, a member's whole assignment) from 1,000 members in 100 Stable groups of 10,
//     each member on its own connection with one request in flight, as consumers do
//     (LOAD_GROUPS=10 for 100 members);
//  3. baseline in the same run: ApiVersions round trips/s on the same connections with the same
//     number in flight. Ratios are against it. Besides requests/s, the broker process's CPU time
//     per request (user+sys, all its threads) is shown: on a shared machine it moves far less
//     than throughput. Operations alternate for ROUNDS rounds; each keeps its best of both.
// Run: npx tsx bench/groups-e2e.ts   (BENCH_MS=3000 per load phase, ROUNDS=3, RUNS=5 joins per
// size; PHASES=join|load and OPS=baseline,heartbeat,commit1,commit5 to run a part, e.g. to profile)

import { performance } from 'node:perf_hooks';
import { apiVersionsApi } from '../src/protocol/messages/generated/api-versions.js';
import { commit, heartbeat, type Member, type MemberStats, runMembers } from './groups-e2e-members.js';
import { findCoordinator, setup, startBrokerProcess } from './groups-e2e-support.js';
import { WireConn } from './groups-wire.js';

const BENCH_MS = Number(process.env.BENCH_MS ?? 3000);
const RUNS = Number(process.env.RUNS ?? 5);
/** PHASES=join or PHASES=load runs one part (e.g. to profile it); default both. */
const PHASES = new Set((process.env.PHASES ?? 'join,load').split(','));
/** Load operations to run (OPS=commit1 to profile one); ratios need `baseline`. */
const OPS = new Set((process.env.OPS ?? 'baseline,heartbeat,commit1,commit5').split(','));
const ROUNDS = Number(process.env.ROUNDS ?? 3);
const LOAD_GROUPS = Number(process.env.LOAD_GROUPS ?? 100);
const LOAD_GROUP_SIZE = 10;

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? Number.NaN;
const fmt = (n: number) => Math.round(n).toLocaleString('en-US');

async function joinPhase(port: number): Promise<void> {
  console.log('first JoinGroup → all members consuming (initial delay 0, one connection per member)');
  for (const size of [1, 10, 50]) {
    const conns = await Promise.all(Array.from({ length: size }, () => WireConn.connect(port)));
    const ms: number[] = [];
    const reqs: number[] = [];
    const stepMs = new Map<string, number[]>();
    let generation = 0;
    for (let run = 0; run < RUNS; run++) {
      const groupId = `join-${size}-${run}`;
      await Promise.all(conns.map((c) => findCoordinator(c, groupId)));
      const r = await runMembers(conns, groupId);
      ms.push(r.ms);
      reqs.push(median(r.members.map((m) => m.requests)));
      for (const m of r.members) {
        for (const st of m.steps) stepMs.set(st.api, [...(stepMs.get(st.api) ?? []), st.ms]);
      }
      generation = Math.max(generation, r.generation);
      await r.leave();
    }
    console.log(
      `  ${String(size).padStart(2)} members: median ${median(ms).toFixed(1)} ms ` +
        `(min ${Math.min(...ms).toFixed(1)}, max ${Math.max(...ms).toFixed(1)}), ` +
        `highest generation ${generation}, median requests per member ${median(reqs)}`,
    );
    const steps = [...stepMs].map(([api, xs]) => `${api} ${median(xs).toFixed(1)}`).join(', ');
    console.log(`      median round trip (ms): ${steps}`);
    for (const c of conns) c.close();
  }
}

/** Runs `op` for every member, back to back, for `ms`; counts requests and units (offsets). */
async function load(
  members: Member[],
  op: (m: Member, i: number) => Promise<number>,
  ms: number,
): Promise<{ requests: number; units: number; seconds: number }> {
  const deadline = performance.now() + ms;
  const t0 = performance.now();
  let requests = 0;
  let units = 0;
  await Promise.all(
    members.map(async (m) => {
      for (let i = 0; performance.now() < deadline; i++) {
        const n = await op(m, i); // not `units += await …`: that reads `units` before the await
        units += n;
        requests++;
      }
    }),
  );
  return { requests, units, seconds: (performance.now() - t0) / 1000 };
}

interface OpResult {
  perSec: number;
  unitsPerSec: number;
  cpuUsPerRequest: number;
  elu: number;
  recordsPerAppend: number;
}

async function main(): Promise<void> {
  const broker = await startBrokerProcess();
  const admin = await WireConn.connect(broker.port);
  try {
    await setup(admin);
    if (PHASES.has('join')) await joinPhase(broker.port);
    if (!PHASES.has('load')) return;

    const stats: MemberStats[] = [];
    for (let g = 0; g < LOAD_GROUPS; g += 10) {
      await Promise.all(
        Array.from({ length: Math.min(10, LOAD_GROUPS - g) }, async (_, k) => {
          const groupId = `load-${g + k}`;
          const conns = await Promise.all(
            Array.from({ length: LOAD_GROUP_SIZE }, () => WireConn.connect(broker.port)),
          );
          await findCoordinator(conns[0] as WireConn, groupId);
          stats.push(await runMembers(conns, groupId));
        }),
      );
    }
    const members = stats.flatMap((s) => s.members);
    console.log(
      `\n${fmt(members.length)} members in ${LOAD_GROUPS} Stable groups of ${LOAD_GROUP_SIZE}, one connection each ` +
        `(1 request in flight per connection), ${BENCH_MS} ms per phase`,
    );
    const apiVersions = (m: Member) =>
      m.conn
        .request(apiVersionsApi, 3, { clientSoftwareName: 'bench', clientSoftwareVersion: '1' })
        .then((r) => {
          if (r.errorCode !== 0) throw new Error(`ApiVersions ${r.errorCode}`);
          return 1;
        });
    type Op = { key: string; label: string; run: (m: Member, i: number) => Promise<number> };
    const all: Op[] = [
      { key: 'baseline', label: 'baseline: ApiVersions v3 round trips', run: apiVersions },
      { key: 'heartbeat', label: 'Heartbeat v4', run: heartbeat },
      { key: 'commit1', label: 'OffsetCommit v8, 1 partition each', run: (m, i) => commit(m, i, 1) },
      { key: 'commit5', label: 'OffsetCommit v8, 5 partitions each', run: (m, i) => commit(m, i, 5) },
    ];
    const ops = all.filter((o) => OPS.has(o.key));
    // The machine is shared: alternate the operations for ROUNDS rounds and keep each one's best
    // throughput and, separately, its lowest CPU time per request.
    const best = new Map<string, OpResult>();
    for (let round = 0; round < ROUNDS; round++) {
      for (const op of ops) {
        await load(members, op.run, Math.min(500, BENCH_MS)); // warm-up, not counted
        await broker.sample();
        const r = await load(members, op.run, BENCH_MS);
        const b = await broker.sample();
        const prev = best.get(op.key);
        const now: OpResult = {
          perSec: r.requests / r.seconds,
          unitsPerSec: r.units / r.seconds,
          cpuUsPerRequest: b.cpuUs / r.requests,
          elu: b.elu,
          recordsPerAppend: b.appended / Math.max(1, b.appends),
        };
        if (prev === undefined) best.set(op.key, now);
        else {
          if (now.perSec > prev.perSec)
            Object.assign(prev, { ...now, cpuUsPerRequest: prev.cpuUsPerRequest });
          prev.cpuUsPerRequest = Math.min(prev.cpuUsPerRequest, now.cpuUsPerRequest);
        }
      }
    }
    const base = best.get('baseline');
    for (const op of ops) {
      const r = best.get(op.key) as OpResult;
      const offsets = op.key.startsWith('commit')
        ? `, ${fmt(r.unitsPerSec)} offsets/s, ${r.recordsPerAppend.toFixed(1)} records per append`
        : '';
      console.log(
        `  ${op.label.padEnd(36)} ${fmt(r.perSec).padStart(7)}/s ${(r.perSec / (base?.perSec ?? Number.NaN)).toFixed(2)}×` +
          `   broker CPU ${r.cpuUsPerRequest.toFixed(0).padStart(3)} µs/request ` +
          `${(r.cpuUsPerRequest / (base?.cpuUsPerRequest ?? Number.NaN)).toFixed(2)}×` +
          `  (loop ${(r.elu * 100).toFixed(0)}%${offsets})`,
      );
    }
    for (const s of stats) await s.leave();
    for (const m of members) m.conn.close();
  } finally {
    admin.close();
    await broker.close();
  }
}

await main();
