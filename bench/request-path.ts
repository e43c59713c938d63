// The broker's request path: CPU per request that does nothing, and CPU per MB produced at 1 KiB.
// Brokers run from `dist/` as processes of their own (`npm run build` first; in a copy of the
// tree), their CPU (user + sys, all threads) read from /proc. With BEFORE=<dir> (another tree,
// built) both brokers run and the phases alternate between them round by round, so before and
// after come from the same run on this shared machine.
//
//  - noop: pipelined requests that do nothing — ApiVersions v3 and Metadata v12 with an empty
//    topic list — from a raw load generator that costs little itself (pre-encoded frames, only
//    size prefixes parsed, a write per batch of answers), SOCKETS × WINDOW in flight; and one
//    request at a time, the brokers taking turns request by request so that both see the same
//    load (round-trip latency: holding responses until the end of the tick must add none).
//  - small: pipelined Produce v9 requests (acks=1) of BATCH records of 1 KiB each, the same
//    pre-encoded request again and again, SOCKETS × PRODUCE_WINDOW in flight: CPU per request and
//    per MB when requests are small (per-request costs dominate).
//  - produce: bench/rdkafka-bench.c, COUNT × 1 KiB acks=1 (linger.ms 5, batch.size 1 MB), against
//    each broker and against librdkafka's in-memory mock in the same round (the ratio's baseline).
//
//   npx tsx bench/request-path.ts   (ROUNDS=3, BENCH_MS=3000, SOCKETS=4, WINDOW=256, COUNT=100000,
//     BATCH=16, PRODUCE_WINDOW=32, PHASES=noop,small,produce, BEFORE=<dir>, PROFILE=<dir>: a V8 CPU profile of this tree's broker,
//     PERF=<dir>: `perf record -g` of it per phase in the last round; GC=1: count the brokers'
//     garbage collections per phase (--trace-gc); BROKER_NODE_OPTIONS)

import { execFile, execFileSync, spawn } from 'node:child_process';
import { mkdirSync, readFileSync, rmSync } from 'node:fs';
import { connect, type Socket } from 'node:net';
import { join, resolve } from 'node:path';
import { performance } from 'node:perf_hooks';
import { decodeResponse, encodeRequest } from '../src/protocol/messages/frame.js';
import { apiVersionsApi } from '../src/protocol/messages/generated/api-versions.js';
import { createTopicsApi } from '../src/protocol/messages/generated/create-topics.js';
import { metadataApi } from '../src/protocol/messages/generated/metadata.js';
import { produceApi } from '../src/protocol/messages/generated/produce.js';
import { encodeRecordBatchSync } from '../src/protocol/record-batch/index.js';
import { WireConn } from './groups-wire.js';

const ROUNDS = Number(process.env.ROUNDS ?? 3);
const BENCH_MS = Number(process.env.BENCH_MS ?? 3000);
const SOCKETS = Number(process.env.SOCKETS ?? 4);
const WINDOW = Number(process.env.WINDOW ?? 256);
const COUNT = Number(process.env.COUNT ?? 100_000);
/** Records of 1 KiB per Produce request in the pipelined produce phase, and requests in flight. */
const BATCH = Number(process.env.BATCH ?? 16);
const PRODUCE_WINDOW = Number(process.env.PRODUCE_WINDOW ?? 32);
const PHASES = new Set((process.env.PHASES ?? 'noop,small,produce').split(','));
const BEFORE = process.env.BEFORE;
const PROFILE = process.env.PROFILE;
const PERF = process.env.PERF;
/** GC=1: the brokers run with --trace-gc, and each phase line counts their collections. */
const GC = process.env.GC === '1';
const TMP = resolve('.bench-tmp/request-path');
const TOOL = join(TMP, 'rdkafka-bench');

const fmt = (n: number, d = 0) =>
  n.toLocaleString('en-US', { maximumFractionDigits: d, minimumFractionDigits: d });

/** utime + stime of a process, in µs. */
function cpuUs(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
  return ((Number(stat[11]) + Number(stat[12])) * 1e6) / 100;
}

interface Broker {
  label: string;
  pid: number;
  port: number;
  /** Collections so far (GC=1 only). */
  gc: { scavenges: number; markCompacts: number };
  stop(): Promise<void>;
}

/** ", n scavenges, m mark-compacts" since `before` (a copy of `b.gc`), when GC=1. */
function gcSince(b: Broker, before: Broker['gc']): string {
  if (!GC) return '';
  return `; GC: ${b.gc.scavenges - before.scavenges} scavenges, ${b.gc.markCompacts - before.markCompacts} mark-compacts`;
}

