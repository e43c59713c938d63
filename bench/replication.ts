// Replication cost (issue 13): librdkafka producing to RF 3 / acks=all / min.insync.replicas 2 on
// three brokers against RF 1 / acks=1 on one broker, in the same run, on the same machine:
//   1. throughput (records/s, MB/s) and produce latency p50/p99 (produce() → delivery report,
//      time queued in the client included) of 1,000,000 × 100 B and 200,000 × 1 KiB, with each
//      broker's CPU (utime + stime of its process, all threads, from /proc) per MB produced;
//   2. follower lag during the RF 3 runs: each broker's own size of the partition (DescribeLogDirs,
//      every --sample-ms, all brokers asked at once); lag = leader's size − follower's size at the
//      same tick, in bytes, in records (÷ bytes per record of the finished log), and in ms (how long
//      before the sample the leader's log had the size the follower has now, interpolated between
//      the leader's samples). No protocol request gives a follower's log end offset as the leader
//      sees it (ListOffsets answers from leaders only), so log sizes are what is compared;
//   3. recovery: kill -9 a follower (not the controller), wait for the ISR to drop it, produce
//      --recover-bytes (default 1 GiB) of 1 KiB records with acks=all, restart it, and time until it
//      is back in the ISR of every partition (the leader's Metadata, polled every 100 ms).
// Both clusters run at once over one testkit ZooKeeper (Debian's), every broker its own process
// started by `startTestCluster` (from the TypeScript sources through tsx, in ZooKeeper mode: the
// RF 1 baseline is a one-broker cluster, so both sides run the same code). Rounds alternate which
// side goes first; the table shows medians with the range over rounds.
//
//   npx tsx bench/replication.ts [--quick] [--rounds 3] [--partitions 1] [--recover-bytes 1073741824]
//                                [--sample-ms 50] [--no-recovery] [--profile DIR] [--logs DIR]
//                                [--broker-config key=value ...] (both clusters; default: none)
//   (--quick: 100,000 × 100 B, 20,000 × 1 KiB, 64 MiB for recovery, 1 round)
// `--profile DIR`: every broker loads a preload that starts V8's sampling profiler on SIGUSR2 and
// writes it on the next SIGUSR2; the bench profiles every broker during the first round's produce
// runs (DIR/<scenario>-broker<id>.cpuprofile) and the recovery (restart → back in the ISR).
// Summarise one with `npx tsx bench/cpuprofile-summary.ts FILE`. Profiling costs CPU: figures
// of a profiled run are not comparable with an unprofiled one.
// The producer is bench/replication-producer.c, compiled here against Debian's librdkafka-dev.

