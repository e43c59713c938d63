// The broker's OffsetCommit path without sockets: request frames go straight into the broker's
// Dispatcher (header and body decode, the OffsetCommit handler, the group coordinator, the
// batched append to __consumer_offsets on disk, the response encode), IN_FLIGHT of them at a
// time in a closed loop, one partition per commit, each for the next of GROUPS one-member groups
// in turn. Baseline in the same run: ApiVersions v3 frames through the same Dispatcher (what a
// request costs before any API logic). What is left out is the network layer (socket reads,
// framing, response writes), which bench/groups-commits.ts measures with the rest.
// CPU per request is the whole process's (user + sys, all threads: the log's write worker and
// libuv's pool included); the driver's own share is the same for both operations. Also the heap
// a commit keeps alive while it waits for its append (appends held, IN_FLIGHT commits, full GC):
// with a thousand in flight, that is what every scavenge copies.
// BEFORE=<dir> runs another source tree's broker too (a copy of src/ with bench/ and a
// node_modules link), each tree in a child process of its own, alternating round by round.
// AFTER=<dir> runs this tree from a copy instead. A tree compiled by `tsc --outDir <dir>` (with
// package.json copied into it and a node_modules link) runs without tsx, as the published broker does.
// PROFILE=<dir> writes a CPU profile of this tree's last OffsetCommit and baseline rounds
// (sampled every PROFILE_US µs, default 100) for bench/cpuprofile-summary.ts.
// Run: npx tsx bench/groups-commit-path.ts   (BENCH_MS=3000, ROUNDS=5, GROUPS=1000,
// IN_FLIGHT=1024, BEFORE=<dir>, AFTER=<dir>, PROFILE=<dir>, ALLOCATIONS=1, CHILD_FLAGS='--trace-gc')
import { fork } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { Session } from 'node:inspector/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath, pathToFileURL } from 'node:url';

const BENCH_MS = Number(process.env.BENCH_MS ?? 3000);
const ROUNDS = Number(process.env.ROUNDS ?? 5);
const GROUPS = Number(process.env.GROUPS ?? 1000);
const IN_FLIGHT = Number(process.env.IN_FLIGHT ?? 1024);
const PROFILE_US = Number(process.env.PROFILE_US ?? 100);
/** ALLOCATIONS=1: PROFILE gets V8 sampling heap profiles (every allocation, collected or not). */
const ALLOCATIONS = process.env.ALLOCATIONS === '1';
const TOPIC = 'bench-commit-path';
const OPS = ['commit', 'baseline'] as const;
type OpKey = (typeof OPS)[number];

interface Result {
  perSec: number;
  cpuUs: number;
  elu: number;
  gcShare: number;
  recordsPerAppend: number;
}

const thisRoot = resolve(fileURLToPath(new URL('..', import.meta.url)));

// ---- child: one tree's broker, driven in process ------------------------------------------