async function startBroker(
  label: string,
  root: string,
  dataDir: string,
  profileDir?: string,
): Promise<Broker> {
  const flags = (process.env.BROKER_NODE_OPTIONS ?? '').split(' ').filter((f) => f !== '');
  if (profileDir !== undefined) flags.push('--cpu-prof', `--cpu-prof-dir=${profileDir}`);
  if (GC) flags.push('--trace-gc');
  const gc = { scavenges: 0, markCompacts: 0 };
  const start = ['start', '--port', '0', '--data-dir', dataDir, '--log-level', 'warn'];
  const entry = join(root, 'dist/src/cli/main.js');
  const child = spawn(process.execPath, [...flags, entry, ...start], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const port = await new Promise<number>((done, fail) => {
    let out = '';
    let found = false;
    child.stdout!.on('data', (d: Buffer) => {
      const text = d.toString();
      gc.scavenges += text.split(': Scavenge').length - 1;
      gc.markCompacts += text.split(': Mark-Compact').length - 1;
      if (found) return;
      out += text;
      const m = /listening on \S*:(\d+)/.exec(out);
      if (m) {
        found = true;
        done(Number(m[1]));
      }
    });
    child.on('exit', () => fail(new Error(`broker exited: ${out}`)));
  });
  const exited = new Promise<void>((r) => child.on('exit', () => r()));
  return {
    label,
    pid: child.pid!,
    port,
    gc,
    stop: async () => {
      child.kill('SIGTERM');
      await exited;
    },
  };
}

/** One request frame, encoded once and sent again and again (the broker does not care). */
const NOOPS = {
  apiVersions: Buffer.concat(
    encodeRequest(apiVersionsApi, 3, 1, 'bench', { clientSoftwareName: 'bench', clientSoftwareVersion: '1' }),
  ),
  metadata: Buffer.concat(
    encodeRequest(metadataApi, 12, 1, 'bench', {
      topics: [],
      allowAutoTopicCreation: false,
      includeClusterAuthorizedOperations: false,
      includeTopicAuthorizedOperations: false,
    }),
  ),
};

/**
 * A socket that keeps `window` copies of `frame` in flight: every complete response read is
 * replaced by a new request, all those of one read in a single write.
 */
class Pipeline {
  answered = 0;
  /** The last response (a copy), to check that the requests succeed. */
  last: Buffer | null = null;
  /** Called after every read that completed responses. */
  onAnswer: (() => void) | null = null;
  private pending: Buffer = Buffer.alloc(0);
  private stopped = false;
  private constructor(
    private readonly socket: Socket,
    private readonly frame: Buffer,
    private readonly window: number,
  ) {
    socket.setNoDelay(true);
    socket.on('data', (d: Buffer) => this.onData(d));
    socket.on('error', () => {});
  }

  static open(port: number, frame: Buffer, window: number): Promise<Pipeline> {
    return new Promise((done, fail) => {
      const s = connect({ port, host: '127.0.0.1' }, () => done(new Pipeline(s, frame, window)));
      s.once('error', fail);
    });
  }

  start(): void {
    this.stopped = false;
    this.send(this.window);
  }

  /** Stops sending; resolves once every request in flight is answered. */
  drain(): Promise<void> {
    this.stopped = true;
    return new Promise((done) => {
      const check = () => (this.inFlight === 0 ? done() : setTimeout(check, 5));
      check();
    });
  }

  close(): void {
    this.socket.destroy();
  }

  private inFlight = 0;

  /** One request, whatever the window (the caller waits for its answer). */
  sendOne(): void {
    this.stopped = true;
    this.inFlight++;
    this.socket.write(this.frame);
  }

  private send(n: number): void {
    if (n === 0 || this.stopped) return;
    this.inFlight += n;
    this.socket.write(n === 1 ? this.frame : Buffer.concat(Array.from({ length: n }, () => this.frame)));
  }

  private onData(d: Buffer): void {
    let buf: Buffer = this.pending.length === 0 ? d : Buffer.concat([this.pending, d]);
    let done = 0;
    while (buf.length >= 4) {
      const size = buf.readInt32BE(0);
      if (buf.length < 4 + size) break;
      if (buf.length < 8 + size) this.last = Buffer.from(buf.subarray(4, 4 + size));
      buf = buf.subarray(4 + size);
      done++;
    }
    this.pending = buf;
    if (done === 0) return;
    this.answered += done;
    this.inFlight -= done;
    this.send(done);
    this.onAnswer?.();
  }
}

/** Pipelined: SOCKETS × `window` requests in flight for BENCH_MS; requests/s and CPU each. */
async function pipelined(b: Broker, frame: Buffer, window = WINDOW): Promise<string> {
  const lanes = await Promise.all(
    Array.from({ length: SOCKETS }, () => Pipeline.open(b.port, frame, window)),
  );
  for (const l of lanes) l.start();
  await new Promise((r) => setTimeout(r, Math.min(500, BENCH_MS))); // warm-up
  const n0 = lanes.reduce((s, l) => s + l.answered, 0);
  const c0 = cpuUs(b.pid);
  const gc0 = { ...b.gc };
  const t0 = performance.now();
  await new Promise((r) => setTimeout(r, BENCH_MS));
  const n = lanes.reduce((s, l) => s + l.answered, 0) - n0;
  const seconds = (performance.now() - t0) / 1000;
  const cpu = cpuUs(b.pid) - c0;
  await Promise.all(lanes.map((l) => l.drain()));
  for (const l of lanes) l.close();
  if (frame === SMALL_PRODUCE) {
    const r = decodeResponse(produceApi, 9, lanes[0]!.last!).body;
    const code = r.responses[0]?.partitionResponses[0]?.errorCode;
    if (code !== 0) throw new Error(`produce failed: error ${code}`);
    const mb = (n * frame.length) / 1e6;
    return `${fmt(n / seconds)}/s, broker ${fmt(cpu / n, 1)} µs CPU/request, ${fmt(cpu / 1000 / mb, 2)} ms CPU/MB${gcSince(b, gc0)}`;
  }
  return `${fmt(n / seconds)}/s, broker ${fmt(cpu / n, 1)} µs CPU/request${gcSince(b, gc0)}`;
}

/**
 * One request in flight: each broker in turn gets one request and answers it before the next
 * broker's, so that both see the same machine load; round trips and CPU per request per broker.
 */
async function oneAtATime(brokers: Broker[], frame: Buffer): Promise<string[]> {
  const lanes = await Promise.all(brokers.map((b) => Pipeline.open(b.port, frame, 1)));
  const ask = (l: Pipeline) =>
    new Promise<number>((done) => {
      const before = l.answered;
      const t = performance.now();
      l.onAnswer = () => {
        if (l.answered > before) done(performance.now() - t);
      };
      l.sendOne();
    });
  for (let i = 0; i < 200; i++) for (const l of lanes) await ask(l); // warm-up
  const rtts: number[][] = brokers.map(() => []);
  const c0 = brokers.map((b) => cpuUs(b.pid));
  const deadline = performance.now() + BENCH_MS;
  while (performance.now() < deadline) for (const [i, l] of lanes.entries()) rtts[i]!.push(await ask(l));
  const cpu = brokers.map((b, i) => cpuUs(b.pid) - c0[i]!);
  for (const l of lanes) l.close();
  return rtts.map((r, i) => {
    const sorted = [...r].sort((x, y) => x - y);
    const q = (f: number) => fmt((sorted[Math.floor(sorted.length * f)] ?? 0) * 1000);
    return `${fmt(r.length)} requests, broker ${fmt(cpu[i]! / r.length, 1)} µs CPU/request, round trip p50 ${q(0.5)} µs, p90 ${q(0.9)} µs`;
  });
}

const SMALL_TOPIC = 'small-produce';
/** One Produce v9 request (acks=1, partition 0) of BATCH records of 1 KiB, sent again and again. */
const SMALL_PRODUCE = Buffer.concat(
  encodeRequest(produceApi, 9, 1, 'bench', {
    transactionalId: null,
    acks: 1,
    timeoutMs: 30_000,
    topicData: [
      {
        name: SMALL_TOPIC,
        partitionData: [
          {
            index: 0,
            records: encodeRecordBatchSync(
              Array.from({ length: BATCH }, (_, i) => ({
                key: null,
                value: Buffer.alloc(1024, 97 + (i % 26)),
              })),
            ),
          },
        ],
      },
    ],
  }),
);

async function createSmallTopic(b: Broker): Promise<void> {
  const conn = await WireConn.connect(b.port);
  const r = await conn.request(createTopicsApi, 5, {
    topics: [{ name: SMALL_TOPIC, numPartitions: 1, replicationFactor: 1, assignments: [], configs: [] }],
    timeoutMs: 10_000,
    validateOnly: false,
  });
  conn.close();
  if (r.topics[0]?.errorCode !== 0) throw new Error(`create topic: error ${r.topics[0]?.errorCode}`);
}

interface ProduceResult {
  perSec: number;
  msPerMb: number;
  p50: number;
  mockPerSec: number;
  gc: string;
}

/** Runs the C tool; asynchronous, so that the brokers' output is read meanwhile. */
function tool(args: string[]): Promise<{ records: number; seconds: number; p50_ms: number }> {
  return new Promise((done, fail) =>
    execFile(TOOL, args, { encoding: 'utf8', timeout: 600_000, maxBuffer: 1 << 26 }, (err, out) =>
      err ? fail(err) : done(JSON.parse(out.trim().split('\n').at(-1)!)),
    ),
  );
}

let topicSeq = 0;
async function produce(b: Broker): Promise<ProduceResult> {
  const topic = `produce-${topicSeq++}`;
  const c0 = cpuUs(b.pid);
  const gc0 = { ...b.gc };
  const ours = await tool(['produce', `127.0.0.1:${b.port}`, topic, String(COUNT), '1024', '1']);
  const cpu = cpuUs(b.pid) - c0;
  const gc = gcSince(b, gc0);
  const mock = await tool(['mock', `mock-${topic}`, String(COUNT), '1024', '1']);
  const mb = (COUNT * 1024) / 1e6;
  return {
    perSec: ours.records / ours.seconds,
    msPerMb: cpu / 1000 / mb,
    p50: ours.p50_ms,
    mockPerSec: mock.records / mock.seconds,
    gc,
  };
}

/** Runs `phase` under `perf record -g` of the broker when PERF is set. */
async function perfAround<T>(b: Broker, name: string, phase: () => Promise<T> | T): Promise<T> {
  if (PERF === undefined) return phase();
  mkdirSync(PERF, { recursive: true });
  const rec = spawn(
    'perf',
    ['record', '-F', '1999', '-g', '-p', String(b.pid), '-o', join(PERF, `${name}.data`)],
    {
      stdio: 'ignore',
    },
  );
  await new Promise((r) => setTimeout(r, 300));
  const out = await phase();
  rec.kill('SIGINT');
  await new Promise((r) => rec.on('exit', r));
  return out;
}

interface Phase {
  key: string;
  label: string;
  /** One line per broker, in the order given. */
  run(brokers: Broker[], round: number): Promise<string[]>;
}

/** Runs `one` for each broker in turn, in alternating order from round to round. */
function eachInTurn(one: (b: Broker) => Promise<string>): Phase['run'] {
  return async (brokers, round) => {
    const order = round % 2 === 0 ? brokers : [...brokers].reverse();
    const lines = new Map<Broker, string>();
    for (const b of order) lines.set(b, await one(b));
    return brokers.map((b) => lines.get(b)!);
  };
}

const PHASE_LIST: Phase[] = [
  ...Object.entries(NOOPS).flatMap(([name, frame]): Phase[] => [
    {
      key: 'noop',
      label: `${name}, ${SOCKETS} sockets × ${WINDOW} in flight`,
      run: eachInTurn((b) => pipelined(b, frame)),
    },
    { key: 'noop', label: `${name}, 1 in flight`, run: (brokers) => oneAtATime(brokers, frame) },
  ]),
  {
    key: 'small',
    label: `produce ${BATCH} × 1 KiB a request, ${SOCKETS} sockets × ${PRODUCE_WINDOW}`,
    run: eachInTurn((b) => pipelined(b, SMALL_PRODUCE, PRODUCE_WINDOW)),
  },
  {
    key: 'produce',
    label: `produce ${fmt(COUNT)} × 1 KiB acks=1 (librdkafka)`,
    run: eachInTurn(async (b) => {
      const r = await produce(b);
      return (
        `${fmt(r.perSec)} records/s, broker ${fmt(r.msPerMb, 2)} ms CPU/MB, p50 ${fmt(r.p50)} ms; ` +
        `mock ${fmt(r.mockPerSec)}/s, ratio ${fmt(r.perSec / r.mockPerSec, 2)}×${r.gc}`
      );
    }),
  },
];

async function main(): Promise<void> {
  rmSync(TMP, { recursive: true, force: true });
  mkdirSync(TMP, { recursive: true });
  if (PHASES.has('produce')) execFileSync('cc', ['-O2', '-o', TOOL, 'bench/rdkafka-bench.c', '-lrdkafka']);
  const brokers = [await startBroker('after (this tree)', '.', join(TMP, 'after'), PROFILE)];
  if (BEFORE !== undefined)
    brokers.push(await startBroker(`before (${BEFORE})`, BEFORE, join(TMP, 'before')));
  const phases = PHASE_LIST.filter((p) => PHASES.has(p.key));
  if (PHASES.has('small')) for (const b of brokers) await createSmallTopic(b);
  try {
    // Untimed: the first pass of each phase runs while V8 still compiles the hot paths.
    for (const p of phases) if (p.key !== 'produce') await p.run(brokers, 0);
    for (let round = 0; round < ROUNDS; round++) {
      const load = readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ');
      console.log(`round ${round + 1}, load average ${load}`);
      for (const p of phases) {
        const slug = p.label.replace(/[^a-zA-Z0-9]+/g, '-');
        const run = () => p.run(brokers, round);
        const lines = round === ROUNDS - 1 ? await perfAround(brokers[0]!, slug, run) : await run();
        for (const [i, b] of brokers.entries())
          console.log(`  ${p.label.padEnd(40)} ${b.label.padEnd(18)} ${lines[i]}`);
      }
    }
  } finally {
    for (const b of brokers) await b.stop();
  }
}

await main();