import { execFileSync, spawn } from 'node:child_process';
import { existsSync, mkdirSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { Admin } from '../src/client/index.js';
import { BrokerLink } from '../src/net/index.js';
import { describeLogDirsApi } from '../src/protocol/messages/generated/describe-log-dirs.js';
import { startTestCluster, type TestCluster } from '../src/testkit/cluster.js';
import { startTestZooKeeper, type TestZooKeeper } from '../src/testkit/zookeeper.js';
import { BrokerWatch, cpuMs, loadAverage, pollUntil } from './cluster-views.js';

const { values } = parseArgs({
  options: {
    quick: { type: 'boolean', default: false },
    rounds: { type: 'string' },
    partitions: { type: 'string', default: '1' },
    'recover-bytes': { type: 'string' },
    'sample-ms': { type: 'string', default: '50' },
    'no-recovery': { type: 'boolean', default: false },
    profile: { type: 'string' },
    logs: { type: 'string' },
    'broker-config': { type: 'string', multiple: true },
  },
});
/** `--broker-config k=v` (repeatable): broker configs for both clusters, e.g. to test a hypothesis. */
const OVERRIDES = Object.fromEntries(
  (values['broker-config'] ?? []).map((kv) => {
    const i = kv.indexOf('=');
    return [kv.slice(0, i), kv.slice(i + 1)];
  }),
);
const QUICK = values.quick!;
const ROUNDS = Number(values.rounds ?? (QUICK ? 1 : 3));
const PARTITIONS = Number(values.partitions);
const RECOVER_BYTES = Number(values['recover-bytes'] ?? (QUICK ? 64 * 2 ** 20 : 2 ** 30));
const SAMPLE_MS = Number(values['sample-ms']);
const SCENARIOS = [
  { size: 100, count: QUICK ? 100_000 : 1_000_000 },
  { size: 1024, count: QUICK ? 20_000 : 200_000 },
];
const TMP = '.bench-tmp/replication';
const TOOL = join(TMP, 'replication-producer');
const WAIT_MS = 10 * 60_000;

const log = (s: string) => process.stdout.write(`${s}\n`);
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const fmt = (n: number, d = 0) =>
  Number.isFinite(n)
    ? n.toLocaleString('en-US', { maximumFractionDigits: d, minimumFractionDigits: d })
    : '–';
const median = (a: readonly number[]) => {
  const s = [...a].sort((x, y) => x - y);
  if (s.length === 0) return Number.NaN;
  return s.length % 2 ? s[s.length >> 1]! : (s[s.length / 2 - 1]! + s[s.length / 2]!) / 2;
};
const mean = (a: readonly number[]) => (a.length ? a.reduce((x, y) => x + y, 0) / a.length : Number.NaN);
/** "median (min–max)" over rounds, or the one value. */
const spread = (a: readonly number[], d = 0) =>
  a.length > 1
    ? `${fmt(median(a), d)} (${fmt(Math.min(...a), d)}–${fmt(Math.max(...a), d)})`
    : fmt(a[0] ?? Number.NaN, d);

// ---- load average, sampled every second for the whole run -------------------------------------

const loads: { t: number; load1: number }[] = [];
const loadTimer = setInterval(() => {
  loads.push({ t: performance.now(), load1: Number(loadAverage().split(' ')[0]) });
}, 1000);
function loadBetween(t0: number, t1: number): string {
  const l = loads.filter((x) => x.t >= t0 && x.t <= t1).map((x) => x.load1);
  if (l.length === 0) return loadAverage().split(' ')[0]!;
  return `${fmt(Math.min(...l), 1)}–${fmt(Math.max(...l), 1)} (mean ${fmt(mean(l), 1)})`;
}

// ---- the producer ------------------------------------------------------------------------------

interface ProducerResult {
  records: number;
  failed: number;
  seconds: number;
  p50_ms: number;
  p90_ms: number;
  p99_ms: number;
  p999_ms: number;
  max_ms: number;
  error: string;
}

function produce(
  bootstrap: string,
  topic: string,
  count: number,
  size: number,
  acks: string,
  partitions: number,
): Promise<ProducerResult> {
  return new Promise((resolveRun, reject) => {
    const child = spawn(TOOL, [bootstrap, topic, String(count), String(size), acks, String(partitions)], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    let err = '';
    child.stdout.on('data', (d: Buffer) => (out += d.toString()));
    child.stderr.on('data', (d: Buffer) => (err += d.toString()));
    child.on('error', reject);
    child.on('exit', (code) => {
      const line = out.trim().split('\n').at(-1);
      if (!line) return reject(new Error(`producer exited ${code} without a result: ${err.slice(-2000)}`));
      const r = JSON.parse(line) as ProducerResult;
      if (r.failed > 0 || r.records !== count)
        return reject(
          new Error(
            `producer: ${r.records}/${count} delivered, ${r.failed} failed (${r.error}) ${err.slice(-2000)}`,
          ),
        );
      resolveRun(r);
    });
  });
}

// ---- brokers' views ----------------------------------------------------------------------------

/** One kept connection per broker for DescribeLogDirs. */
class SizeProbe {
  readonly #links = new Map<number, BrokerLink>();

  constructor(cluster: TestCluster) {
    for (const id of cluster.nodeIds)
      this.#links.set(
        id,
        new BrokerLink(id, '127.0.0.1', cluster.broker(id).port!, {
          clientId: 'bench-replication',
          requestTimeoutMs: 120_000,
          reconnectBackoffMs: 20,
          reconnectBackoffMaxMs: 200,
        }),
      );
  }

  /** Size on disk of each partition of `topic` on broker `id` (sum over its log dirs). */
  async sizes(id: number, topic: string, partitions: number): Promise<number[]> {
    const r = await this.#links.get(id)!.request(describeLogDirsApi, {
      topics: [{ topic, partitions: Array.from({ length: partitions }, (_, p) => p) }],
    });
    const out = new Array<number>(partitions).fill(0);
    for (const dir of r.results)
      for (const t of dir.topics)
        if (t.name === topic) for (const p of t.partitions) out[p.partitionIndex]! += Number(p.partitionSize);
    return out;
  }

  close(): void {
    for (const l of this.#links.values()) l.close();
  }
}

interface SizeSample {
  t: number;
  /** By broker id: size per partition (absent if that broker did not answer this tick). */
  sizes: Map<number, number[]>;
}

