// What the broker's metrics cost: produce and fetch of a broker with `http.listener` set
// (counters and request timing on every request, a prom-client registry with the default
// process collectors) against one without, in the same run; and the time of one /metrics scrape
// of a broker holding 10,000 partitions.
//
// Each broker runs in a process of its own (metrics-overhead-broker.ts), identical but for
// `http.listener`; the bench process is the client: a bare pipelined wire sender of pre-encoded
// requests (no producer library), so the broker's per-request work is most of what is timed, and
// small batches (10 records) make per-request costs (the request timing) weigh the most. A round
// alternates the two brokers over short phases (ABBA …, see `round`) and compares them within
// the round, by the brokers' own CPU time and by throughput: the figure is the geometric mean of
// the per-round on/off ratios, with the middle half of those ratios (interquartile range) as its
// spread — on a shared machine a round's two brokers see the same load, successive rounds do not.
//
//   npx tsx bench/metrics-overhead.ts [--rounds 16] [--requests 8000] [--slices 8] [--warmup 32000]
//     [--partitions 10000] [--only overhead|scrape] [--baseline DIR] [--control] [--profile DIR]
//
// --baseline DIR  also runs the pair of brokers from another source tree (a copy of this one
//                 with the metrics code as it was), alternating with this tree's pair in every
//                 round: before/after under the same load.
// --control       both brokers of a pair without metrics (an A/A run): how far from 1 the
//                 ratios land when nothing differs — the bench's own bias and noise.
// --profile DIR   a V8 CPU profile of every timed phase, in the broker's process:
//                 DIR/<tree>-<on|off>-<produce|fetch>-<round>-<phase>.cpuprofile
//                 (compare sets with bench/cpuprofile-summary.ts … --against …).

