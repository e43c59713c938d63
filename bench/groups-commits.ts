// Offset commits over sockets, 1,000 groups. A real broker (bench/groups-e2e-broker.ts: startBroker
// on an ephemeral port, temp data dir, __consumer_offsets on disk) in a child process; GROUPS
// groups of one member each join over their own connections, then commit (OffsetCommit v8, one
// partition per request, each request for the next group in turn):
//  - pipelined: SOCKETS shared connections with WINDOW requests in flight on each, the way a
//    client multiplexing many groups (or a librdkafka consumer, which pipelines) talks;
//  - one each: every group on its own connection with one request in flight (a classic
//    consumer's shape; bench/groups-e2e.ts measures it for groups of 10);
//  - baseline, in the same run: ApiVersions v3 pipelined the same way (the cost of a request
//    that does nothing), ratios are against it.
// Besides requests/s it shows, per request, the broker's CPU (user+sys, all its threads) and the
// load generator's (this process), and both event loops' utilization: the generator must not be
// the bottleneck (its loop well below 100% while the broker's is near it).
// BEFORE=<dir> also runs the broker of another source tree (e.g. `git archive HEAD | tar -x -C
// <dir>` plus a node_modules link) and alternates the two brokers round by round, so before and
// after come from the same run. A BEFORE (or AFTER, for this tree) compiled by `tsc --outDir`
// runs without tsx, as the published broker does (tsx names every closure it creates at run time);
// such a tree needs package.json copied into it and a node_modules link.
// Run: npx tsx bench/groups-commits.ts   (BENCH_MS=3000 per phase, ROUNDS=3, GROUPS=1000,
// SOCKETS=4, WINDOW=256, OPS=baseline,pipelined,oneEach, BEFORE=<dir>, AFTER=<dir>, PROFILE=<dir>,
// PROFILE_US=200)

import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { apiVersionsApi } from '../src/protocol/messages/generated/api-versions.js';
import { offsetCommitApi } from '../src/protocol/messages/generated/offset-commit.js';
import { type Member, runMembers } from './groups-e2e-members.js';
import {
  type BrokerProcess,
  findCoordinator,
  setup,
  startBrokerProcess,
  TOPIC,
} from './groups-e2e-support.js';
import { WireConn } from './groups-wire.js';

const BENCH_MS = Number(process.env.BENCH_MS ?? 3000);
const ROUNDS = Number(process.env.ROUNDS ?? 3);
const GROUPS = Number(process.env.GROUPS ?? 1000);
const SOCKETS = Number(process.env.SOCKETS ?? 4);
const WINDOW = Number(process.env.WINDOW ?? 256);
const OPS = new Set((process.env.OPS ?? 'baseline,pipelined,oneEach').split(','));
const BEFORE = process.env.BEFORE;
/** AFTER=<dir>: this tree compiled by tsc (`tsc --outDir <dir>`), run as the published broker is. */
const AFTER = process.env.AFTER;
/** PROFILE=<dir>: a CPU profile of this tree's broker per operation (last round) goes there. */
const PROFILE = process.env.PROFILE;
/** Groups joined at once (each JoinGroup parks its connection until the group forms). */
const JOIN_PARALLELISM = 50;

const fmt = (n: number) => Math.round(n).toLocaleString('en-US');

interface Target {
  label: string;
  broker: BrokerProcess;
  members: Member[];
  shared: WireConn[];
  /** Next offset to commit, per group: every commit moves its group's offset forward. */
  offsets: bigint[];
  next: number;
}

async function prepare(label: string, sourceRoot?: string): Promise<Target> {
  const broker = await startBrokerProcess(sourceRoot);
  const admin = await WireConn.connect(broker.port);
  await setup(admin);
  admin.close();
  const members: Member[] = [];
  for (let g = 0; g < GROUPS; g += JOIN_PARALLELISM) {
    const joined = await Promise.all(
      Array.from({ length: Math.min(JOIN_PARALLELISM, GROUPS - g) }, async (_, k) => {
        const groupId = `commits-${g + k}`;
        const conn = await WireConn.connect(broker.port);
        await findCoordinator(conn, groupId);
        return (await runMembers([conn], groupId)).members[0] as Member;
      }),
    );
    members.push(...joined);
  }
  const shared = await Promise.all(Array.from({ length: SOCKETS }, () => WireConn.connect(broker.port)));
  return { label, broker, members, shared, offsets: members.map(() => 0n), next: 0 };
}

/** One OffsetCommit v8 of the member's first partition, sent on `conn`. */
async function commitOn(t: Target, conn: WireConn, g: number): Promise<void> {
  const m = t.members[g] as Member;
  const offset = (t.offsets[g] as bigint) + 1n;
  t.offsets[g] = offset;
  const r = await conn.request(offsetCommitApi, 8, {
    groupId: m.groupId,
    generationIdOrMemberEpoch: m.generation,
    memberId: m.memberId,
    groupInstanceId: null,
    retentionTimeMs: -1n,
    topics: [
      {
        name: TOPIC,
        partitions: [
          {
            partitionIndex: m.partitions[0] as number,
            committedOffset: offset,
            committedLeaderEpoch: -1,
            commitTimestamp: -1n,
            committedMetadata: '',
          },
        ],
      },
    ],
  });
  const code = r.topics[0]?.partitions[0]?.errorCode;
  if (code !== 0) throw new Error(`OffsetCommit ${m.groupId}: error ${code}`);
}

async function apiVersions(conn: WireConn): Promise<void> {
  const r = await conn.request(apiVersionsApi, 3, {
    clientSoftwareName: 'bench',
    clientSoftwareVersion: '1',
  });
  if (r.errorCode !== 0) throw new Error(`ApiVersions ${r.errorCode}`);
}