/** Asks every broker for the topic's sizes every `intervalMs` (all at once) until stopped. */
function sampleSizes(
  probe: SizeProbe,
  ids: readonly number[],
  topic: string,
  partitions: number,
  intervalMs: number,
): { samples: SizeSample[]; stop: () => Promise<void> } {
  const samples: SizeSample[] = [];
  let stopped = false;
  const loop = (async () => {
    while (!stopped) {
      const started = performance.now();
      const sizes = new Map<number, number[]>();
      await Promise.all(
        ids.map(async (id) => {
          try {
            sizes.set(id, await probe.sizes(id, topic, partitions));
          } catch {
            // a broker down or busy: no sample from it this tick
          }
        }),
      );
      samples.push({ t: (started + performance.now()) / 2, sizes });
      await sleep(Math.max(0, intervalMs - (performance.now() - started)));
    }
  })();
  return {
    samples,
    stop: async () => {
      stopped = true;
      await loop;
    },
  };
}

interface LagStats {
  follower: number;
  samples: number;
  maxRecords: number;
  meanRecords: number;
  maxMs: number;
  meanMs: number;
  p99Ms: number;
}

/**
 * Lag of each follower behind the leader, per partition, over the samples in [t0, t1]:
 * records = (leader size − follower size) / bytes per record; ms = sample time − when the leader's
 * log reached the follower's size (linear between the leader's samples; 0 if it has it all).
 */
function lagStats(
  samples: readonly SizeSample[],
  leaders: readonly number[],
  replicas: readonly number[],
  bytesPerRecord: readonly number[],
  t0: number,
  t1: number,
): LagStats[] {
  const out: LagStats[] = [];
  for (const f of replicas) {
    const recs: number[] = [];
    const ms: number[] = [];
    for (let p = 0; p < leaders.length; p++) {
      const leader = leaders[p]!;
      if (leader === f) continue;
      const series = samples
        .filter((s) => s.sizes.has(leader))
        .map((s) => ({ t: s.t, size: s.sizes.get(leader)![p]! }));
      for (const s of samples) {
        if (s.t < t0 || s.t > t1) continue;
        const fs = s.sizes.get(f)?.[p];
        const ls = s.sizes.get(leader)?.[p];
        if (fs === undefined || ls === undefined) continue;
        recs.push(Math.max(0, ls - fs) / bytesPerRecord[p]!);
        if (fs >= ls) {
          ms.push(0);
          continue;
        }
        // First leader sample at or past the follower's size, interpolated with the one before.
        const i = series.findIndex((x) => x.size >= fs);
        if (i < 0) continue;
        const b = series[i]!;
        const a = series[i - 1];
        const reached =
          a === undefined || b.size === a.size
            ? b.t
            : a.t + ((fs - a.size) / (b.size - a.size)) * (b.t - a.t);
        ms.push(Math.max(0, s.t - reached));
      }
    }
    const sorted = [...ms].sort((x, y) => x - y);
    out.push({
      follower: f,
      samples: recs.length,
      maxRecords: Math.max(0, ...recs),
      meanRecords: mean(recs),
      maxMs: Math.max(0, ...ms),
      meanMs: mean(ms),
      p99Ms: sorted[Math.floor((sorted.length - 1) * 0.99)] ?? Number.NaN,
    });
  }
  return out;
}

// ---- profiles ----------------------------------------------------------------------------------

const PROFILE_PRELOAD = `import { writeFileSync } from 'node:fs';
import { Session } from 'node:inspector';
const session = new Session();
session.connect();
let on = false;
let n = 0;
process.on('SIGUSR2', () => {
  if (!on) {
    session.post('Profiler.enable');
    session.post('Profiler.setSamplingInterval', { interval: 1000 });
    session.post('Profiler.start');
    on = true;
    return;
  }
  on = false;
  session.post('Profiler.stop', (err, r) => {
    if (!err) writeFileSync(__DIR__ + '/prof-' + process.pid + '-' + n++ + '.cpuprofile', JSON.stringify(r.profile));
  });
});
`;
const profileSeq = new Map<number, number>();
const profiling = values.profile !== undefined;

function profileStart(pids: readonly number[]): void {
  if (profiling) for (const pid of pids) process.kill(pid, 'SIGUSR2');
}

async function profileStop(pids: readonly { pid: number; name: string }[]): Promise<void> {
  if (!profiling) return;
  const dir = resolve(values.profile!);
  for (const { pid } of pids) process.kill(pid, 'SIGUSR2');
  for (const { pid, name } of pids) {
    const n = profileSeq.get(pid) ?? 0;
    profileSeq.set(pid, n + 1);
    const file = join(dir, `prof-${pid}-${n}.cpuprofile`);
    await pollUntil(`profile ${file}`, async () => existsSync(file), 100, 60_000);
    await sleep(200);
    renameSync(file, join(dir, `${name}.cpuprofile`));
  }
}

