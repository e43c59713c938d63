// What the broker's metrics cost: produce and fetch throughput of a broker with `http.listener`
// set (counters on every request, prom-client registry) against one without, in the same
// process and run, rounds alternating between the two so that machine noise hits both; and the
// time of one /metrics scrape of a broker holding 10,000 partitions.
//
// The client is a bare pipelined wire sender of pre-encoded requests (no producer library), so
// the broker's per-request work is most of what is timed, and small batches (10 records) make
// per-request costs (the request timing) weigh the most.
//
//   npx tsx bench/metrics-overhead.ts [--rounds N] [--requests N] [--partitions N] [--only overhead|scrape]

import { connect, type Socket } from 'node:net';
import { parseArgs } from 'node:util';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { Gauge, Registry } from 'prom-client';
import { BrokerMetrics } from '../src/broker/metrics/broker-metrics.js';
import { LogFamilies } from '../src/broker/metrics/log-families.js';
import type { Partition } from '../src/broker/replica/partition.js';
import { decodeResponse, encodeRequest } from '../src/protocol/messages/frame.js';
import { createTopicsApi } from '../src/protocol/messages/generated/create-topics.js';
import { type FetchRequest, fetchApi } from '../src/protocol/messages/generated/fetch.js';
import { produceApi } from '../src/protocol/messages/generated/produce.js';
import type { ApiDescriptor } from '../src/protocol/messages/runtime.js';
import {
  encodeRecordBatchSync,
  iterateBatches,
  readBatchHeader,
} from '../src/protocol/record-batch/index.js';
import { startTestBroker, type TestBroker } from '../src/testkit/index.js';

const { values } = parseArgs({
  options: {
    rounds: { type: 'string', default: '8' },
    requests: { type: 'string', default: '8000' },
    partitions: { type: 'string', default: '10000' },
    only: { type: 'string' }, // 'overhead' or 'scrape'
  },
});
const ROUNDS = Number(values.rounds);
const REQUESTS = Number(values.requests);
const PARTITIONS = Number(values.partitions);
const RECORDS_PER_BATCH = 10;
const RECORD_BYTES = 100;
const IN_FLIGHT = 32;
const FETCH_MAX_BYTES = 64 * 1024;

// A collection forced before each timed phase: otherwise the garbage one broker's phase leaves
// is collected during the other's, and whichever runs second pays for the first.
setFlagsFromString('--expose-gc');
const collectGarbage = runInNewContext('gc') as () => void;

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

/** Seconds to read the partition from `from` to its end, one 64 KiB fetch at a time, and the bytes read. */
async function fetchRound(
  wire: Wire,
  topic: string,
  from: bigint,
): Promise<{ seconds: number; bytes: number }> {
  const request = (offset: bigint): FetchRequest => ({
    clusterId: null,
    replicaId: -1,
    replicaState: { replicaId: -1, replicaEpoch: -1n },
    maxWaitMs: 0,
    minBytes: 0,
    maxBytes: FETCH_MAX_BYTES,
    isolationLevel: 0,
    sessionId: 0,
    sessionEpoch: -1,
    topics: [
      {
        topic,
        topicId: 'AAAAAAAAAAAAAAAAAAAAAA',
        partitions: [
          {
            partition: 0,
            currentLeaderEpoch: -1,
            fetchOffset: offset,
            lastFetchedEpoch: -1,
            logStartOffset: -1n,
            partitionMaxBytes: FETCH_MAX_BYTES,
            replicaDirectoryId: 'AAAAAAAAAAAAAAAAAAAAAA',
          },
        ],
      },
    ],
    forgottenTopicsData: [],
    rackId: '',
  });
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
    if (last < 0n || last + 1n >= p.highWatermark) break;
    offset = last + 1n;
  }
  return { seconds: (performance.now() - t0) / 1000, bytes };
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const fmt = (n: number, d = 0) =>
  n.toLocaleString('en-US', { maximumFractionDigits: d, minimumFractionDigits: d });