async function child(root: string): Promise<void> {
  // A tree compiled by tsc holds .js where the sources have .ts.
  const built = existsSync(join(root, 'src', 'broker', 'broker.js'));
  const load = (path: string) =>
    import(pathToFileURL(join(root, built ? path.replace(/\.ts$/, '.js') : path)).href);
  const { startBroker } = await load('src/broker/broker.ts');
  const { Dispatcher } = await load('src/broker/apis/dispatcher.ts');
  const { encodeRequest, decodeResponse } = await load('src/protocol/messages/frame.ts');
  const { offsetCommitApi } = await load('src/protocol/messages/generated/offset-commit.ts');
  const { apiVersionsApi } = await load('src/protocol/messages/generated/api-versions.ts');
  const { createTopicsApi } = await load('src/protocol/messages/generated/create-topics.ts');
  const { PerformanceObserver } = await import('node:perf_hooks');
  const { LogPartitionWriter } = await load('src/broker/coordinator/runtime/log-partition-writer.ts');
  // Coordinator appends and their records: how well the runtime batches concurrent commits.
  let appends = 0;
  let appended = 0;
  const append = LogPartitionWriter.prototype.append;
  const counted = function (this: unknown, ...args: unknown[]) {
    appends++;
    appended += (args[1] as unknown[]).length;
    return append.apply(this, args);
  };
  LogPartitionWriter.prototype.append = counted;

  const dataDir = await mkdtemp(join(tmpdir(), 'samsa-bench-commit-path-'));
  const broker = await startBroker({
    host: '127.0.0.1',
    port: 0,
    dataDir,
    overrides: { 'group.initial.rebalance.delay.ms': 0 },
  });
  const dispatcher = new Dispatcher(broker.services);
  const conn = {
    id: 1,
    remoteAddress: '127.0.0.1:5000',
    clientSoftwareName: 'bench',
    clientSoftwareVersion: '1',
  };
  const frame = (chunks: Buffer[]) => Buffer.concat(chunks).subarray(4);
  const created = await dispatcher.handle(
    frame(
      encodeRequest(createTopicsApi, 5, 1, 'bench', {
        topics: [{ name: TOPIC, numPartitions: 50, replicationFactor: 1, assignments: [], configs: [] }],
        timeoutMs: 5000,
        validateOnly: false,
      }),
    ),
    conn,
  );
  const createCode = decodeResponse(createTopicsApi, 5, frame(created.chunks)).body.topics[0]?.errorCode;
  if (createCode !== 0) throw new Error(`create topic: ${createCode}`);
  const groups = broker.services.groups;
  await groups.locate('warm-up');
  const gc = groups.coordinator;
  for (let p = 0; p < gc.config.numPartitions; p++)
    while (gc.runtime.status(p) !== 'active') await new Promise((r) => setTimeout(r, 10));

  // One-member groups, joined through the coordinator (JoinGroup twice: MEMBER_ID_REQUIRED).
  const origin = { clientId: 'bench', clientHost: '/127.0.0.1', apiVersion: 9 };
  const joinReq = (groupId: string, memberId: string) => ({
    groupId,
    sessionTimeoutMs: 600_000,
    rebalanceTimeoutMs: 60_000,
    memberId,
    groupInstanceId: null,
    protocolType: 'consumer',
    protocols: [{ name: 'range', metadata: Buffer.alloc(0) }],
  });
  const commitFrames: Buffer[] = [];
  for (let g = 0; g < GROUPS; g++) {
    const groupId = `commit-path-${g}`;
    const first = await gc.joinGroup(origin, joinReq(groupId, ''));
    const j = await gc.joinGroup(origin, joinReq(groupId, first.memberId));
    const s = await gc.syncGroup({
      groupId,
      generationId: j.generationId,
      memberId: j.memberId,
      groupInstanceId: null,
      protocolType: 'consumer',
      protocolName: j.protocolName,
      assignments: [{ memberId: j.memberId, assignment: Buffer.from('a') }],
    });
    if (j.errorCode !== 0 || s.errorCode !== 0)
      throw new Error(`join ${groupId}: ${j.errorCode}/${s.errorCode}`);
    commitFrames.push(
      frame(
        encodeRequest(offsetCommitApi, 8, g, 'bench', {
          groupId,
          generationIdOrMemberEpoch: j.generationId,
          memberId: j.memberId,
          groupInstanceId: null,
          retentionTimeMs: -1n,
          topics: [
            {
              name: TOPIC,
              partitions: [
                {
                  partitionIndex: g % 50,
                  committedOffset: BigInt(g),
                  committedLeaderEpoch: -1,
                  commitTimestamp: -1n,
                  committedMetadata: '',
                },
              ],
            },
          ],
        }),
      ),
    );
  }
  const apiVersionsFrame = frame(
    encodeRequest(apiVersionsApi, 3, 7, 'bench', { clientSoftwareName: 'bench', clientSoftwareVersion: '1' }),
  );

  const checkCommit = (chunks: Buffer[]) => {
    const body = decodeResponse(offsetCommitApi, 8, frame(chunks)).body;
    const code = body.topics[0]?.partitions[0]?.errorCode;
    if (code !== 0) throw new Error(`OffsetCommit: error ${code}`);
  };
  let nextGroup = 0;
  let sent = 0;
  const send: Record<OpKey, () => Promise<void>> = {
    async commit() {
      const f = commitFrames[nextGroup++ % GROUPS] as Buffer;
      const out = await dispatcher.handle(f, conn);
      out.onSent?.();
      // Every response is complete; every 64th is decoded and checked.
      if (out.kind !== 'respond') throw new Error(`OffsetCommit: ${out.kind}`);
      if ((sent++ & 63) === 0) checkCommit(out.chunks);
    },
    async baseline() {
      const out = await dispatcher.handle(apiVersionsFrame, conn);
      out.onSent?.();
      if (out.kind !== 'respond') throw new Error(`ApiVersions: ${out.kind}`);
    },
  };
  const drive = async (op: OpKey, ms: number): Promise<number> => {
    const deadline = performance.now() + ms;
    let requests = 0;
    await Promise.all(
      Array.from({ length: IN_FLIGHT }, async () => {
        while (performance.now() < deadline) {
          await send[op]();
          requests++;
        }
      }),
    );
    return requests;
  };

  let gcMs = 0;
  new PerformanceObserver((list) => {
    for (const e of list.getEntries()) gcMs += e.duration;
  }).observe({ entryTypes: ['gc'] });

  const measure = async (op: OpKey, profileTo?: string): Promise<Result> => {
    await drive(op, Math.min(500, BENCH_MS)); // warm-up
    let session: Session | null = null;
    if (profileTo !== undefined) {
      session = new Session();
      session.connect();
      if (ALLOCATIONS) {
        await session.post('HeapProfiler.startSampling', {
          samplingInterval: 512,
          includeObjectsCollectedByMajorGC: true,
          includeObjectsCollectedByMinorGC: true,
        });
      } else {
        await session.post('Profiler.enable');
        await session.post('Profiler.setSamplingInterval', { interval: PROFILE_US });
        await session.post('Profiler.start');
      }
    }
    const gc0 = gcMs;
    const appends0 = appends;
    const appended0 = appended;
    const elu0 = performance.eventLoopUtilization();
    const cpu0 = process.cpuUsage();
    const t0 = performance.now();
    const requests = await drive(op, BENCH_MS);
    const ms = performance.now() - t0;
    const cpu = process.cpuUsage(cpu0);
    const elu = performance.eventLoopUtilization(elu0);
    const gcShare = (gcMs - gc0) / ms;
    if (session !== null && profileTo !== undefined) {
      const { profile } = ALLOCATIONS
        ? await session.post('HeapProfiler.stopSampling')
        : await session.post('Profiler.stop');
      await writeFile(profileTo, JSON.stringify({ ...profile, requests }));
      session.disconnect();
    }
    return {
      perSec: requests / (ms / 1000),
      cpuUs: (cpu.user + cpu.system) / requests,
      elu: elu.utilization,
      gcShare,
      recordsPerAppend: (appended - appended0) / Math.max(1, appends - appends0),
    };
  };

  /**
   * The heap one commit keeps alive while it waits for its append: appends are held, IN_FLIGHT
   * commits dispatched, then the heap after a full GC compared with the heap before them.
   */
  const retainedPerCommit = async (): Promise<number> => {
    const gcNow = (globalThis as { gc?: () => void }).gc;
    if (gcNow === undefined) throw new Error('the child runs with --expose-gc');
    const held: Array<() => void> = [];
    LogPartitionWriter.prototype.append = function (this: unknown, ...args: unknown[]) {
      return new Promise((res, rej) => held.push(() => append.apply(this, args).then(res, rej)));
    };
    const frames = Array.from({ length: IN_FLIGHT }, (_, i) =>
      Buffer.from(commitFrames[i % GROUPS] as Buffer),
    );
    await new Promise((r) => setImmediate(r));
    gcNow();
    gcNow();
    const before = process.memoryUsage().heapUsed;
    const pending = frames.map((f) => dispatcher.handle(f, conn));
    await new Promise((r) => setImmediate(r));
    await new Promise((r) => setImmediate(r));
    gcNow();
    gcNow();
    const during = process.memoryUsage().heapUsed;
    LogPartitionWriter.prototype.append = counted;
    for (const release of held) release();
    await Promise.all(pending);
    return (during - before) / IN_FLIGHT;
  };

  process.on('message', (m: { op: OpKey | 'retained'; profileTo?: string } | 'close') => {
    if (m === 'close') {
      void broker
        .close()
        .then(() => rm(dataDir, { recursive: true, force: true }))
        .then(() => process.disconnect());
      return;
    }
    if (m.op === 'retained') {
      retainedPerCommit().then(
        (bytes) => process.send?.({ bytes }),
        (err: unknown) => {
          console.error(err);
          process.exit(1);
        },
      );
      return;
    }
    measure(m.op, m.profileTo).then(
      (r) => process.send?.(r),
      (err: unknown) => {
        console.error(err);
        process.exit(1);
      },
    );
  });
  process.send?.('ready');
}