// ---- clusters ----------------------------------------------------------------------------------

interface Side {
  name: 'RF 1' | 'RF 3';
  cluster: TestCluster;
  probe: SizeProbe;
  watches: Map<number, BrokerWatch>;
  rf: number;
  acks: string;
  admin: Admin;
}

async function openSide(zk: TestZooKeeper, brokers: number): Promise<Side> {
  const cluster = await startTestCluster({
    zookeeper: zk,
    brokers,
    startTimeoutMs: 300_000,
    overrides: OVERRIDES,
  });
  const watches = new Map(cluster.nodeIds.map((id) => [id, new BrokerWatch(id, cluster.broker(id).port!)]));
  return {
    name: brokers === 1 ? 'RF 1' : 'RF 3',
    cluster,
    probe: new SizeProbe(cluster),
    watches,
    rf: brokers,
    acks: brokers === 1 ? '1' : 'all',
    admin: new Admin({ bootstrapServers: cluster.bootstrap(), requestTimeoutMs: WAIT_MS }),
  };
}

async function closeSide(s: Side, tag: string): Promise<void> {
  await s.admin.close();
  s.probe.close();
  for (const w of s.watches.values()) w.close();
  if (values.logs) {
    mkdirSync(resolve(values.logs), { recursive: true });
    for (const id of s.cluster.nodeIds)
      writeFileSync(resolve(values.logs, `${tag}-broker-${id}.log`), s.cluster.broker(id).output());
  }
  await s.cluster.close();
}

const pidOf = (s: Side, id: number) => s.cluster.broker(id).pid!;

/** Creates the topic and waits until every broker shows every partition with a leader and a full ISR; returns leaders. */
async function createTopic(s: Side, topic: string): Promise<number[]> {
  await s.admin.createTopics(
    [
      {
        name: topic,
        numPartitions: PARTITIONS,
        replicationFactor: s.rf,
        configs: s.rf > 1 ? { 'min.insync.replicas': '2' } : {},
      },
    ],
    { timeoutMs: WAIT_MS },
  );
  return isrOf(s, topic, (isr) => isr.length === s.rf);
}

/** Polls every broker's Metadata until every partition has a leader and `ok(isr)`; returns leaders. */
async function isrOf(
  s: Side,
  topic: string,
  ok: (isr: number[]) => boolean,
  ids = s.cluster.nodeIds,
): Promise<number[]> {
  let leaders: number[] = [];
  await Promise.all(
    ids.map((id) =>
      pollUntil(
        `${topic} on broker ${id}`,
        async () => {
          const m = await s.watches.get(id)!.metadata([topic]);
          if (m.missing.length > 0 || m.partitions.length !== PARTITIONS) return false;
          if (!m.partitions.every((p) => p.leader >= 0 && ok(p.isr))) return false;
          leaders = [...m.partitions].sort((a, b) => a.partition - b.partition).map((p) => p.leader);
          return true;
        },
        100,
        WAIT_MS,
      ),
    ),
  );
  return leaders;
}

// ---- one measured produce run ------------------------------------------------------------------

interface RunResult {
  side: Side['name'];
  topic: string;
  size: number;
  count: number;
  producer: ProducerResult;
  recordsPerSec: number;
  mbPerSec: number;
  /** By broker id. */
  cpuMsPerMb: Map<number, number>;
  clusterCpuMsPerMb: number;
  zkCpuMsPerMb: number;
  leaders: number[];
  lags: LagStats[];
  /** Last ack → every follower's log as large as the leader's (RF 3). */
  tailMs: number;
  minIsr: number;
  load: string;
}

const scenarioName = (size: number, count: number) =>
  `${fmt(count)} × ${size === 1024 ? '1 KiB' : `${size} B`}`;

