// Producer benchmark: our producer vs kafkajs 2.2.4 vs @platformatic/kafka 1.35 vs librdkafka
// (confluent-kafka-python 1.7 on librdkafka 2.0.2), all against one samsa broker running in its
// own process, in the same run. Each client runs in its own child process so that its peak RSS
// is its own. acks=1, linger 5 ms where the client has a linger (ours, librdkafka); kafkajs and
// @platformatic have none, so they get their recommended usage: send() calls of 1000 records,
// at most 5 in flight. Latency = time from handing a record to the client to its acknowledgement.
//
//   npx tsx bench/client-producer.ts [--small N] [--large N] [--clients samsa,kafkajs,platformatic,librdkafka]
//
// Workloads: N small records of 100 bytes (default 1,000,000) and N large ones of 1 KiB
// (default 100,000), each into a fresh single-partition topic.
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';

interface Result {
  client: string;
  records: number;
  size: number;
  seconds: number;
  recordsPerSec: number;
  p50: number;
  p99: number;
  maxRssMB: number;
}

const CLIENTS = ['samsa', 'samsa-128k', 'kafkajs', 'platformatic', 'librdkafka'] as const;
type ClientName = (typeof CLIENTS)[number];

function percentile(sorted: Float64Array | number[], p: number): number {
  return sorted.length === 0 ? 0 : sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))]!;
}