// ---- parent: alternates the trees round by round ------------------------------------------

interface Tree {
  label: string;
  ask(op: OpKey, profileTo?: string): Promise<Result>;
  retained(): Promise<number>;
  close(): void;
}

async function startTree(label: string, root: string): Promise<Tree> {
  // A tree compiled by tsc runs its own compiled copy of this file, without tsx (whose keep-names
  // helper renames every closure created at run time, which the published broker does not do).
  const compiled = join(root, 'bench', 'groups-commit-path.js');
  const built = existsSync(compiled);
  const child = fork(built ? compiled : fileURLToPath(import.meta.url), [], {
    // CHILD_FLAGS: V8/Node flags for the brokers' processes (e.g. --trace-gc, --max-semi-space-size=64).
    execArgv: [
      ...(built ? [] : ['--import', 'tsx']),
      '--expose-gc',
      ...(process.env.CHILD_FLAGS ?? '').split(' ').filter((f) => f !== ''),
    ],
    env: { ...process.env, COMMIT_PATH_ROOT: root },
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  const next = () =>
    new Promise<unknown>((resolveMsg, reject) => {
      const onExit = (code: number | null) => reject(new Error(`${label}: child exited with ${code}`));
      child.once('exit', onExit);
      child.once('message', (m) => {
        child.off('exit', onExit);
        resolveMsg(m);
      });
    });
  await next(); // ready
  return {
    label,
    async ask(op, profileTo) {
      const reply = next();
      child.send({ op, profileTo });
      return (await reply) as Result;
    },
    async retained() {
      const reply = next();
      child.send({ op: 'retained' });
      return ((await reply) as { bytes: number }).bytes;
    },
    close: () => child.send('close'),
  };
}

const fmt = (n: number) => Math.round(n).toLocaleString('en-US');

async function parent(): Promise<void> {
  const after = process.env.AFTER;
  const trees = [
    await startTree(
      after === undefined ? 'after (this tree)' : `after (${after})`,
      after === undefined ? thisRoot : resolve(after),
    ),
  ];
  if (process.env.BEFORE !== undefined)
    trees.push(await startTree(`before (${process.env.BEFORE})`, resolve(process.env.BEFORE)));
  const profileDir = process.env.PROFILE;
  console.log(
    `OffsetCommit v8 through the Dispatcher, no sockets: ${fmt(GROUPS)} groups, ${IN_FLIGHT} in flight, ` +
      `${BENCH_MS} ms per phase, ${ROUNDS} rounds (best rate, lowest CPU per request)`,
  );
  const best = new Map<string, Result>();
  const retained = new Map<string, number>();
  try {
    // Every group commits once first: the store holds an offset of each, as in the rounds.
    for (const t of trees) await t.ask('commit');
    for (const t of trees) retained.set(t.label, await t.retained());
    for (let round = 0; round < ROUNDS; round++) {
      for (const t of trees) {
        for (const op of OPS) {
          const profileTo =
            profileDir !== undefined && t === trees[0] && round === ROUNDS - 1
              ? join(profileDir, `commit-path-${op}.${ALLOCATIONS ? 'heapprofile' : 'cpuprofile'}`)
              : undefined;
          const r = await t.ask(op, profileTo);
          const key = `${t.label}|${op}`;
          const prev = best.get(key);
          if (prev === undefined) best.set(key, r);
          else {
            prev.perSec = Math.max(prev.perSec, r.perSec);
            if (r.cpuUs < prev.cpuUs)
              Object.assign(prev, {
                cpuUs: r.cpuUs,
                elu: r.elu,
                gcShare: r.gcShare,
                recordsPerAppend: r.recordsPerAppend,
              });
          }
        }
      }
    }
  } finally {
    for (const t of trees) t.close();
  }
  for (const t of trees) {
    console.log(
      `\n${t.label}: ${fmt(retained.get(t.label) ?? 0)} bytes of heap kept alive per commit waiting for its append`,
    );
    for (const op of OPS) {
      const r = best.get(`${t.label}|${op}`) as Result;
      const label = op === 'commit' ? 'OffsetCommit v8' : 'baseline: ApiVersions v3';
      const other = trees.length > 1 && t === trees[0] ? best.get(`${trees[1]?.label}|${op}`) : undefined;
      const vs =
        other === undefined
          ? ''
          : `  (${(r.perSec / other.perSec).toFixed(2)}× before's rate, CPU ${(r.cpuUs / other.cpuUs).toFixed(2)}×)`;
      console.log(
        `  ${label.padEnd(26)} ${fmt(r.perSec).padStart(8)}/s  ${r.cpuUs.toFixed(1)} µs CPU/request, ` +
          `loop ${(r.elu * 100).toFixed(0)}%, GC ${(r.gcShare * 100).toFixed(0)}% of the time` +
          (op === 'commit' ? `, ${r.recordsPerAppend.toFixed(1)} records per append` : '') +
          vs,
      );
    }
  }
}

const root = process.env.COMMIT_PATH_ROOT;
// Coordinator timers are unref'd; the IPC channel keeps a child alive.
if (root !== undefined) await child(root);
else await parent();
