// The cluster's control plane under failures: 3 brokers, each its own process, over the testkit's
// ZooKeeper (Debian's), for several partition counts. Measures
//   1. leader failover: kill -9 a (non-controller) broker that leads partitions → first acks=1
//      produce on the new leader of one of them (our producer, retrying), and → every partition it
//      led has another leader in every survivor's Metadata; with the ZooKeeper session timeout
//      (the detection floor) and the time after detection (its /brokers/ids znode vanishing);
//   2. controller failover: kill -9 the controller → a new /controller → every survivor's
//      Metadata names the new controller (sent with the full UpdateMetadata);
//   3. controlled shutdown: SIGTERM a non-controller broker leading ~1/3 of the partitions →
//      process exit, and → no survivor shows it as a leader (Kafka 1.1's post measured this);
//   4. topic creation: CreateTopics answered → every broker's Metadata has the topic with
//      leaders, for 1- and 100-partition topics (median of several).
// Not a test: nothing is asserted about speed. Data does not matter (acks=1, nothing depends on
// followers' progress): this is about the controller, ZooKeeper and metadata propagation.
//
//   npx tsx bench/cluster-failover.ts [--partitions 10,1000,10000] [--quick] [--session-ms 6000]
//                                     [--samples 7] [--scenarios 1,2,3,4] [--profile DIR] [--logs DIR]
//   (--quick: 10 and 1,000 partitions unless --partitions says otherwise, 3 samples instead of 7)
//
// Layout: topics of 100 partitions (fewer when the count is below 100), replication factor 3, so
// every broker hosts every partition (10,000 partitions = 10,000 replicas per broker, Kafka 1.1's
// post had 10,000 per broker) and every ISR survives one loss. Two fresh clusters per partition
// count (one ZooKeeper for all, a chroot each), so that each failure starts from full ISRs (a
// broker that left an ISR is back in it only once its fetchers caught up): cluster A runs 3, then 2
// (after the SIGTERMed broker restarted); cluster B runs 1, then 4 (after the killed broker
// restarted: new topics get all three brokers).
// `--profile DIR` profiles every broker process (V8's sampler through node:inspector, preloaded
// with NODE_OPTIONS=--import): DIR/broker-<pid>.cpuprofile, written when a broker exits normally
// (the SIGTERMed one, and all of them at the end: then they are stopped with SIGTERM), plus
// DIR/marks.json: the bench's events on the profiles' clock and which pid was which broker.
// `--logs DIR` saves what each broker printed (DIR/<cluster>-broker-<id>.log) when a cluster ends.