/** Collects per-record latencies (every k-th record to bound memory) and prints the result. */
class Recorder {
  readonly #lat: Float64Array;
  #n = 0;
  #i = 0;
  readonly #every: number;
  constructor(records: number) {
    this.#every = Math.max(1, Math.floor(records / 200_000));
    this.#lat = new Float64Array(Math.ceil(records / this.#every) + 1);
  }
  add(ms: number, count = 1): void {
    for (let c = 0; c < count; c++)
      if (this.#i++ % this.#every === 0 && this.#n < this.#lat.length) this.#lat[this.#n++] = ms;
  }
  report(client: string, records: number, size: number, seconds: number): void {
    const sorted = this.#lat.slice(0, this.#n).sort();
    const r: Result = {
      client,
      records,
      size,
      seconds,
      recordsPerSec: records / seconds,
      p50: percentile(sorted, 0.5),
      p99: percentile(sorted, 0.99),
      maxRssMB: process.resourceUsage().maxRSS / 1024,
    };
    process.stdout.write(`RESULT ${JSON.stringify(r)}\n`);
  }
}

// ---- workers ------------------------------------------------------------------------------

/** Our producer with Kafka's defaults (batch.size 16 KiB), or with 128 KiB batches. */
async function samsaWorker(
  bootstrap: string,
  topic: string,
  n: number,
  size: number,
  batchSize = 16384,
): Promise<void> {
  const { Producer } = await import('../src/client/index.js');
  const producer = new Producer({
    bootstrapServers: bootstrap,
    acks: 1,
    lingerMs: 5,
    batchSize,
    clientId: 'bench-samsa',
  });
  const payload = Buffer.alloc(size, 65);
  await producer.send({ topic, value: payload }); // warm-up: connection + metadata
  const rec = new Recorder(n);
  let failed: Error | null = null;
  // One shared callback; the record timestamp send() assigns is the send time (ms resolution,
  // like kafka-producer-perf-test), so no closure per record.
  const onDelivery = (err: Error | null, md: { timestamp: number } | null): void => {
    if (err !== null) failed ??= err;
    else rec.add(Date.now() - md!.timestamp);
  };
  const start = performance.now();
  for (let i = 0; i < n; i++) {
    const ok = producer.send({ topic, value: payload }, onDelivery);
    if (!ok) await producer.bufferAvailable();
    else if ((i & 1023) === 1023) await new Promise((r) => setImmediate(r));
  }
  await producer.flush();
  const seconds = (performance.now() - start) / 1000;
  await producer.close();
  if (failed !== null) throw failed;
  rec.report(batchSize === 16384 ? 'samsa' : 'samsa-128k', n, size, seconds);
}

/** Batches of 1000 records, at most 5 send() calls in flight (kafkajs and @platformatic). */
async function batchedLoop(
  n: number,
  send: (count: number) => Promise<unknown>,
  rec: Recorder,
): Promise<number> {
  const BATCH = 1000;
  const inflight = new Set<Promise<unknown>>();
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
  const producer = kafka.producer({ allowAutoTopicCreation: true });
  await producer.connect();
  const payload = Buffer.alloc(size, 65);
  await producer.send({ topic, acks: 1, messages: [{ value: payload }] });
  const rec = new Recorder(n);
  const seconds = await batchedLoop(
    n,
    (count) =>
      producer.send({ topic, acks: 1, messages: Array.from({ length: count }, () => ({ value: payload })) }),
    rec,
  );
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
  const seconds = await batchedLoop(
    n,
    (count) => producer.send({ messages: Array.from({ length: count }, () => ({ topic, value: payload })) }),
    rec,
  );
  await producer.close();
  rec.report('platformatic', n, size, seconds);
}

const PYTHON_WORKER = `
import sys, time, json, resource
from confluent_kafka import Producer
bootstrap, topic, n, size = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
p = Producer({'bootstrap.servers': bootstrap, 'linger.ms': 5, 'acks': 1, 'client.id': 'bench-librdkafka',
              'queue.buffering.max.kbytes': 32768, 'queue.buffering.max.messages': 10000000})
payload = b'A' * size
every = max(1, n // 200000)
lat = []
errors = []
def make_cb(t0, sample):
    def cb(err, msg):
        if err is not None: errors.append(str(err))
        elif sample: lat.append((time.perf_counter() - t0) * 1000)
    return cb
p.produce(topic, payload); p.flush(10)
start = time.perf_counter()
for i in range(n):
    t0 = time.perf_counter()
    while True:
        try:
            p.produce(topic, payload, on_delivery=make_cb(t0, i % every == 0)); break
        except BufferError:
            p.poll(0.005)
    if i % 1000 == 999: p.poll(0)
p.flush(120)
seconds = time.perf_counter() - start
if errors: raise SystemExit('delivery errors: ' + errors[0])
lat.sort()
pick = lambda q: lat[min(len(lat) - 1, int(q * len(lat)))] if lat else 0
print('RESULT ' + json.dumps({'client': 'librdkafka', 'records': n, 'size': size, 'seconds': seconds,
      'recordsPerSec': n / seconds, 'p50': pick(0.5), 'p99': pick(0.99),
      'maxRssMB': resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024}))
`;

// ---- orchestration ------------------------------------------------------------------------

function runChild(cmd: string, args: string[]): Promise<Result> {
  return new Promise((resolve, reject) => {
    const child = spawn(cmd, args, { stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    child.stdout.on('data', (d: Buffer) => (out += d.toString()));
    child.stderr.on('data', (d: Buffer) => (err += d.toString()));
    child.on('close', (code) => {
      const line = out.split('\n').find((l) => l.startsWith('RESULT '));
      if (code !== 0 || line === undefined)
        reject(new Error(`${args.join(' ')} failed (${code}): ${err.slice(-2000)}`));
      else resolve(JSON.parse(line.slice(7)) as Result);
    });
  });
}

function startBrokerProcess(dataDir: string): Promise<{ child: ChildProcess; bootstrap: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(
      process.execPath,
      [
        '--import',
        'tsx',
        'src/cli/main.ts',
        'start',
        '--port',
        '0',
        '--data-dir',
        dataDir,
        '--log-level',
        'warn',
      ],
      { stdio: ['ignore', 'pipe', 'inherit'] },
    );
    let out = '';
    child.stdout!.on('data', (d: Buffer) => {
      out += d.toString();
      const m = /listening on ([\d.]+:\d+)/.exec(out);
      if (m) resolve({ child, bootstrap: m[1]! });
    });
    child.on('exit', (code) => reject(new Error(`broker exited with ${code}: ${out}`)));
  });
}

async function orchestrate(): Promise<void> {
  const { values } = parseArgs({
    options: {
      small: { type: 'string', default: '1000000' },
      large: { type: 'string', default: '100000' },
      clients: { type: 'string', default: CLIENTS.join(',') },
    },
  });
  const clients = values.clients!.split(',') as ClientName[];
  const workloads = [
    { n: Number(values.small), size: 100 },
    { n: Number(values.large), size: 1024 },
  ];
  const dataDir = mkdtempSync(join(tmpdir(), 'samsa-bench-'));
  const { child, bootstrap } = await startBrokerProcess(dataDir);
  const results: Result[] = [];
  const { Admin } = await import('../src/client/index.js');
  const admin = new Admin({ bootstrapServers: bootstrap });
  try {
    for (const w of workloads) {
      for (const c of clients) {
        const topic = `bench-${c}-${w.size}-${Date.now()}`;
        await admin.createTopics([{ name: topic, numPartitions: 1, replicationFactor: 1 }]);
        const args = [String(w.n), String(w.size)];
        const r =
          c === 'librdkafka'
            ? await runChild('/usr/bin/python3', ['-c', PYTHON_WORKER, bootstrap, topic, ...args])
            : await runChild(process.execPath, [
                '--import',
                'tsx',
                'bench/client-producer.ts',
                '--worker',
                c,
                bootstrap,
                topic,
                ...args,
              ]);
        results.push(r);
        process.stdout.write(
          `${c.padEnd(13)} ${String(w.n).padStart(8)} × ${String(w.size).padStart(4)} B: ${Math.round(r.recordsPerSec).toLocaleString('en-US').padStart(9)} records/s, p50 ${r.p50.toFixed(1)} ms, p99 ${r.p99.toFixed(1)} ms, peak RSS ${r.maxRssMB.toFixed(0)} MB\n`,
        );
      }
    }
  } finally {
    await admin.close();
    child.kill('SIGTERM');
    await new Promise((r) => child.once('exit', r));
    rmSync(dataDir, { recursive: true, force: true });
  }
  for (const w of workloads) {
    const ours = results.find((r) => r.client === 'samsa' && r.size === w.size);
    if (ours === undefined) continue;
    for (const r of results.filter((x) => x.size === w.size && x.client !== 'samsa')) {
      process.stdout.write(
        `ratio ${w.size} B: samsa / ${r.client} = ${(ours.recordsPerSec / r.recordsPerSec).toFixed(2)}× records/s, ${(ours.maxRssMB / r.maxRssMB).toFixed(2)}× peak RSS\n`,
      );
    }
  }
}

const workerIdx = process.argv.indexOf('--worker');
if (workerIdx >= 0) {
  const [name, bootstrap, topic, n, size] = process.argv.slice(workerIdx + 1);
  const fn = {
    samsa: samsaWorker,
    'samsa-128k': (b: string, t: string, n: number, s: number) => samsaWorker(b, t, n, s, 131072),
    kafkajs: kafkajsWorker,
    platformatic: platformaticWorker,
  }[name as 'samsa'];
  if (fn === undefined) throw new Error(`unknown worker ${name}`);
  await fn(bootstrap!, topic!, Number(n), Number(size));
  process.exit(0);
} else {
  await orchestrate();
}