async function run(
  s: Side,
  zk: TestZooKeeper,
  size: number,
  count: number,
  round: number,
): Promise<RunResult> {
  const topic = `${s.rf === 1 ? 'rf1' : 'rf3'}-${size}-r${round}`;
  const leaders = await createTopic(s, topic);
  const ids = s.cluster.nodeIds;
  await sleep(500);
  const cpu0 = new Map(ids.map((id) => [id, cpuMs(pidOf(s, id))]));
  const zk0 = cpuMs(zk.pid);
  const sampler = sampleSizes(s.probe, ids, topic, PARTITIONS, SAMPLE_MS);
  // ISR watch (the first partition's leader's Metadata, every 500 ms).
  let minIsr = s.rf;
  let watching = true;
  const isrWatch = (async () => {
    while (watching) {
      try {
        const m = await s.watches.get(leaders[0]!)!.metadata([topic]);
        for (const p of m.partitions) minIsr = Math.min(minIsr, p.isr.length);
      } catch {
        // try again
      }
      await sleep(500);
    }
  })();
  const profiled = profiling && round === 0;
  if (profiled) profileStart(ids.map((id) => pidOf(s, id)));
  const t0 = performance.now();
  const producer = await produce(s.cluster.bootstrap(), topic, count, size, s.acks, PARTITIONS);
  const t1 = performance.now();
  // Followers' last fetches: wait until every replica's size equals the leader's (≤ 30 s).
  let tailMs = 0;
  if (s.rf > 1) {
    const done = await pollUntil(
      'followers to reach the leader',
      async () => {
        const all = await Promise.all(ids.map((id) => s.probe.sizes(id, topic, PARTITIONS)));
        return leaders.every((l, p) => all.every((sz) => sz[p] === all[ids.indexOf(l)]![p]));
      },
      SAMPLE_MS,
      30_000,
    ).catch(() => Number.NaN);
    tailMs = done - t1;
  }
  if (profiled) await profileStop(ids.map((id) => ({ pid: pidOf(s, id), name: `${topic}-broker${id}` })));
  await sampler.stop();
  watching = false;
  await isrWatch;
  const cpu1 = new Map(ids.map((id) => [id, cpuMs(pidOf(s, id))]));
  const zk1 = cpuMs(zk.pid);
  const mb = (count * size) / 1e6;
  const cpuMsPerMb = new Map(ids.map((id) => [id, (cpu1.get(id)! - cpu0.get(id)!) / mb]));
  // Bytes per record of each partition's finished log (records go round-robin).
  const final = await s.probe.sizes(leaders[0]!, topic, PARTITIONS);
  const finalSizes = await Promise.all(
    leaders.map(async (l, p) =>
      l === leaders[0] ? final[p]! : (await s.probe.sizes(l, topic, PARTITIONS))[p]!,
    ),
  );
  const bytesPerRecord = finalSizes.map((b, p) => b / (Math.floor((count - p - 1) / PARTITIONS) + 1));
  return {
    side: s.name,
    topic,
    size,
    count,
    producer,
    recordsPerSec: count / producer.seconds,
    mbPerSec: mb / producer.seconds,
    cpuMsPerMb,
    clusterCpuMsPerMb: [...cpuMsPerMb.values()].reduce((a, b) => a + b, 0),
    zkCpuMsPerMb: (zk1 - zk0) / mb,
    leaders,
    lags:
      s.rf > 1
        ? lagStats(sampler.samples, leaders, ids, bytesPerRecord, t0, t1).filter((l) => l.samples > 0)
        : [],
    tailMs,
    minIsr,
    load: loadBetween(t0, performance.now()),
  };
}

function describeRun(r: RunResult): string {
  const cpu = [...r.cpuMsPerMb]
    .map(([id, v]) => `${id}${r.leaders.includes(id) ? '(L)' : ''} ${fmt(v, 1)}`)
    .join(', ');
  const lag = r.lags
    .map(
      (l) =>
        `follower ${l.follower}: max ${fmt(l.maxRecords)} / mean ${fmt(l.meanRecords)} records, max ${fmt(l.maxMs)} / p99 ${fmt(l.p99Ms)} / mean ${fmt(l.meanMs)} ms (${l.samples} samples)`,
    )
    .join('; ');
  return (
    `  ${r.side} ${scenarioName(r.size, r.count)}: ${fmt(r.recordsPerSec)} records/s, ${fmt(r.mbPerSec, 1)} MB/s, ` +
    `p50/p99 ${fmt(r.producer.p50_ms, 1)}/${fmt(r.producer.p99_ms, 1)} ms, CPU ms/MB by broker ${cpu} (ZooKeeper ${fmt(r.zkCpuMsPerMb, 2)})` +
    (r.lags.length
      ? `; lag ${lag}; last ack → followers complete ${fmt(r.tailMs)} ms; min ISR seen ${r.minIsr}`
      : '') +
    `; load ${r.load}`
  );
}

// ---- recovery ----------------------------------------------------------------------------------

interface Recovery {
  victim: number;
  leader: number;
  controller: number;
  killToShrinkMs: number;
  produce: ProducerResult;
  producedBytes: number;
  leaderSizeAtRestart: number;
  victimSizeAtListen: number;
  restartToListenMs: number;
  listenToCaughtUpMs: number;
  listenToIsrMs: number;
  restartToIsrMs: number;
  cpuDuringCatchUp: Map<number, number>;
  load: string;
}