/** `lanes` loops, each sending one request after the other until `ms` have passed. */
async function drive(
  lanes: number,
  laneConn: (lane: number) => WireConn,
  send: (conn: WireConn, lane: number) => Promise<void>,
  ms: number,
): Promise<number> {
  const deadline = performance.now() + ms;
  let requests = 0;
  await Promise.all(
    Array.from({ length: lanes }, async (_, lane) => {
      const conn = laneConn(lane);
      while (performance.now() < deadline) {
        await send(conn, lane);
        requests++;
      }
    }),
  );
  return requests;
}

interface Op {
  key: string;
  label: string;
  run(t: Target, ms: number): Promise<number>;
}

const OPERATIONS: Op[] = [
  {
    key: 'baseline',
    label: `baseline: ApiVersions v3, ${SOCKETS} sockets × ${WINDOW} in flight`,
    run: (t, ms) => drive(SOCKETS * WINDOW, (l) => t.shared[l % SOCKETS] as WireConn, apiVersions, ms),
  },
  {
    key: 'pipelined',
    label: `OffsetCommit v8, ${SOCKETS} sockets × ${WINDOW} in flight`,
    run: (t, ms) =>
      drive(
        SOCKETS * WINDOW,
        (l) => t.shared[l % SOCKETS] as WireConn,
        (conn) => commitOn(t, conn, t.next++ % GROUPS),
        ms,
      ),
  },
  {
    key: 'oneEach',
    label: 'OffsetCommit v8, a connection per group, 1 in flight',
    // Lane g commits for group g, on the group's own connection.
    run: (t, ms) =>
      drive(
        GROUPS,
        (g) => t.members[g]?.conn as WireConn,
        (conn, g) => commitOn(t, conn, g),
        ms,
      ),
  },
];

interface Result {
  perSec: number;
  brokerCpuUs: number;
  clientCpuUs: number;
  brokerElu: number;
  clientElu: number;
  recordsPerAppend: number;
}

async function measure(t: Target, op: Op, profileTo?: string): Promise<Result> {
  await op.run(t, Math.min(500, BENCH_MS)); // warm-up, not counted
  if (profileTo !== undefined) await t.broker.profile();
  await t.broker.sample();
  const elu0 = performance.eventLoopUtilization();
  const cpu0 = process.cpuUsage();
  const t0 = performance.now();
  const requests = await op.run(t, BENCH_MS);
  const seconds = (performance.now() - t0) / 1000;
  const cpu = process.cpuUsage(cpu0);
  const elu = performance.eventLoopUtilization(elu0);
  const b = await t.broker.sample();
  if (profileTo !== undefined) await t.broker.profile(profileTo);
  return {
    perSec: requests / seconds,
    brokerCpuUs: b.cpuUs / requests,
    clientCpuUs: (cpu.user + cpu.system) / requests,
    brokerElu: b.elu,
    clientElu: elu.utilization,
    recordsPerAppend: b.appended / Math.max(1, b.appends),
  };
}

async function main(): Promise<void> {
  const targets: Target[] = [];
  try {
    targets.push(await prepare(AFTER === undefined ? 'after (this tree)' : `after (${AFTER})`, AFTER));
    if (BEFORE !== undefined) targets.push(await prepare(`before (${BEFORE})`, BEFORE));
    const ops = OPERATIONS.filter((o) => OPS.has(o.key));
    console.log(
      `${fmt(GROUPS)} groups of one member, ${BENCH_MS} ms per phase, ${ROUNDS} rounds, best round kept ` +
        '(broker CPU: lowest per request)',
    );
    const best = new Map<string, Result>();
    for (let round = 0; round < ROUNDS; round++) {
      for (const t of targets) {
        for (const op of ops) {
          const profileTo =
            PROFILE !== undefined && t === targets[0] && round === ROUNDS - 1
              ? join(PROFILE, `broker-${op.key}.cpuprofile`)
              : undefined;
          const r = await measure(t, op, profileTo);
          const key = `${t.label}|${op.key}`;
          const prev = best.get(key);
          if (prev === undefined) best.set(key, r);
          else {
            const brokerCpuUs = Math.min(prev.brokerCpuUs, r.brokerCpuUs);
            if (r.perSec > prev.perSec) Object.assign(prev, r);
            prev.brokerCpuUs = brokerCpuUs;
          }
        }
      }
    }
    for (const t of targets) {
      console.log(`\n${t.label}`);
      const base = best.get(`${t.label}|baseline`);
      for (const op of ops) {
        const r = best.get(`${t.label}|${op.key}`) as Result;
        const ratio = base === undefined ? '' : ` ${(r.perSec / base.perSec).toFixed(2)}×`;
        const before =
          targets.length > 1 && t === targets[0] ? best.get(`${targets[1]?.label}|${op.key}`) : undefined;
        const vsBefore = before === undefined ? '' : `, ${(r.perSec / before.perSec).toFixed(1)}× before`;
        console.log(
          `  ${op.label.padEnd(56)} ${fmt(r.perSec).padStart(7)}/s${ratio}${vsBefore}\n` +
            `      broker ${r.brokerCpuUs.toFixed(1)} µs CPU/request, loop ${(r.brokerElu * 100).toFixed(0)}%; ` +
            `load generator ${r.clientCpuUs.toFixed(1)} µs CPU/request, loop ${(r.clientElu * 100).toFixed(0)}%` +
            (op.key === 'baseline' ? '' : `; ${r.recordsPerAppend.toFixed(1)} records per append`),
        );
      }
    }
  } finally {
    for (const t of targets) {
      for (const m of t.members) m.conn.close();
      for (const c of t.shared) c.close();
      await t.broker.close();
    }
  }
}

await main();