import { mkdirSync } from 'node:fs';
import { connect, type Socket } from 'node:net';
import { loadavg } from 'node:os';
import { resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { Gauge, Registry } from 'prom-client';
import { LogFamilies } from '../src/broker/metrics/log-families.js';
import type { Partition } from '../src/broker/replica/partition.js';
import { decodeResponse, encodeRequest } from '../src/protocol/messages/frame.js';
import { createTopicsApi } from '../src/protocol/messages/generated/create-topics.js';
import { fetchApi } from '../src/protocol/messages/generated/fetch.js';
import { produceApi } from '../src/protocol/messages/generated/produce.js';
import type { ApiDescriptor } from '../src/protocol/messages/runtime.js';
import {
  encodeRecordBatchSync,
  iterateBatches,
  readBatchHeader,
} from '../src/protocol/record-batch/index.js';
import { startTestBroker } from '../src/testkit/index.js';
import { fetchRequest } from '../test/broker/support/wire.js';
import { BrokerProcess } from './metrics-overhead-broker.js';

const { values } = parseArgs({
  options: {
    rounds: { type: 'string', default: '16' },
    requests: { type: 'string', default: '8000' },
    slices: { type: 'string', default: '8' },
    warmup: { type: 'string', default: '32000' },
    partitions: { type: 'string', default: '10000' },
    only: { type: 'string' }, // 'overhead' or 'scrape'
    baseline: { type: 'string' },
    control: { type: 'boolean', default: false },
    profile: { type: 'string' },
  },
});
const ROUNDS = Number(values.rounds);
const REQUESTS = Number(values.requests);
const SLICES = Number(values.slices);
const WARMUP = Number(values.warmup);
const PARTITIONS = Number(values.partitions);
const RECORDS_PER_BATCH = 10;
const RECORD_BYTES = 100;
const IN_FLIGHT = 32;
/**
 * Small fetches, each phase reading its records FETCH_PASSES times: per-request costs weigh the
 * most, and a phase lasts long enough for its CPU time to mean something (one 64 KiB pass was
 * ~20 fetches, ~10 ms of broker CPU: in A/A runs its ratios scattered by ±15 %).
 */
const FETCH_MAX_BYTES = 16 * 1024;
const FETCH_PASSES = 8;

/** One socket; responses are matched in order (the broker answers a connection in order). */
class Wire {
  #buf: Buffer = Buffer.alloc(0);
  #waiting: ((frame: Buffer) => void)[] = [];
  #correlation = 0;
  private constructor(private readonly socket: Socket) {
    socket.setNoDelay(true);
    socket.on('data', (d: Buffer) => {
      this.#buf = this.#buf.length === 0 ? d : Buffer.concat([this.#buf, d]);
      while (this.#buf.length >= 4) {
        const size = this.#buf.readInt32BE(0);
        if (this.#buf.length < 4 + size) break;
        const frame = this.#buf.subarray(4, 4 + size);
        this.#buf = this.#buf.subarray(4 + size);
        this.#waiting.shift()!(frame);
      }
    });
  }
  static open(port: number): Promise<Wire> {
    return new Promise((resolve, reject) => {
      const s = connect({ port, host: '127.0.0.1' }, () => resolve(new Wire(s)));
      s.once('error', reject);
    });
  }
  send<Req>(api: ApiDescriptor<Req, unknown>, version: number, body: Req): Promise<Buffer> {
    return this.sendEncoded(encodeRequest(api, version, this.#correlation++, 'bench', body));
  }
  sendEncoded(chunks: Buffer[]): Promise<Buffer> {
    const p = new Promise<Buffer>((resolve) => this.#waiting.push(resolve));
    for (const c of chunks) this.socket.write(c);
    return p;
  }
  close(): void {
    this.socket.destroy();
  }
}

async function createTopics(wire: Wire, topics: { name: string; partitions: number }[]): Promise<void> {
  const frame = await wire.send(createTopicsApi, 5, {
    topics: topics.map((t) => ({
      name: t.name,
      numPartitions: t.partitions,
      replicationFactor: 1,
      assignments: [],
      configs: [],
    })),
    timeoutMs: 600_000,
    validateOnly: false,
  });
  const r = decodeResponse(createTopicsApi, 5, frame).body;
  const failed = r.topics.find((t) => t.errorCode !== 0);
  if (failed) throw new Error(`CreateTopics ${failed.name}: error ${failed.errorCode}`);
}

/** Seconds to send `REQUESTS` acks=1 produce requests of one 10-record batch, IN_FLIGHT at a time. */
async function produceRound(wire: Wire, topic: string, requests = REQUESTS): Promise<number> {
  const batch = encodeRecordBatchSync(
    Array.from({ length: RECORDS_PER_BATCH }, (_, i) => ({
      value: Buffer.alloc(RECORD_BYTES, i),
      timestamp: BigInt(Date.now()),
    })),
  );
  const request = encodeRequest(produceApi, 9, 0, 'bench', {
    transactionalId: null,
    acks: 1,
    timeoutMs: 30_000,
    topicData: [{ name: topic, partitionData: [{ index: 0, records: batch }] }],
  });
  const t0 = performance.now();
  let sent = 0;
  const lane = async () => {
    while (sent < requests) {
      sent++;
      const frame = await wire.sendEncoded(request);
      // errorCode of the one partition: offset past the header, topic name and array counts.
      const r = decodeResponse(produceApi, 9, frame).body;
      if (r.responses[0]!.partitionResponses[0]!.errorCode !== 0) throw new Error('produce failed');
    }
  };
  await Promise.all(Array.from({ length: IN_FLIGHT }, lane));
  return (performance.now() - t0) / 1000;
}

/** Seconds to read the partition from `from` up to `to` (or its end), one 64 KiB fetch at a time, and the bytes read. */
async function fetchRound(
  wire: Wire,
  topic: string,
  from: bigint,
  to = -1n,
): Promise<{ seconds: number; bytes: number }> {
  const request = (offset: bigint) =>
    fetchRequest(
      topic,
      { partition: 0, offset },
      { maxBytes: FETCH_MAX_BYTES, partitionMaxBytes: FETCH_MAX_BYTES },
    );
  const t0 = performance.now();
  let offset = from;
  let bytes = 0;
  for (;;) {
    const r = decodeResponse(fetchApi, 11, await wire.send(fetchApi, 11, request(offset))).body;
    const p = r.responses[0]!.partitions[0]!;
    const records = p.records ?? Buffer.alloc(0);
    let last = -1n;
    for (const b of iterateBatches(records)) {
      const h = readBatchHeader(records, b.position);
      last = h.baseOffset + BigInt(h.lastOffsetDelta);
    }
    bytes += records.length;
    if (last < 0n || last + 1n >= p.highWatermark || (to >= 0n && last + 1n >= to)) break;
    offset = last + 1n;
  }
  return { seconds: (performance.now() - t0) / 1000, bytes };
}

const fmt = (n: number, d = 0) =>
  n.toLocaleString('en-US', { maximumFractionDigits: d, minimumFractionDigits: d });
/** Nearest-rank quantile. */
const quantile = (xs: readonly number[], q: number) =>
  [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.max(0, Math.ceil(q * xs.length) - 1))]!;
const median = (xs: readonly number[]) => quantile(xs, 0.5);
const load = () =>
  loadavg()
    .map((l) => l.toFixed(1))
    .join(' ');

type Mode = 'off' | 'on';
const MODES: readonly Mode[] = ['off', 'on'];

interface Side {
  readonly proc: BrokerProcess;
  readonly wire: Wire;
  /** Offset the next produce phase starts at. */
  logEnd: bigint;
}

/** The pair of brokers of one source tree, and what its rounds measured. */
interface Pair {
  readonly label: string;
  readonly tree: string;
  /** The round's two broker processes (fresh ones every round). */
  sides: Record<Mode, Side>;
  /** Per round and mode: records/s, broker CPU µs/record, MB/s, broker CPU µs/MB. */
  readonly rows: Record<Mode, { produced: number; produceCpu: number; fetched: number; fetchCpu: number }[]>;
  metricWorkNs: number;
}

/**
 * Starts the pair's two brokers for round `r`: fresh processes every round, started in
 * alternating order, so that whatever makes one process run faster than another for its whole
 * life (what its JIT made of the warm-up under the load of the moment) is noise that averages
 * out over the rounds, not a bias of one side.
 */
async function startSides(pair: Pair, r: number): Promise<void> {
  const sides = {} as Record<Mode, Side>;
  for (const mode of r % 2 === 0 ? MODES : [...MODES].reverse()) {
    const proc = await BrokerProcess.start({ tree: pair.tree, metrics: mode === 'on' && !values.control });
    const wire = await Wire.open(proc.port);
    await createTopics(wire, [{ name: 'bench', partitions: 1 }]);
    sides[mode] = { proc, wire, logEnd: 0n };
  }
  pair.sides = sides;
  // Warm-up (JIT, segment files, buffer pools): WARMUP requests per broker, the phases
  // alternating as in a round. Warmed up one after the other, the broker warmed up first came
  // out 6–8 % costlier in A/A runs (`--control`), whichever it was; after only 2,000 requests
  // the broker with metrics came out 5–6 % costlier, after 32,000 1 % (the JIT was still busy
  // with the broker's code, more of it with metrics on: a fresh process's transient, not what
  // metrics cost a running broker).
  await round(pair, r, WARMUP);
}

async function closeSides(pair: Pair): Promise<void> {
  for (const mode of MODES) {
    pair.sides[mode].wire.close();
    await pair.sides[mode].proc.close();
  }
}

/**
 * One round of a pair: SLICES produce phases per broker, the two brokers alternating (A B, then
 * B A, …: ABBA over each two slices), then as many fetch phases reading back what each produce
 * phase wrote, alternating the same way. Short alternating phases put both brokers under the
 * same load mix; a round's figure is each broker's sum over its phases. Each phase's CPU time
 * ends with a scavenge in the broker, so a phase pays for collecting its own garbage, not the
 * other broker's or the next phase's (a full GC before each round levels the old generation).
 */
async function round(pair: Pair, r: number, warmUp = 0): Promise<void> {
  const perPhase = Math.floor((warmUp || REQUESTS) / SLICES);
  const sum = () => ({ cpu: 0, seconds: 0, bytes: 0 });
  const produce = { off: sum(), on: sum() };
  const fetch = { off: sum(), on: sum() };
  /** The offsets each produce phase started at, and the end of the last. */
  const bounds = { off: [pair.sides.off.logEnd], on: [pair.sides.on.logEnd] };
  for (const mode of MODES) await pair.sides[mode].proc.call('gc');
  const timed = async (
    kind: string,
    j: number,
    into: typeof produce,
    phase: (side: Side, mode: Mode) => Promise<number>,
  ) => {
    const first: Mode = (r * SLICES + j) % 2 === 0 ? 'off' : 'on';
    for (const mode of first === 'off' ? MODES : [...MODES].reverse()) {
      const side = pair.sides[mode];
      const profile =
        values.profile && !warmUp
          ? resolve(values.profile, `${pair.label}-${mode}-${kind}-${r}-${j}.cpuprofile`)
          : null;
      if (profile) await side.proc.call('profileStart');
      const c0 = await side.proc.call<number>('cpu');
      const t0 = performance.now();
      into[mode].bytes += await phase(side, mode);
      into[mode].seconds += (performance.now() - t0) / 1000;
      into[mode].cpu += (await side.proc.call<number>('scavengeAndCpu')) - c0;
      if (profile) await side.proc.call('profileStop', profile);
    }
  };
  for (let j = 0; j < SLICES; j++)
    await timed('produce', j, produce, async (side, mode) => {
      await produceRound(side.wire, 'bench', perPhase);
      side.logEnd += BigInt(perPhase * RECORDS_PER_BATCH);
      bounds[mode].push(side.logEnd);
      return 0;
    });
  for (let j = 0; j < SLICES; j++)
    await timed('fetch', j, fetch, async (side, mode) => {
      let bytes = 0;
      for (let pass = 0; pass < FETCH_PASSES; pass++)
        bytes += (await fetchRound(side.wire, 'bench', bounds[mode][j]!, bounds[mode][j + 1]!)).bytes;
      return bytes;
    });
  if (warmUp) return;
  for (const mode of MODES) {
    const records = SLICES * perPhase * RECORDS_PER_BATCH;
    const mb = fetch[mode].bytes / 1e6;
    pair.rows[mode].push({
      produced: records / produce[mode].seconds,
      produceCpu: produce[mode].cpu / records,
      fetched: mb / fetch[mode].seconds,
      fetchCpu: fetch[mode].cpu / mb,
    });
  }
}

function report(pair: Pair): void {
  const off = pair.rows.off;
  const on = pair.rows.on;
  console.log(
    `\n${pair.label} (${pair.tree})${values.control ? ', CONTROL: both brokers without metrics' : ''}; metric work per produce request, timed alone: ${fmt(pair.metricWorkNs, 0)} ns\n`,
  );
  console.log(
    '| scenario | metrics off (median of rounds) | metrics on (median of rounds) | on / off: geometric mean of the per-round ratios | middle half of the per-round ratios (IQR) | rounds with on / off > 1 |',
  );
  console.log('| --- | --- | --- | --- | --- | --- |');
  const perRound: string[] = [];
  for (const [what, unit, key, d] of [
    ['produce, acks=1: throughput', 'records/s', 'produced', 0],
    ['produce, acks=1: broker CPU', 'µs/record', 'produceCpu', 3],
    ["fetch of the round's records: throughput", 'MB/s', 'fetched', 1],
    ["fetch of the round's records: broker CPU", 'µs/MB', 'fetchCpu', 0],
  ] as const) {
    const ratios = on.map((row, i) => row[key] / off[i]![key]);
    const geo = Math.exp(ratios.reduce((s, x) => s + Math.log(x), 0) / ratios.length);
    console.log(
      `| ${what} | ${fmt(median(off.map((row) => row[key])), d)} ${unit} | ${fmt(median(on.map((row) => row[key])), d)} ${unit} | **${fmt(geo, 3)}** | ${fmt(quantile(ratios, 0.25), 3)}–${fmt(quantile(ratios, 0.75), 3)} | ${ratios.filter((x) => x > 1).length}/${ratios.length} |`,
    );
    perRound.push(`per-round on/off, ${what}: ${ratios.map((x) => fmt(x, 3)).join(' ')}`);
  }
  console.log(`\n${perRound.join('\n')}`);
}

async function overhead(): Promise<void> {
  if (values.profile) mkdirSync(values.profile, { recursive: true });
  const pair = (label: string, tree: string): Pair => ({
    label,
    tree,
    sides: {} as Record<Mode, Side>,
    rows: { off: [], on: [] },
    metricWorkNs: 0,
  });
  const pairs = [pair('this-tree', resolve(import.meta.dirname, '..'))];
  if (values.baseline) pairs.push(pair('baseline', resolve(values.baseline)));
  console.log(
    `rounds: ${ROUNDS}, each with fresh broker processes warmed up with ${WARMUP} requests; per round and broker: produce ${REQUESTS} requests × ${RECORDS_PER_BATCH} records × ${RECORD_BYTES} B (${IN_FLIGHT} in flight) in ${SLICES} phases, then fetch of those records ${FETCH_PASSES} times (${FETCH_MAX_BYTES / 1024} KiB per request) in ${SLICES} phases, the two brokers' phases alternating ABBA; load average at start ${load()}`,
  );
  for (let r = 0; r < ROUNDS; r++) {
    for (const p of r % 2 === 0 ? pairs : [...pairs].reverse()) {
      await startSides(p, r);
      await round(p, r);
      if (r === ROUNDS - 1) p.metricWorkNs = await p.sides.on.proc.call<number>('metricWork');
      await closeSides(p);
    }
    // Progress, and what a run cut short still tells.
    const ratio = (p: Pair, key: 'produceCpu' | 'fetchCpu') =>
      fmt(p.rows.on[r]![key] / p.rows.off[r]![key], 3);
    console.error(
      `round ${r + 1}/${ROUNDS} (load ${load()}): on/off broker CPU per record, per MB: ${pairs.map((p) => `${p.label} ${ratio(p, 'produceCpu')}, ${ratio(p, 'fetchCpu')}`).join('; ')}`,
    );
  }
  console.log(`load average at the end: ${load()}`);
  for (const p of pairs) report(p);
}

async function scrapeTime(): Promise<void> {
  const broker = await startTestBroker({ overrides: { 'http.listener': '127.0.0.1:0' } });
  const wire = await Wire.open(broker.port);
  const perTopic = 100;
  const t0 = performance.now();
  for (let i = 0; i < PARTITIONS / perTopic; i += 10)
    await createTopics(
      wire,
      Array.from({ length: Math.min(10, PARTITIONS / perTopic - i) }, (_, j) => ({
        name: `scrape-${i + j}`,
        partitions: perTopic,
      })),
    );
  const createdS = (performance.now() - t0) / 1000;
  const url = `http://127.0.0.1:${broker.http!.port}/metrics`;
  const times: number[] = [];
  const cpus: number[] = [];
  let body = '';
  for (let i = 0; i < 7; i++) {
    const s = performance.now();
    const c = process.cpuUsage();
    body = await (await fetch(url)).text();
    times.push(performance.now() - s);
    const d = process.cpuUsage(c);
    cpus.push((d.user + d.system) / 1000);
  }
  const series = body.split('\n').filter((l) => l !== '' && !l.startsWith('#')).length;
  console.log(
    `\n/metrics with ${fmt(PARTITIONS)} partitions (created in ${fmt(createdS, 1)} s): median ${fmt(median(times.slice(2)), 0)} ms (process CPU ${fmt(median(cpus.slice(2)), 0)} ms, client included) over 5 scrapes after 2 warm-ups (first: ${fmt(times[0]!, 0)} ms); ${fmt(series)} series, ${fmt(body.length / 1024, 0)} KiB`,
  );
  wire.close();
  await broker.close();
}

/**
 * The per-partition log gauges alone, rendered both ways in the same run: prom-client labelled
 * gauges set at scrape time (how Samsa did it first) against the text writer (log-families.ts),
 * over the same PARTITIONS partition-like objects. Median process CPU ms of 9 renders after 3
 * warm-ups (CPU, not wall time: on a loaded machine the wall time mostly measures the others).
 */
async function logFamiliesBeforeAfter(): Promise<void> {
  const parts = Array.from({ length: PARTITIONS }, (_, i) => ({
    topic: `scrape-${Math.floor(i / 100)}`,
    index: i % 100,
    log: { size: 1_048_576 + i, logEndOffset: BigInt(1000 + i), logStartOffset: BigInt(i) },
  }));
  const registry = new Registry();
  for (const [name, read] of [
    ['size', (l: (typeof parts)[number]['log']) => l.size],
    ['logendoffset', (l: (typeof parts)[number]['log']) => Number(l.logEndOffset)],
    ['logstartoffset', (l: (typeof parts)[number]['log']) => Number(l.logStartOffset)],
  ] as const) {
    new Gauge({
      name: `kafka_log_log_${name}`,
      help: name,
      labelNames: ['topic', 'partition'],
      registers: [registry],
      collect() {
        this.reset();
        for (const p of parts) this.set({ topic: p.topic, partition: String(p.index) }, read(p.log));
      },
    });
  }
  const families = new LogFamilies(() => parts as unknown as Partition[]);
  const time = async (f: () => Promise<string> | string) => {
    const ts: number[] = [];
    for (let i = 0; i < 12; i++) {
      const t0 = process.cpuUsage();
      await f();
      const d = process.cpuUsage(t0);
      ts.push((d.user + d.system) / 1000);
    }
    return median(ts.slice(3));
  };
  // Interleaved, so that machine load hits both.
  const before: number[] = [];
  const after: number[] = [];
  for (let r = 0; r < 3; r++) {
    before.push(await time(() => registry.metrics()));
    after.push(await time(() => families.text()));
  }
  console.log(
    `\nlog gauges of ${fmt(PARTITIONS)} partitions (${fmt(3 * PARTITIONS)} series), rendered alone (CPU ms): prom-client labelled gauges ${fmt(median(before), 1)} ms, text writer ${fmt(median(after), 1)} ms`,
  );
}

async function main(): Promise<void> {
  if (values.only !== 'scrape') await overhead();
  if (values.only !== 'overhead') {
    await logFamiliesBeforeAfter();
    await scrapeTime();
  }
}

main().catch((e: unknown) => {
  console.error(e);
  process.exit(1);
});