async function recovery(s: Side): Promise<Recovery> {
  const topic = 'recover';
  const leaders = await createTopic(s, topic);
  const leader = leaders[0]!;
  const controller = (await s.watches.get(leader)!.metadata([])).controllerId;
  const followers = s.cluster.nodeIds.filter((id) => id !== leader);
  const victim = followers.find((id) => id !== controller) ?? followers[0]!;
  const survivors = s.cluster.nodeIds.filter((id) => id !== victim);
  log(`  leader ${leader}, controller ${controller}; killing follower ${victim} (kill -9)`);
  const tKill = performance.now();
  await s.cluster.kill(victim);
  await isrOf(s, topic, (isr) => !isr.includes(victim), [leader]);
  const tShrink = performance.now();
  log(
    `  ISR without ${victim} after ${fmt(tShrink - tKill)} ms; producing ${fmt(RECOVER_BYTES / 2 ** 20)} MiB of 1 KiB records, acks=all`,
  );
  const count = Math.round(RECOVER_BYTES / 1024);
  const t0 = performance.now();
  const produced = await produce(s.cluster.bootstrap(), topic, count, 1024, 'all', PARTITIONS);
  log(
    `  produced in ${fmt(produced.seconds, 1)} s (${fmt((count * 1024) / 1e6 / produced.seconds, 1)} MB/s, load ${loadBetween(t0, performance.now())})`,
  );
  const leaderSize = (await s.probe.sizes(leader, topic, PARTITIONS)).reduce((a, b) => a + b, 0);
  await sleep(1000);
  const cpu0 = new Map(s.cluster.nodeIds.map((id) => [id, Number.NaN]));
  for (const id of survivors) cpu0.set(id, cpuMs(pidOf(s, id)));
  const tRestart = performance.now();
  if (profiling) {
    // The restarted broker profiles from its start (preload + SIGUSR2 at once), the survivors now.
    profileStart(survivors.map((id) => pidOf(s, id)));
  }
  await s.cluster.restart(victim);
  const tListen = performance.now();
  if (profiling) profileStart([pidOf(s, victim)]);
  cpu0.set(victim, 0); // a new process: all its CPU counts
  const victimSize = await s.probe
    .sizes(victim, topic, PARTITIONS)
    .then((a) => a.reduce((x, y) => x + y, 0))
    .catch(() => Number.NaN);
  // Caught up: the victim's log as large as the leader's (nothing is produced meanwhile).
  const caughtUp = pollUntil(
    'the restarted follower to reach the leader',
    async () => (await s.probe.sizes(victim, topic, PARTITIONS)).reduce((a, b) => a + b, 0) >= leaderSize,
    100,
    WAIT_MS,
  );
  await isrOf(s, topic, (isr) => isr.includes(victim), [leader]);
  const tIsr = performance.now();
  const tCaught = await caughtUp;
  const cpu = new Map(s.cluster.nodeIds.map((id) => [id, cpuMs(pidOf(s, id)) - cpu0.get(id)!]));
  if (profiling)
    await profileStop(
      s.cluster.nodeIds.map((id) => ({
        pid: pidOf(s, id),
        name: `recovery-broker${id}${id === victim ? '-restarted' : ''}`,
      })),
    );
  return {
    victim,
    leader,
    controller,
    killToShrinkMs: tShrink - tKill,
    produce: produced,
    producedBytes: count * 1024,
    leaderSizeAtRestart: leaderSize,
    victimSizeAtListen: victimSize,
    restartToListenMs: tListen - tRestart,
    listenToCaughtUpMs: tCaught - tListen,
    listenToIsrMs: tIsr - tListen,
    restartToIsrMs: tIsr - tRestart,
    cpuDuringCatchUp: cpu,
    load: loadBetween(tRestart, tIsr),
  };
}

// ---- main --------------------------------------------------------------------------------------

async function idleCost(s: Side): Promise<Map<number, number>> {
  // CPU per second of each broker with the size sampler running and nothing produced.
  const topic = `idle-${s.rf}`;
  await createTopic(s, topic);
  const ids = s.cluster.nodeIds;
  const c0 = new Map(ids.map((id) => [id, cpuMs(pidOf(s, id))]));
  const t0 = performance.now();
  const sampler = sampleSizes(s.probe, ids, topic, PARTITIONS, SAMPLE_MS);
  await sleep(5000);
  await sampler.stop();
  const secs = (performance.now() - t0) / 1000;
  return new Map(ids.map((id) => [id, (cpuMs(pidOf(s, id)) - c0.get(id)!) / secs]));
}