import { mkdirSync, writeFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { Admin, Producer } from '../src/client/index.js';
import { startTestCluster, type TestCluster } from '../src/testkit/cluster.js';
import { startTestZooKeeper, type TestZooKeeper } from '../src/testkit/zookeeper.js';
import {
  allUntil,
  type BrokerMetadata,
  BrokerWatch,
  cpuMs,
  loadAverage,
  logTimes,
  pollUntil,
  ZkWatch,
} from './cluster-views.js';

const { values } = parseArgs({
  options: {
    partitions: { type: 'string' },
    quick: { type: 'boolean', default: false },
    'session-ms': { type: 'string', default: '6000' },
    samples: { type: 'string' },
    profile: { type: 'string' },
    scenarios: { type: 'string', default: '1,2,3,4' },
    logs: { type: 'string' },
  },
});
const SCENARIOS = new Set(values.scenarios!.split(',').map((s) => Number(s.trim())));
const wants = (scenario: number) => SCENARIOS.has(scenario);
const SIZES = (values.partitions ?? (values.quick ? '10,1000' : '10,1000,10000'))
  .split(',')
  .map((s) => Number(s.trim()));
const SESSION_MS = Number(values['session-ms']);
const SAMPLES = Number(values.samples ?? (values.quick ? 3 : 7));
const RF = 3;
const TOPIC_SIZE = 100;
/** Generous: a loaded 2-core machine is slow, a hang still ends. */
const WAIT_MS = 15 * 60_000;

const log = (s: string) => process.stdout.write(`${s}\n`);
const since = (t0: number, t: number) => Math.round(t - t0);
const median = (a: readonly number[]) => {
  const s = [...a].sort((x, y) => x - y);
  return s.length === 0
    ? Number.NaN
    : s.length % 2
      ? s[s.length >> 1]!
      : (s[s.length / 2 - 1]! + s[s.length / 2]!) / 2;
};
/** Poll interval for whole-cluster Metadata: each poll costs a survivor a full encode. */
const fullPollMs = (n: number) => Math.max(20, Math.round(n / 50));

let zk: TestZooKeeper;
/** With --profile: CLOCK_MONOTONIC µs (the clock of V8's profile timestamps) of each event, and broker pids. */
const marks: { label: string; us: number }[] = [];
const pids: { cluster: string; nodeId: number; pid: number | null }[] = [];
/** Marks `label` at `at` (a performance.now() value; default now). */
function mark(label: string, at = performance.now()): void {
  const nowUs = Number(process.hrtime.bigint() / 1000n);
  marks.push({ label, us: Math.round(nowUs - (performance.now() - at) * 1000) });
}
function notePids(tag: string, cluster: TestCluster): void {
  for (const id of cluster.nodeIds) pids.push({ cluster: tag, nodeId: id, pid: cluster.broker(id).pid });
}
const results = new Map<string, Map<number, string>>();
function record(measure: string, size: number, value: string | number): void {
  if (!results.has(measure)) results.set(measure, new Map());
  const shown = typeof value === 'number' ? String(Math.round(value)) : value;
  results.get(measure)!.set(size, shown);
  log(`  ${measure}: ${shown}`);
}

interface Setup {
  tag: string;
  cluster: TestCluster;
  topics: string[];
  watches: Map<number, BrokerWatch>;
  zkw: ZkWatch;
  /** Brokers the bench stopped or killed on purpose (their registration may go). */
  down: Set<number>;
  /** Registrations lost that the bench did not cause (a broker's ZooKeeper session expired). */
  lost: string[];
  stopMonitor: () => void;
}

function topicsFor(n: number, tag: string): { names: string[]; per: number } {
  const per = Math.min(TOPIC_SIZE, n);
  const count = Math.ceil(n / per);
  return { names: Array.from({ length: count }, (_, i) => `${tag}-${i}`), per };
}

function watchesOf(cluster: TestCluster): Map<number, BrokerWatch> {
  return new Map(cluster.nodeIds.map((id) => [id, new BrokerWatch(id, cluster.broker(id).port!)]));
}

/** Every partition of the topics asked for is known, `n` of them, each with a leader. */
const complete = (m: BrokerMetadata, n: number) =>
  m.missing.length === 0 && m.partitions.length === n && m.partitions.every((p) => p.leader >= 0);

async function setUp(n: number, tag: string): Promise<Setup> {
  const t0 = performance.now();
  const cluster = await startTestCluster({
    zookeeper: zk,
    brokers: 3,
    sessionTimeoutMs: SESSION_MS,
    overrides: {
      // Nothing here depends on follower progress: keep ISRs as assigned even when fetchers are
      // starved on a loaded machine.
      'replica.lag.time.max.ms': 3_600_000,
    },
    startTimeoutMs: 300_000,
  });
  const started = performance.now();
  const { names, per } = topicsFor(n, tag);
  const admin = new Admin({ bootstrapServers: cluster.bootstrap(), requestTimeoutMs: WAIT_MS });
  const watches = watchesOf(cluster);
  try {
    for (let i = 0; i < names.length; i += 10) {
      await admin.createTopics(
        names.slice(i, i + 10).map((name) => ({ name, numPartitions: per, replicationFactor: RF })),
        { timeoutMs: WAIT_MS },
      );
    }
    const answered = performance.now();
    mark(`${n} setup ${tag}: brokers started`, started);
    mark(`${n} setup ${tag}: CreateTopics answered`, answered);
    const seen = await allUntil(
      'every broker to show every partition with a leader',
      [...watches.values()],
      null,
      (m) => complete(m, names.length * per),
      fullPollMs(n),
      WAIT_MS,
    );
    mark(`${n} setup ${tag}: on every broker`, seen);
    notePids(tag, cluster);
    log(
      `  cluster ${tag}: 3 brokers started in ${since(t0, started)} ms; ${names.length} topic(s) × ${per} partitions, RF ${RF}`,
    );
    record(
      `0. setup, cluster ${tag[0]!.toUpperCase()}: create all topics (10 per request): answered / on every broker (ms)`,
      n,
      `${since(started, answered)} / ${since(started, seen)}`,
    );
  } finally {
    await admin.close();
  }
  const zkw = await ZkWatch.open(cluster.zookeeperConnect);
  const s: Setup = {
    tag,
    cluster,
    topics: names,
    watches,
    zkw,
    down: new Set(),
    lost: [],
    stopMonitor: () => {},
  };
  const missing = new Set<number>();
  s.stopMonitor = zkw.monitorBrokers((ids, at) => {
    for (const id of cluster.nodeIds) {
      if (ids.includes(id)) missing.delete(id);
      else if (!s.down.has(id) && !missing.has(id)) {
        missing.add(id);
        const what = `broker ${id}'s registration (its ZooKeeper session) lost at +${since(t0, at)} ms of cluster ${tag}`;
        s.lost.push(what);
        log(`  ! ${what}`);
      }
    }
  });
  return s;
}

async function tearDown(s: Setup, n: number): Promise<void> {
  s.stopMonitor();
  for (const what of s.lost) {
    // What the broker said around it (the CLI logger's lines: ISO time, level, message).
    const id = Number(/broker (\d+)/.exec(what)![1]);
    const lines = s.cluster
      .broker(id)
      .output()
      .split('\n')
      .filter((l) => /ZooKeeper|session|xpire|WARN|ERROR|broker started|controlled shutdown/.test(l));
    log(`  ${what}; broker ${id}'s log:\n    ${lines.slice(-12).join('\n    ')}`);
  }
  for (const id of s.cluster.nodeIds) s.down.add(id);
  record(
    `0. brokers that lost their ZooKeeper session without being killed, cluster ${s.tag[0]!.toUpperCase()}`,
    n,
    s.lost.length,
  );
  if (values.logs) {
    // Everything each broker printed (the testkit keeps the last 200,000 characters).
    mkdirSync(resolve(values.logs), { recursive: true });
    for (const id of s.cluster.nodeIds)
      writeFileSync(resolve(values.logs, `${s.tag}-broker-${id}.log`), s.cluster.broker(id).output());
  }
  for (const w of s.watches.values()) w.close();
  await s.zkw.close();
  if (values.profile) {
    // Profiles are written on a normal exit only.
    for (const id of s.cluster.nodeIds) if (s.cluster.broker(id).running) await s.cluster.stop(id);
  }
  await s.cluster.close();
}

function leaderCounts(m: BrokerMetadata): Map<number, number> {
  const c = new Map<number, number>();
  for (const p of m.partitions) c.set(p.leader, (c.get(p.leader) ?? 0) + 1);
  return c;
}

/** The non-controller broker that leads the most partitions. */
async function busiestFollowerOfController(
  s: Setup,
): Promise<{ victim: number; controller: number; led: BrokerMetadata['partitions'] }> {
  const controller = await s.zkw.controller();
  const m = await s.watches.get(controller)!.metadata(null);
  const counts = leaderCounts(m);
  const victim = s.cluster.nodeIds
    .filter((id) => id !== controller)
    .sort((a, b) => (counts.get(b) ?? 0) - (counts.get(a) ?? 0))[0]!;
  return { victim, controller, led: m.partitions.filter((p) => p.leader === victim) };
}

// 4. Topic creation → every broker.
async function propagation(s: Setup, n: number): Promise<void> {
  const admin = new Admin({ bootstrapServers: s.cluster.bootstrap(), requestTimeoutMs: WAIT_MS });
  const all = [...s.watches.values()];
  try {
    await admin.connect();
    for (const parts of [1, 100]) {
      const answer: number[] = [];
      const spread: number[] = [];
      for (let i = 0; i < SAMPLES; i++) {
        const name = `prop-${parts}-${i}`;
        // A broker whose session expired (see the "lost" row) must be back before a 3-replica topic.
        await pollUntil(
          '3 registered brokers',
          async () => (await s.zkw.brokers()).length === 3,
          50,
          WAIT_MS,
        );
        const t0 = performance.now();
        await admin.createTopics([{ name, numPartitions: parts, replicationFactor: RF }], {
          timeoutMs: WAIT_MS,
        });
        const t1 = performance.now();
        const t2 = await allUntil(
          `${name} on every broker`,
          all,
          [name],
          (m) => complete(m, parts),
          2,
          WAIT_MS,
        );
        answer.push(t1 - t0);
        spread.push(t2 - t1);
      }
      record(`4. CreateTopics ${parts} partition(s): request → answered, median (ms)`, n, median(answer));
      record(
        `4. CreateTopics ${parts} partition(s): answered → on all 3 brokers, median [min–max] (ms)`,
        n,
        `${Math.round(median(spread))} [${Math.round(Math.min(...spread))}–${Math.round(Math.max(...spread))}]`,
      );
    }
  } finally {
    await admin.close();
  }
}

// 3. Controlled shutdown.
async function controlledShutdown(s: Setup, n: number): Promise<number> {
  const { victim, controller, led } = await busiestFollowerOfController(s);
  const survivors = s.cluster.nodeIds.filter((id) => id !== victim).map((id) => s.watches.get(id)!);
  log(`  SIGTERM broker ${victim}, leader of ${led.length} of ${n} partitions (controller: ${controller})`);
  const cpu0 = cpuMs(s.cluster.broker(controller).pid);
  const wall0 = Date.now();
  const t0 = performance.now();
  s.down.add(victim);
  const exited = s.cluster.stop(victim).then(() => performance.now());
  const moved = allUntil(
    `no survivor showing broker ${victim} as a leader`,
    survivors,
    s.topics,
    (m) => complete(m, n) && m.partitions.every((p) => p.leader !== victim),
    fullPollMs(n),
    WAIT_MS,
  );
  const [tExit, tMoved] = await Promise.all([exited, moved]);
  mark(`${n} controlled shutdown: SIGTERM to broker ${victim}`, t0);
  mark(`${n} controlled shutdown: leaders moved`, tMoved);
  mark(`${n} controlled shutdown: exit`, tExit);
  const cpu = cpuMs(s.cluster.broker(controller).pid) - cpu0;
  record(`3. controlled shutdown: leaders on the stopped broker`, n, led.length);
  record(`3. controlled shutdown: SIGTERM → process exit (ms)`, n, since(t0, tExit));
  record(`3. controlled shutdown: SIGTERM → no survivor shows it as leader (ms)`, n, since(t0, tMoved));
  const ack = logTimes(s.cluster.broker(victim).output(), /controlled shutdown succeeded/);
  const asked = logTimes(
    s.cluster.broker(controller).output(),
    /INFO controller: controlled shutdown /,
  ).filter((t) => t >= wall0 - 1000);
  record(
    `3. controlled shutdown (broker logs): SIGTERM → controller logs it / → broker gets its answer (ms)`,
    n,
    `${asked.length ? asked[0]! - wall0 : '?'} / ${ack.length ? ack.at(-1)! - wall0 : '?'}`,
  );
  record(
    `3. controlled shutdown: controller process CPU, SIGTERM → exit (ms)`,
    n,
    Number.isNaN(cpu) ? '?' : cpu,
  );
  return victim;
}

// 2. Controller failover.
async function controllerFailover(s: Setup, n: number): Promise<void> {
  const old = await s.zkw.controller();
  const survivors = s.cluster.nodeIds.filter((id) => id !== old).map((id) => s.watches.get(id)!);
  const before = await s.watches.get(old)!.metadata(null);
  const led = before.partitions.filter((p) => p.leader === old).length;
  log(`  kill -9 controller ${old}, leader of ${led} of ${n} partitions`);
  const wall0 = Date.now();
  const t0 = performance.now();
  s.down.add(old);
  await s.cluster.kill(old);
  const detected = pollUntil(
    `/brokers/ids/${old} gone`,
    async () => !(await s.zkw.registered(old)),
    5,
    WAIT_MS,
  );
  let newId = -1;
  const elected = pollUntil(
    'a new /controller',
    async () => {
      const c = await s.zkw.controller();
      if (c >= 0 && c !== old) newId = c;
      return newId >= 0;
    },
    5,
    WAIT_MS,
  );
  const announced = allUntil(
    'every survivor to name the new controller',
    survivors,
    [],
    (m) => m.controllerId >= 0 && m.controllerId !== old,
    5,
    WAIT_MS,
  );
  const releaded = allUntil(
    `no survivor showing broker ${old} as a leader`,
    survivors,
    s.topics,
    (m) => complete(m, n) && m.partitions.every((p) => p.leader !== old),
    fullPollMs(n),
    WAIT_MS,
  );
  const [tDetect, tElect, tAnnounce, tLeaders] = await Promise.all([detected, elected, announced, releaded]);
  mark(`${n} controller failover: kill -9 of broker ${old}`, t0);
  mark(`${n} controller failover: detected`, tDetect);
  mark(`${n} controller failover: broker ${newId} elected`, tElect);
  mark(`${n} controller failover: announced`, tAnnounce);
  mark(`${n} controller failover: leaders moved`, tLeaders);
  record(`2. controller kill -9: partitions it led`, n, led);
  record(`2. controller kill -9: kill → /brokers/ids znode gone (detection) (ms)`, n, since(t0, tDetect));
  record(`2. controller kill -9: kill → new /controller znode (ms)`, n, since(t0, tElect));
  record(
    `2. controller kill -9: kill → every survivor names the new controller (ms)`,
    n,
    since(t0, tAnnounce),
  );
  record(
    `2. controller kill -9: after detection: elected / announced / its leaderships moved (ms)`,
    n,
    `${since(tDetect, tElect)} / ${since(tDetect, tAnnounce)} / ${since(tDetect, tLeaders)}`,
  );
  const out = s.cluster.broker(newId).output();
  const electedLog = logTimes(out, /INFO controller: elected controller/).filter((t) => t >= wall0);
  const initLog = logTimes(out, /INFO controller: active controller initialised/).filter((t) => t >= wall0);
  if (electedLog.length && initLog.length)
    record(
      `2. controller kill -9 (new controller's log): elected → state loaded from ZooKeeper (ms)`,
      n,
      initLog[0]! - electedLog[0]!,
    );
}

// 1. Leader failover.
async function leaderFailover(s: Setup, n: number): Promise<number> {
  const { victim, controller, led } = await busiestFollowerOfController(s);
  const survivors = s.cluster.nodeIds.filter((id) => id !== victim).map((id) => s.watches.get(id)!);
  const target = led[0]!;
  const producer = new Producer({
    bootstrapServers: s.cluster.bootstrap(),
    acks: 1,
    enableIdempotence: false,
  });
  try {
    // Connections and metadata in place before the kill, as for a producer already running.
    await producer.send({ topic: target.topic, partition: target.partition, value: Buffer.from('before') });
    log(
      `  kill -9 broker ${victim}, leader of ${led.length} of ${n} partitions (controller: ${controller}); producing to ${target.topic}-${target.partition}`,
    );
    const t0 = performance.now();
    s.down.add(victim);
    await s.cluster.kill(victim);
    const produced = producer
      .send({ topic: target.topic, partition: target.partition, value: Buffer.from('after') })
      .then(() => performance.now());
    const detected = pollUntil(
      `/brokers/ids/${victim} gone`,
      async () => !(await s.zkw.registered(victim)),
      5,
      WAIT_MS,
    );
    const ledSet = new Set(led.map((p) => `${p.topic}/${p.partition}`));
    const releaded = allUntil(
      `new leaders for the partitions broker ${victim} led`,
      survivors,
      s.topics,
      (m) =>
        complete(m, n) &&
        m.partitions.every(
          (p) => !ledSet.has(`${p.topic}/${p.partition}`) || (p.leader >= 0 && p.leader !== victim),
        ),
      fullPollMs(n),
      WAIT_MS,
    );
    const [tProduce, tDetect, tLeaders] = await Promise.all([produced, detected, releaded]);
    mark(`${n} leader failover: kill -9 of broker ${victim}`, t0);
    mark(`${n} leader failover: detected`, tDetect);
    mark(`${n} leader failover: leaders moved`, tLeaders);
    mark(`${n} leader failover: produced`, tProduce);
    record(`1. leader kill -9: partitions it led`, n, led.length);
    record(`1. leader kill -9: kill → /brokers/ids znode gone (detection) (ms)`, n, since(t0, tDetect));
    record(`1. leader kill -9: kill → first acks=1 produce on the new leader (ms)`, n, since(t0, tProduce));
    record(
      `1. leader kill -9: kill → all its partitions led by survivors, on every survivor (ms)`,
      n,
      since(t0, tLeaders),
    );
    record(
      `1. leader kill -9: after detection: first produce / all leaders visible (ms)`,
      n,
      `${since(tDetect, tProduce)} / ${since(tDetect, tLeaders)}`,
    );
    return victim;
  } finally {
    await producer.close({ timeoutMs: 5000 }).catch(() => {});
  }
}

/** Restarts a stopped broker and waits until it has the full metadata and every broker lists it. */
async function rejoin(s: Setup, id: number, n: number): Promise<void> {
  const t0 = performance.now();
  await s.cluster.restart(id);
  s.down.delete(id);
  notePids(`${s.tag} restart`, s.cluster);
  s.watches.get(id)!.close();
  s.watches.set(id, new BrokerWatch(id, s.cluster.broker(id).port!));
  await allUntil(
    `broker ${id} back everywhere`,
    [...s.watches.values()],
    s.topics,
    (m) => m.brokers.includes(id) && complete(m, n),
    fullPollMs(n),
    WAIT_MS,
  );
  // The next failure starts from full ISRs: the restarted broker has applied its LeaderAndIsr and
  // its fetchers caught up (ISR expansion). Bounded: without replication this never happens.
  const scenario = s.tag.startsWith('a') ? '3' : '1';
  try {
    const t = await allUntil(
      `broker ${id} back in every ISR`,
      [...s.watches.values()],
      s.topics,
      (m) => complete(m, n) && m.partitions.every((p) => p.isr.length === RF),
      fullPollMs(n),
      Math.max(120_000, n * 30),
    );
    record(`${scenario}. then: restart → back in every ISR, on every broker (ms)`, n, since(t0, t));
  } catch {
    record(`${scenario}. then: restart → back in every ISR, on every broker (ms)`, n, 'not within the wait');
  }
}

const PROFILE_PRELOAD = `import { writeFileSync } from 'node:fs';
import { Session } from 'node:inspector';
const session = new Session();
session.connect();
session.post('Profiler.enable');
session.post('Profiler.setSamplingInterval', { interval: 500 });
session.post('Profiler.start');
// A same-thread inspector session answers synchronously, so this works in an 'exit' handler.
process.on('exit', () => {
  session.post('Profiler.stop', (err, r) => {
    if (!err) writeFileSync(__DIR__ + '/broker-' + process.pid + '.cpuprofile', JSON.stringify(r.profile));
  });
});
`;

async function main(): Promise<void> {
  if (values.profile) {
    // Node 20 refuses --cpu-prof in NODE_OPTIONS; --import is allowed, so every broker process
    // loads this first: the inspector's sampling profiler from start to exit.
    const dir = resolve(values.profile);
    mkdirSync(dir, { recursive: true });
    const preload = resolve(dir, 'cpu-profile-preload.mjs');
    writeFileSync(preload, PROFILE_PRELOAD.replace('__DIR__', JSON.stringify(dir)));
    process.env.NODE_OPTIONS = `${process.env.NODE_OPTIONS ?? ''} --import=${preload}`.trim();
  }
  const loadStart = loadAverage();
  log(
    `cluster failover bench: partitions ${SIZES.join(', ')}; topics of ≤${TOPIC_SIZE} partitions, RF ${RF}, 3 broker processes; zookeeper.session.timeout.ms ${SESSION_MS}; ${SAMPLES} samples for topic creation; load average at start ${loadStart}`,
  );
  const tStart = performance.now();
  zk = await startTestZooKeeper();
  try {
    for (const n of SIZES) {
      log(`\n== ${n} partitions (load ${loadAverage()})`);
      if (wants(2) || wants(3)) {
        const a = await setUp(n, `a${n}`);
        try {
          if (wants(3)) {
            const stopped = await controlledShutdown(a, n);
            if (wants(2)) await rejoin(a, stopped, n);
          }
          if (wants(2)) await controllerFailover(a, n);
        } finally {
          await tearDown(a, n);
        }
      }
      if (wants(1) || wants(4)) {
        const b = await setUp(n, `b${n}`);
        try {
          if (wants(1)) {
            const killed = await leaderFailover(b, n);
            if (wants(4)) await rejoin(b, killed, n);
          }
          if (wants(4)) await propagation(b, n);
        } finally {
          await tearDown(b, n);
        }
      }
    }
  } finally {
    await zk.stop();
  }
  const loadEnd = loadAverage();
  if (values.profile) {
    const file = resolve(values.profile, 'marks.json');
    writeFileSync(
      file,
      JSON.stringify({ clock: 'CLOCK_MONOTONIC µs, as V8 profile timestamps', marks, pids }, null, 1),
    );
    log(`profiles and ${file} (event times, broker pids) in ${resolve(values.profile)}`);
  }
  log(`\n| measure | ${SIZES.map((n) => `${n.toLocaleString('en-US')} partitions`).join(' | ')} |`);
  log(`| --- | ${SIZES.map(() => '---').join(' | ')} |`);
  // Scenarios in order 1–4, the set-up figures last.
  const order = (m: string) => (m.startsWith('0.') ? 9 : Number(m[0]));
  const rows = [...results].sort(([a], [b]) => order(a) - order(b));
  for (const [measure, bySize] of rows)
    log(`| ${measure} | ${SIZES.map((n) => bySize.get(n) ?? '–').join(' | ')} |`);
  log(
    `\nzookeeper.session.timeout.ms ${SESSION_MS} (the detection floor of 1 and 2); poll intervals: ZooKeeper 5 ms, controller id 5 ms, topic creation 2 ms, whole-cluster Metadata ${SIZES.map((n) => `${fullPollMs(n)} ms at ${n}`).join(', ')}`,
  );
  log(
    `load average: start ${loadStart}, end ${loadEnd}; ${Math.round((performance.now() - tStart) / 1000)} s in all`,
  );
}

main().then(
  () => process.exit(0),
  (e: unknown) => {
    console.error(e);
    process.exit(1);
  },
);