async function overhead(): Promise<void> {
  const brokers: [string, TestBroker][] = [
    ['off', await startTestBroker()],
    ['on', await startTestBroker({ overrides: { 'http.listener': '127.0.0.1:0' } })],
  ];
  const wires = new Map<string, Wire>();
  for (const [name, b] of brokers) {
    const w = await Wire.open(b.port);
    wires.set(name, w);
    await createTopics(w, [{ name: 'bench', partitions: 1 }]);
    await produceRound(w, 'bench'); // warm-up: JIT, segment files, buffer pools
  }
  const series = () =>
    new Map<string, number[]>([
      ['off', []],
      ['on', []],
    ]);
  const [produced, produceCpu, fetched, fetchCpu] = [series(), series(), series(), series()];
  /** Process CPU (client and broker: the client's share is the same in both) in µs. */
  const cpu = () => {
    const u = process.cpuUsage();
    return u.user + u.system;
  };
  /** Runs `phase` for each broker in `order`, each after a forced collection. */
  const timed = async (order: [string, TestBroker][], phase: (name: string) => Promise<void>) => {
    for (const [name] of order) {
      collectGarbage();
      await phase(name);
    }
  };
  // The warm-up round left REQUESTS batches in each log.
  const logEnd = new Map(brokers.map(([name]) => [name, BigInt(REQUESTS * RECORDS_PER_BATCH)]));
  for (let r = 0; r < ROUNDS; r++) {
    // ABBA within a round, BAAB in the next: a trend in machine load or an order effect (JIT,
    // caches, the log growing) lands on both brokers alike.
    const [a, b] = r % 2 === 0 ? brokers : [brokers[1]!, brokers[0]!];
    const order: [string, TestBroker][] = [a, b, b, a];
    const perPhase = (REQUESTS * RECORDS_PER_BATCH) / 2;
    const firstOffset = new Map<string, bigint>();
    const produceCpuSum = new Map<string, number>();
    const produceSeconds = new Map<string, number>();
    await timed(order, async (name) => {
      const wire = wires.get(name)!;
      if (!firstOffset.has(name)) firstOffset.set(name, logEnd.get(name)!);
      const c0 = cpu();
      const s = await produceRound(wire, 'bench', REQUESTS / 2);
      logEnd.set(name, logEnd.get(name)! + BigInt(perPhase));
      produceCpuSum.set(name, (produceCpuSum.get(name) ?? 0) + (cpu() - c0));
      produceSeconds.set(name, (produceSeconds.get(name) ?? 0) + s);
    });
    for (const [name] of brokers) {
      produceCpu.get(name)!.push(produceCpuSum.get(name)! / (2 * perPhase));
      produced.get(name)!.push((2 * perPhase) / produceSeconds.get(name)!);
    }
    const fetchCpuSum = new Map<string, number>();
    const fetchSeconds = new Map<string, number>();
    const fetchBytes = new Map<string, number>();
    await timed(order, async (name) => {
      const c0 = cpu();
      const f = await fetchRound(wires.get(name)!, 'bench', firstOffset.get(name)!);
      fetchCpuSum.set(name, (fetchCpuSum.get(name) ?? 0) + (cpu() - c0));
      fetchSeconds.set(name, (fetchSeconds.get(name) ?? 0) + f.seconds);
      fetchBytes.set(name, (fetchBytes.get(name) ?? 0) + f.bytes);
    });
    for (const [name] of brokers) {
      const mb = fetchBytes.get(name)! / 1e6;
      fetchCpu.get(name)!.push(fetchCpuSum.get(name)! / mb);
      fetched.get(name)!.push(mb / fetchSeconds.get(name)!);
    }
  }
  /** Geometric mean of the per-round on/off ratios: each round compares the two under the same load. */
  const pairedRatio = (m: Map<string, number[]>) => {
    const on = m.get('on')!;
    const logs = m.get('off')!.map((off, i) => Math.log(on[i]! / off));
    return Math.exp(logs.reduce((x, y) => x + y, 0) / logs.length);
  };
  const row = (what: string, unit: string, m: Map<string, number[]>, d: number) => {
    const off = median(m.get('off')!);
    const on = median(m.get('on')!);
    console.log(
      `| ${what} | ${fmt(off, d)} ${unit} | ${fmt(on, d)} ${unit} | ${fmt(on / off, 3)} | ${fmt(pairedRatio(m), 3)} |`,
    );
  };
  console.log(
    `rounds: ${ROUNDS}, produce: ${REQUESTS} requests × ${RECORDS_PER_BATCH} records × ${RECORD_BYTES} B, ${IN_FLIGHT} in flight; each broker in ABBA order, a forced GC before each phase; fetch: the round's records, twice, ${FETCH_MAX_BYTES / 1024} KiB per request\n`,
  );
  console.log(
    '| scenario (median of rounds) | metrics off | metrics on | on / off | on / off, per round (geometric mean) |',
  );
  console.log('| --- | --- | --- | --- | --- |');
  row('produce, acks=1: throughput', 'records/s', produced, 0);
  row('produce, acks=1: process CPU', 'µs/record', produceCpu, 3);
  row("fetch of the round's records: throughput", 'MB/s', fetched, 1);
  row("fetch of the round's records: process CPU", 'µs/MB', fetchCpu, 0);
  const ratios = (m: Map<string, number[]>) =>
    m
      .get('on')!
      .map((v, i) => fmt(v / m.get('off')![i]!, 3))
      .join(' ');
  console.log(`\nper-round on/off, produce records/s: ${ratios(produced)}`);
  console.log(`per-round on/off, produce CPU/record: ${ratios(produceCpu)}`);
  console.log(`per-round on/off, fetch MB/s: ${ratios(fetched)}`);
  console.log(`per-round on/off, fetch CPU/MB: ${ratios(fetchCpu)}`);
  for (const w of wires.values()) w.close();
  for (const [, b] of brokers) await b.close();
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

/**
 * The metric work one acks=1 produce request of one batch adds, timed alone in a loop (what the
 * dispatcher and the produce handler do when metrics are on): ns per request. Machine noise
 * swamps a 2 % difference in the throughput rounds; this figure does not depend on it.
 */
function metricWorkPerProduceNs(): number {
  const m = new BrokerMetrics();
  const frames = Array.from({ length: 64 }, () => Buffer.alloc(64));
  const append = { baseOffset: 100n, lastOffset: 109n, logAppendTime: -1n, logStartOffset: 0n };
  const n = 2_000_000;
  const run = () => {
    const t0 = performance.now();
    for (let i = 0; i < n; i++) {
      const frame = frames[i & 63]!;
      m.timer.arrived(frame);
      const started = m.timer.start(frame);
      m.topics.appended('bench', 1200, append);
      started.handled('Produce', 9)();
    }
    return ((performance.now() - t0) * 1e6) / n;
  };
  run(); // warm-up (JIT)
  return Math.min(run(), run(), run());
}

async function main(): Promise<void> {
  if (values.only !== 'scrape') {
    const ns = metricWorkPerProduceNs();
    console.log(`metric work per produce request, alone: ${fmt(ns, 0)} ns\n`);
    await overhead();
  }
  if (values.only !== 'overhead') {
    await logFamiliesBeforeAfter();
    await scrapeTime();
  }
}

main().catch((e: unknown) => {
  console.error(e);
  process.exit(1);
});