async function main(): Promise<void> {
  rmSync(TMP, { recursive: true, force: true });
  mkdirSync(TMP, { recursive: true });
  execFileSync('cc', ['-O2', '-o', TOOL, 'bench/replication-producer.c', '-lrdkafka']);
  if (profiling) {
    // Node 20 refuses --cpu-prof in NODE_OPTIONS; --import is allowed (the testkit's brokers inherit it).
    const dir = resolve(values.profile!);
    mkdirSync(dir, { recursive: true });
    const preload = resolve(dir, 'cpu-profile-on-sigusr2.mjs');
    writeFileSync(preload, PROFILE_PRELOAD.replace('__DIR__', JSON.stringify(dir)));
    process.env.NODE_OPTIONS = `${process.env.NODE_OPTIONS ?? ''} --import=${preload}`.trim();
  }
  const tStart = performance.now();
  log(
    `replication bench: ${ROUNDS} round(s) of ${SCENARIOS.map((x) => scenarioName(x.size, x.count)).join(' and ')}, ` +
      `${PARTITIONS} partition(s); RF 1 acks=1 (1 broker) vs RF 3 acks=all min.insync.replicas=2 (3 brokers); ` +
      `recovery of ${fmt(RECOVER_BYTES / 2 ** 20)} MiB; size samples every ${SAMPLE_MS} ms; broker configs ${JSON.stringify(OVERRIDES)}; load average at start ${loadAverage()}`,
  );
  const zk = await startTestZooKeeper();
  let one: Side | undefined;
  let three: Side | undefined;
  try {
    one = await openSide(zk, 1);
    three = await openSide(zk, 3);
    log(`clusters up after ${fmt((performance.now() - tStart) / 1000, 1)} s; load ${loadAverage()}`);
    const idle1 = await idleCost(one);
    const idle3 = await idleCost(three);
    log(
      `idle CPU with the size sampler running, ms per s: RF 1 broker ${fmt(idle1.get(1)!, 1)}; RF 3 brokers ${[...idle3].map(([id, v]) => `${id} ${fmt(v, 1)}`).join(', ')}`,
    );
    const results: RunResult[] = [];
    const tBench = performance.now();
    for (let round = 0; round < ROUNDS; round++) {
      log(`\n== round ${round + 1}/${ROUNDS} (load ${loadAverage()})`);
      for (const { size, count } of SCENARIOS) {
        const order = round % 2 === 0 ? [one, three] : [three, one];
        for (const s of order) {
          const r = await run(s, zk, size, count, round);
          results.push(r);
          log(describeRun(r));
        }
      }
    }
    const tBenchEnd = performance.now();

    let rec: Recovery | undefined;
    if (!values['no-recovery']) {
      log(`\n== recovery (load ${loadAverage()})`);
      // The measurement topics go first: the restarted broker then recovers only this topic's log.
      const old = results.filter((r) => r.side === 'RF 3').map((r) => r.topic);
      await three.admin.deleteTopics([...old, 'idle-3'], { timeoutMs: WAIT_MS }).catch((e: unknown) => {
        log(`  (deleting the measurement topics failed: ${e instanceof Error ? e.message : String(e)})`);
      });
      await sleep(2000);
      rec = await recovery(three);
    }

    // ---- report ----
    log(`\n== results (${ROUNDS} round(s); medians, range over rounds in brackets)\n`);
    log(
      '| scenario | records/s | MB/s | latency p50 / p99 ms | broker CPU ms per MB (leader of partition 0; the others) | all brokers CPU ms per MB | ratio RF 3 / RF 1 (records/s) |',
    );
    log('| --- | --- | --- | --- | --- | --- | --- |');
    for (const { size, count } of SCENARIOS) {
      const rf1 = results.filter((r) => r.side === 'RF 1' && r.size === size);
      const rf3 = results.filter((r) => r.side === 'RF 3' && r.size === size);
      const ratios = rf3.map((r, i) => r.recordsPerSec / rf1[i]!.recordsPerSec);
      for (const [name, rs] of [
        ['RF 1, acks=1, 1 broker', rf1],
        ['RF 3, acks=all, min ISR 2, 3 brokers', rf3],
      ] as const) {
        const leaderCpu = rs.map((r) => r.cpuMsPerMb.get(r.leaders[0]!)!);
        const followerCpu = rs.flatMap((r) =>
          [...r.cpuMsPerMb].filter(([id]) => id !== r.leaders[0]).map(([, v]) => v),
        );
        log(
          `| ${scenarioName(size, count)}, ${name} | ${spread(rs.map((r) => r.recordsPerSec))} | ${spread(
            rs.map((r) => r.mbPerSec),
            1,
          )} | ${fmt(median(rs.map((r) => r.producer.p50_ms)), 1)} / ${fmt(median(rs.map((r) => r.producer.p99_ms)), 1)} | ${spread(leaderCpu, 1)}${
            followerCpu.length ? `; ${spread(followerCpu, 1)}` : ''
          } | ${spread(
            rs.map((r) => r.clusterCpuMsPerMb),
            1,
          )} | ${rs === rf3 ? `${fmt(median(ratios), 2)}× (${ratios.map((x) => fmt(x, 2)).join(', ')})` : '–'} |`,
        );
      }
    }
    log(
      '\nFollower lag during the RF 3 runs (leader size − follower size, same tick), over all rounds and both followers:\n',
    );
    log(
      '| scenario | max records | mean records | max ms | p99 ms | mean ms | last ack → followers complete ms | min ISR seen |',
    );
    log('| --- | --- | --- | --- | --- | --- | --- | --- |');
    for (const { size, count } of SCENARIOS) {
      const rf3 = results.filter((r) => r.side === 'RF 3' && r.size === size);
      const lags = rf3.flatMap((r) => r.lags.filter((l) => l.samples > 0));
      log(
        `| ${scenarioName(size, count)} | ${fmt(Math.max(...lags.map((l) => l.maxRecords)))} | ${fmt(mean(lags.map((l) => l.meanRecords)))} | ${fmt(
          Math.max(...lags.map((l) => l.maxMs)),
        )} | ${fmt(median(lags.map((l) => l.p99Ms)))} | ${fmt(mean(lags.map((l) => l.meanMs)))} | ${spread(rf3.map((r) => r.tailMs))} | ${Math.min(
          ...rf3.map((r) => r.minIsr),
        )} |`,
      );
    }
    if (rec) {
      log('\nRecovery of a killed follower:\n');
      log('| measure | value |');
      log('| --- | --- |');
      log(
        `| follower killed (kill -9) / leader / controller | ${rec.victim} / ${rec.leader} / ${rec.controller} |`,
      );
      log(`| kill → ISR without it (ZooKeeper session expiry) | ${fmt(rec.killToShrinkMs)} ms |`);
      log(
        `| produced while it was down, acks=all, ISR of 2 | ${fmt(rec.producedBytes / 2 ** 20)} MiB (${fmt(rec.leaderSizeAtRestart / 2 ** 20)} MiB on disk) in ${fmt(rec.produce.seconds, 1)} s = ${fmt(
          rec.producedBytes / 1e6 / rec.produce.seconds,
          1,
        )} MB/s, p50/p99 ${fmt(rec.produce.p50_ms)}/${fmt(rec.produce.p99_ms)} ms |`,
      );
      log(
        `| restart → listening | ${fmt(rec.restartToListenMs)} ms (its log then ${fmt(rec.victimSizeAtListen / 2 ** 20, 1)} MiB) |`,
      );
      log(
        `| listening → its log as large as the leader's | ${fmt(rec.listenToCaughtUpMs)} ms (${fmt(
          (rec.leaderSizeAtRestart - (Number.isFinite(rec.victimSizeAtListen) ? rec.victimSizeAtListen : 0)) /
            1e6 /
            (rec.listenToCaughtUpMs / 1000),
          1,
        )} MB/s) |`,
      );
      log(`| listening → back in the ISR (leader's Metadata) | ${fmt(rec.listenToIsrMs)} ms |`);
      log(`| **restart → back in the ISR** | **${fmt(rec.restartToIsrMs)} ms** |`);
      log(
        `| CPU from restart to back in the ISR | ${[...rec.cpuDuringCatchUp]
          .map(
            ([id, v]) =>
              `broker ${id}${id === rec!.victim ? ' (restarted)' : id === rec!.leader ? ' (leader)' : ''} ${fmt(v)} ms`,
          )
          .join(', ')} |`,
      );
      log(`| load average (1 min) during the catch-up | ${rec.load} |`);
    }
    log(
      `\nload average (1 min) during the produce rounds: ${loadBetween(tBench, tBenchEnd)}; whole run ${fmt((performance.now() - tStart) / 1000)} s, load now ${loadAverage()}`,
    );
  } finally {
    clearInterval(loadTimer);
    if (one) await closeSide(one, 'rf1');
    if (three) await closeSide(three, 'rf3');
    await zk.stop();
  }
}

main().catch((e: unknown) => {
  console.error(e);
  process.exit(1);
});
