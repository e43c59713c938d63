// Worker side of bench/client-producer.ts: one client, one workload, one process. Bundled with
// esbuild and run on plain node (`node bundle.mjs --worker <client> <bootstrap> <topic> <n> <size>`)
// so that the process's peak RSS is the client's own plus Node itself.
//
// Each worker sends one warm-up record (connection, metadata, producer id), then times the n
// records from the first send() to the last acknowledgement and prints one `RESULT {json}` line.
// Set SAMSA_BENCH_MEM=1 to also print heap/external/arrayBuffers peaks (sampled every 20 ms).

interface Result {
  client: string;
  records: number;
  size: number;
  seconds: number;
  recordsPerSec: number;
  p50: number;
  p99: number;
  maxRssMB: number;
  /** CPU time (user + system) the client process spent during the timed part. */
  cpuMs: number;
}

function percentile(sorted: Float64Array, p: number): number {
  return sorted.length === 0 ? 0 : sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))]!;
}

/** Collects per-record latencies (every k-th record, to bound memory) and prints the result. */
class Recorder {
  readonly #lat: Float64Array;
  #n = 0;
  #i = 0;
  readonly #every: number;
  #cpu0: NodeJS.CpuUsage = process.cpuUsage();
  constructor(records: number) {
    this.#every = Math.max(1, Math.floor(records / 200_000));
    this.#lat = new Float64Array(Math.ceil(records / this.#every) + 1);
  }
  /** Marks the start of the timed part (for the CPU figure). */
  start(): void {
    this.#cpu0 = process.cpuUsage();
  }
  /** True if the next `add` is kept: callers can skip reading the clock for the others. */
  get sampling(): boolean {
    return this.#i % this.#every === 0;
  }
  /** Counts a record that is not sampled. */
  skip(): void {
    this.#i++;
  }
  add(ms: number, count = 1): void {
    for (let c = 0; c < count; c++)
      if (this.#i++ % this.#every === 0 && this.#n < this.#lat.length) this.#lat[this.#n++] = ms;
  }
  report(client: string, records: number, size: number, seconds: number): void {
    const sorted = this.#lat.slice(0, this.#n).sort();
    const cpu = process.cpuUsage(this.#cpu0);
    const r: Result = {
      client,
      records,
      size,
      seconds,
      recordsPerSec: records / seconds,
      p50: percentile(sorted, 0.5),
      p99: percentile(sorted, 0.99),
      maxRssMB: process.resourceUsage().maxRSS / 1024,
      cpuMs: (cpu.user + cpu.system) / 1000,
    };
    process.stdout.write(`RESULT ${JSON.stringify(r)}\n`);
  }
}

/** Optional memory sampling (diagnostics only; off for the reported runs). */
function sampleMemory(): () => void {
  if (process.env.SAMSA_BENCH_MEM !== '1') return () => {};
  const peak = { heapUsed: 0, external: 0, arrayBuffers: 0, rss: 0 };
  const timer = setInterval(() => {
    const m = process.memoryUsage();
    for (const k of Object.keys(peak) as (keyof typeof peak)[]) peak[k] = Math.max(peak[k], m[k]);
  }, 20);
  return () => {
    clearInterval(timer);
    const mb = (v: number): string => `${(v / 1048576).toFixed(1)} MB`;
    process.stderr.write(
      `MEM heapUsed ${mb(peak.heapUsed)} external ${mb(peak.external)} arrayBuffers ${mb(peak.arrayBuffers)} rss ${mb(peak.rss)}\n`,
    );
  };
}

/**
 * batch.size per variant: Kafka's default 16 KiB; 128 KiB; or room for 1000 records, i.e. the
 * records per request the kafkajs and @platformatic rows send (send() calls of 1000 records).
 */
function batchSizeFor(name: string, size: number): number {
  if (name === 'samsa-128k') return 131072;
  if (name === 'samsa-1000') return 61 + 1000 * (size + 8);
  return 16384;
}

/** Our producer with Kafka's defaults (batch.size 16 KiB) or a larger batch.size. */
async function samsaWorker(
  bootstrap: string,
  topic: string,
  n: number,
  size: number,
  name: string,
): Promise<void> {
  const { Producer } = await import('../src/client/index.js');
  const producer = new Producer({
    bootstrapServers: bootstrap,
    acks: 1,
    lingerMs: 5,
    batchSize: batchSizeFor(name, size),
    clientId: 'bench-samsa',
    // Experiments: SAMSA_BENCH_PROPS='{"enableIdempotence":false}' (not used by the reported runs).
    ...(JSON.parse(process.env.SAMSA_BENCH_PROPS ?? '{}') as object),
  });
  const payload = Buffer.alloc(size, 65);
  await producer.send({ topic, value: payload }); // warm-up: connection + metadata + producer id
  const rec = new Recorder(n);
  const stopSampling = sampleMemory();
  let failed: Error | null = null;
  // One shared callback; the record timestamp send() assigns is the send time (ms resolution,
  // like kafka-producer-perf-test), so no closure per record.
  const onDelivery = (err: Error | null, md: { timestamp: number } | null): void => {
    if (err !== null) failed ??= err;
    else if (rec.sampling) rec.add(Date.now() - md!.timestamp);
    else rec.skip();
  };
  rec.start();
  const start = performance.now();
  for (let i = 0; i < n; i++) {
    // A Node loop must yield for the sender to run; false = wait for buffer.memory ('drain').
    if (!producer.send({ topic, value: payload }, onDelivery)) await producer.bufferAvailable();
    else if ((i & 1023) === 1023) await new Promise((r) => setImmediate(r));
  }
  await producer.flush();
  const seconds = (performance.now() - start) / 1000;
  stopSampling();
  await producer.close();
  if (failed !== null) throw failed;
  rec.report(name, n, size, seconds);
}

/** Batches of 1000 records, at most 5 send() calls in flight (kafkajs and @platformatic). */
async function batchedLoop(
  n: number,
  send: (count: number) => Promise<unknown>,
  rec: Recorder,
): Promise<number> {
  const BATCH = 1000;
  const inflight = new Set<Promise<unknown>>();
  rec.start();
  const start = performance.now();
  for (let sent = 0; sent < n; sent += BATCH) {
    const count = Math.min(BATCH, n - sent);
    const t0 = performance.now();
    const p: Promise<unknown> = send(count).then(() => {
      rec.add(performance.now() - t0, count);
      inflight.delete(p);
    });
    inflight.add(p);
    if (inflight.size >= 5) await Promise.race(inflight);
  }
  await Promise.all(inflight);
  return (performance.now() - start) / 1000;
}

async function kafkajsWorker(bootstrap: string, topic: string, n: number, size: number): Promise<void> {
  const { Kafka, logLevel } = await import('kafkajs');
  const kafka = new Kafka({ brokers: [bootstrap], clientId: 'bench-kafkajs', logLevel: logLevel.NOTHING });
  const producer = kafka.producer({ allowAutoTopicCreation: false });
  await producer.connect();
  const payload = Buffer.alloc(size, 65);
  await producer.send({ topic, acks: 1, messages: [{ value: payload }] });
  const rec = new Recorder(n);
  const stopSampling = sampleMemory();
  const seconds = await batchedLoop(
    n,
    (count) =>
      producer.send({ topic, acks: 1, messages: Array.from({ length: count }, () => ({ value: payload })) }),
    rec,
  );
  stopSampling();
  await producer.disconnect();
  rec.report('kafkajs', n, size, seconds);
}

async function platformaticWorker(bootstrap: string, topic: string, n: number, size: number): Promise<void> {
  const { Producer } = await import('@platformatic/kafka');
  const producer = new Producer({
    clientId: 'bench-platformatic',
    bootstrapBrokers: [bootstrap],
    acks: 1,
    idempotent: false,
  });
  const payload = Buffer.alloc(size, 65);
  await producer.send({ messages: [{ topic, value: payload }] });
  const rec = new Recorder(n);
  const stopSampling = sampleMemory();
  const seconds = await batchedLoop(
    n,
    (count) => producer.send({ messages: Array.from({ length: count }, () => ({ topic, value: payload })) }),
    rec,
  );
  stopSampling();
  await producer.close();
  rec.report('platformatic', n, size, seconds);
}

const workerIdx = process.argv.indexOf('--worker');
if (workerIdx >= 0) {
  const [name, bootstrap, topic, nArg, sizeArg] = process.argv.slice(workerIdx + 1) as [
    string,
    string,
    string,
    string,
    string,
  ];
  const n = Number(nArg);
  const size = Number(sizeArg);
  if (name.startsWith('samsa')) await samsaWorker(bootstrap, topic, n, size, name);
  else if (name === 'kafkajs') await kafkajsWorker(bootstrap, topic, n, size);
  else if (name === 'platformatic') await platformaticWorker(bootstrap, topic, n, size);
  else throw new Error(`unknown worker ${name}`);
  process.exit(0);
}
