// Consumer benchmark: our consumer vs kafkajs 2.2.4 vs @platformatic/kafka 1.35 vs librdkafka
// (confluent-kafka-python 1.7 on librdkafka 2.0.2), all reading the same pre-filled topic from
// one samsa broker running in its own process, in the same run. Each client runs in its own
// child process so that its peak RSS is its own; the Node clients and the broker run compiled
// (from dist/, not through tsx, whose loader alone adds ~40 MB of RSS).
//
//   npm run build && npx tsx bench/client-consumer.ts [--small N] [--large N] [--rounds R]
//                      [--clients samsa,samsa-nocrc,kafkajs,platformatic,librdkafka] [--base DIR]
//                      [--pin]
//
// `--base DIR` adds `samsa-base` (and `samsa-base-nocrc` when `samsa-nocrc` runs): our consumer
// compiled in another copy of the tree (DIR/dist, built there with `npm run build`), for
// before/after figures of a client change in the same run, against the same broker (this
// tree's). `samsa-nocrc` is our consumer with
// `checkCrcs: false`: kafkajs does not check CRCs, so that is the like-for-like comparison
// (`samsa`, with Kafka's default check.crcs = true, is the other). A workload with N = 0 is
// skipped.
// Workloads: N records of 100 bytes (default 1,000,000) and N of 1 KiB (default 1,000,000), each
// in a single-partition topic filled once before the clients run. A run of 100,000 × 1 KiB is
// ~0.3 s of consuming: there module loading, JIT compilation and GC warm-up weigh on every
// client, and the ratios differ from the steady state that 1,000,000 records measure (see
// docs/benchmarks.md, "Consumer run length"). Every client starts from the
// earliest offset with its own group (or none) and counts records and payload bytes; records/s
// is measured from the first record received to the last, so group joins and connection setup
// do not count (they are reported separately as "startup"), and so is the CPU time of the Node
// clients (`process.cpuUsage`, user + system), and the CPU time of the broker process (all its
// threads, `/proc/<pid>/stat`) while it served that client: each worker says FIRST when its
// first record arrives, and its RESULT line ends the interval. From those the bench prints the
// records/s ratio this machine allows at all (see `ceiling`). Each client runs once per round,
// rounds interleave the clients (each round starting with the next client, so none always runs
// first), and each client keeps its best round (the machine is shared).
// Every client runs with its defaults.
import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { availableParallelism, tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';

interface Result {
  client: string;
  records: number;
  size: number;
  seconds: number;
  startupSeconds: number;
  recordsPerSec: number;
  maxRssMB: number;
  /** CPU time (user + system) of the client process from the first record to the last. */
  cpuMs?: number;
  /** The same clock read when the count first reached each of MARKS (runs longer than a mark). */
  marks?: Mark[];
  /** CPU time of the broker process (all threads) from this client's first record to its last. */
  brokerCpuMs?: number;
}

interface Mark {
  records: number;
  seconds: number;
  cpuMs: number;
}

/** Run lengths inside a run: a run's first 100,000 records are what a 100,000-record run measures. */
const MARKS = [100_000, 300_000];

const CLIENTS = ['samsa', 'samsa-nocrc', 'kafkajs', 'platformatic', 'librdkafka'] as const;
type ClientName = (typeof CLIENTS)[number] | 'samsa-base' | 'samsa-base-nocrc';

/** Times from construction to the first record and from the first record to the n-th. */
class Clock {
  readonly #t0 = performance.now();
  readonly #total: number;
  #first = 0;
  #cpu0: NodeJS.CpuUsage | null = null;
  readonly #marks: Mark[] = [];
  count = 0;
  bytes = 0;
  constructor(total: number) {
    this.#total = total;
  }
  add(n: number, bytes: number): void {
    if (this.count === 0 && n > 0) {
      this.#first = performance.now();
      this.#cpu0 = process.cpuUsage();
      process.stdout.write('FIRST\n'); // the orchestrator reads the broker's CPU time now
    }
    this.count += n;
    this.bytes += bytes;
    const next = MARKS[this.#marks.length];
    if (next !== undefined && next < this.#total && this.count >= next) {
      const cpu = process.cpuUsage(this.#cpu0 ?? undefined);
      this.#marks.push({
        records: this.count,
        seconds: (performance.now() - this.#first) / 1000,
        cpuMs: (cpu.user + cpu.system) / 1000,
      });
    }
  }
  report(client: string, size: number): void {
    const end = performance.now();
    const cpu = process.cpuUsage(this.#cpu0 ?? undefined);
    const seconds = (end - this.#first) / 1000;
    const r: Result = {
      client,
      records: this.count,
      size,
      seconds,
      startupSeconds: (this.#first - this.#t0) / 1000,
      recordsPerSec: this.count / seconds,
      maxRssMB: process.resourceUsage().maxRSS / 1024,
      cpuMs: (cpu.user + cpu.system) / 1000,
      marks: this.#marks,
    };
    process.stdout.write(`RESULT ${JSON.stringify(r)}\n`);
  }
}

// ---- workers ------------------------------------------------------------------------------

async function samsaWorker(
  bootstrap: string,
  topic: string,
  n: number,
  size: number,
  baseDir?: string,
  checkCrcs = true,
): Promise<void> {
  // The consumer of another tree (`--base`), or ours (dist/bench → dist/src).
  const { Consumer } = (await import(
    baseDir === undefined
      ? '../src/client/consumer/index.js'
      : pathToFileURL(join(baseDir, 'dist/src/client/consumer/index.js')).href
  )) as typeof import('../src/client/consumer/index.js');
  const clock = new Clock(n);
  const consumer = new Consumer({
    bootstrapServers: bootstrap,
    clientId: 'bench-samsa',
    autoOffsetReset: 'earliest',
    checkCrcs,
  });
  consumer.assign([{ topic, partition: 0 }]);
  while (clock.count < n) {
    const records = await consumer.poll(1000);
    let bytes = 0;
    for (const r of records) bytes += r.value === null ? 0 : r.value.length;
    clock.add(records.length, bytes);
  }
  const base = baseDir !== undefined ? '-base' : '';
  clock.report(`samsa${base}${checkCrcs ? '' : '-nocrc'}`, size);
  await consumer.close();
}

async function kafkajsWorker(bootstrap: string, topic: string, n: number, size: number): Promise<void> {
  const { Kafka, logLevel } = await import('kafkajs');
  const clock = new Clock(n);
  const kafka = new Kafka({ brokers: [bootstrap], clientId: 'bench-kafkajs', logLevel: logLevel.NOTHING });
  const consumer = kafka.consumer({ groupId: `bench-kafkajs-${Date.now()}` });
  await consumer.connect();
  await consumer.subscribe({ topic, fromBeginning: true });
  await new Promise<void>((resolve) => {
    void consumer.run({
      autoCommit: false,
      eachBatch: async ({ batch }) => {
        let bytes = 0;
        for (const m of batch.messages) bytes += m.value === null ? 0 : m.value.length;
        clock.add(batch.messages.length, bytes);
        if (clock.count >= n) resolve();
      },
    });
  });
  clock.report('kafkajs', size);
  await consumer.disconnect();
}

async function platformaticWorker(bootstrap: string, topic: string, n: number, size: number): Promise<void> {
  const { Consumer } = await import('@platformatic/kafka');
  const clock = new Clock(n);
  const consumer = new Consumer({
    clientId: 'bench-platformatic',
    groupId: `bench-platformatic-${Date.now()}`,
    bootstrapBrokers: [bootstrap],
  });
  const stream = await consumer.consume({ topics: [topic], mode: 'earliest', autocommit: false });
  for await (const m of stream) {
    clock.add(1, m.value === null || m.value === undefined ? 0 : (m.value as Buffer).length);
    if (clock.count >= n) break;
  }
  clock.report('platformatic', size);
  await stream.close();
  await consumer.close(true);
}

const PYTHON_WORKER = `
import sys, time, json, resource
from confluent_kafka import Consumer, TopicPartition, OFFSET_BEGINNING
bootstrap, topic, n, size = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
t0 = time.perf_counter()
c = Consumer({'bootstrap.servers': bootstrap, 'group.id': 'bench-librdkafka', 'enable.auto.commit': False,
              'client.id': 'bench-librdkafka'})
c.assign([TopicPartition(topic, 0, OFFSET_BEGINNING)])
count = 0
first = None
while count < n:
    msgs = c.consume(num_messages=1000, timeout=1.0)
    for m in msgs:
        if m.error() is None:
            if first is None:
                first = time.perf_counter()
                print('FIRST', flush=True)
            count += 1
end = time.perf_counter()
c.close()
print('RESULT ' + json.dumps({'client': 'librdkafka', 'records': count, 'size': size, 'seconds': end - first,
      'startupSeconds': first - t0, 'recordsPerSec': count / (end - first),
      'maxRssMB': resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024}))
`;

// ---- orchestration ------------------------------------------------------------------------

const cpuPerRecord = (r: Result): string =>
  r.cpuMs === undefined ? '-' : ((r.cpuMs * 1000) / r.records).toFixed(2);

/** Rate and CPU per record up to each mark, and after the last one (the steady state). */
function phases(r: Result): string {
  const marks = r.marks ?? [];
  if (marks.length === 0) return '';
  const parts = marks.map(
    (m) =>
      `first ${m.records.toLocaleString('en-US')}: ${Math.round(m.records / m.seconds).toLocaleString('en-US')}/s ${((m.cpuMs * 1000) / m.records).toFixed(2)} µs`,
  );
  const last = marks[marks.length - 1]!;
  const rest = r.records - last.records;
  const restCpu = r.cpuMs === undefined ? '' : ` ${(((r.cpuMs - last.cpuMs) * 1000) / rest).toFixed(2)} µs`;
  parts.push(
    `after ${last.records.toLocaleString('en-US')}: ${Math.round(rest / (r.seconds - last.seconds)).toLocaleString('en-US')}/s${restCpu}`,
  );
  return `\n    ${parts.join('; ')}`;
}

/** CPU time (user + system, all threads) of a process, from /proc (clock ticks of 10 ms). */
function processCpuMs(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, 'latin1');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(fields[11]) + Number(fields[12])) * 10;
}

/** Runs a worker; the broker's CPU time is read at its FIRST line and at its RESULT line. */
function runChild(cmd: string, args: string[], brokerPid: number, pin: boolean): Promise<Result> {
  return new Promise((resolve, reject) => {
    const child = pin
      ? spawn('taskset', ['-c', CLIENT_CPUS, cmd, ...args], { stdio: ['ignore', 'pipe', 'pipe'] })
      : spawn(cmd, args, { stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    let brokerAtFirst: number | null = null;
    let brokerAtResult: number | null = null;
    child.stdout.on('data', (d: Buffer) => {
      out += d.toString();
      if (brokerAtFirst === null && out.includes('FIRST\n')) brokerAtFirst = processCpuMs(brokerPid);
      if (brokerAtResult === null && /^RESULT .*\n/m.test(out)) brokerAtResult = processCpuMs(brokerPid);
    });
    child.stderr.on('data', (d: Buffer) => (err += d.toString()));
    child.on('close', (code) => {
      const line = out.split('\n').find((l) => l.startsWith('RESULT '));
      if (code !== 0 || line === undefined) {
        reject(new Error(`${args.join(' ')} failed (${code}): ${err.slice(-2000)}`));
        return;
      }
      const r = JSON.parse(line.slice(7)) as Result;
      if (brokerAtFirst !== null && brokerAtResult !== null) r.brokerCpuMs = brokerAtResult - brokerAtFirst;
      resolve(r);
    });
  });
}

// `--pin`: the broker's threads on the last CPU, each client on the others — "a core each",
// measured instead of computed from CPU times (the client's V8 helper threads share its core).
const LAST_CPU = availableParallelism() - 1;
const CLIENT_CPUS = LAST_CPU === 1 ? '0' : `0-${LAST_CPU - 1}`;

function pinBroker(pid: number, cpus: string): void {
  const r = spawnSync('taskset', ['-a', '-cp', cpus, String(pid)]);
  if (r.status !== 0) throw new Error(`taskset failed: ${r.stderr}`);
}

const brokerCpuPerRecord = (r: Result): string =>
  r.brokerCpuMs === undefined ? '-' : ((r.brokerCpuMs * 1000) / r.records).toFixed(2);

function startBrokerProcess(dataDir: string): Promise<{ child: ChildProcess; bootstrap: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(
      process.execPath,
      ['dist/src/cli/main.js', 'start', '--port', '0', '--data-dir', dataDir, '--log-level', 'warn'],
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

/** Fills a fresh single-partition topic with n records of `size` bytes using our producer. */
async function fill(bootstrap: string, n: number, size: number): Promise<string> {
  const { Admin, Producer } = await import('../src/client/index.js');
  const topic = `bench-consume-${size}-${Date.now()}`;
  const admin = new Admin({ bootstrapServers: bootstrap });
  await admin.createTopics([{ name: topic, numPartitions: 1, replicationFactor: 1 }]);
  await admin.close();
  const producer = new Producer({ bootstrapServers: bootstrap, acks: 1, lingerMs: 5, batchSize: 65536 });
  const payload = Buffer.alloc(size, 65);
  for (let i = 0; i < n; i++) {
    if (!producer.send({ topic, value: payload }, () => {})) await producer.bufferAvailable();
    else if ((i & 1023) === 1023) await new Promise((r) => setImmediate(r));
  }
  await producer.flush();
  await producer.close();
  return topic;
}

async function orchestrate(): Promise<void> {
  const { values } = parseArgs({
    options: {
      small: { type: 'string', default: '1000000' },
      large: { type: 'string', default: '1000000' },
      clients: { type: 'string', default: CLIENTS.join(',') },
      rounds: { type: 'string', default: '2' },
      base: { type: 'string' },
      pin: { type: 'boolean', default: false },
    },
  });
  const pin = values.pin!;
  const rounds = Number(values.rounds);
  const clients = values.clients!.split(',') as ClientName[];
  if (values.base !== undefined) {
    // Each before-build right after its after-build (checkCrcs on, and off when that runs).
    for (const [after, before] of [
      ['samsa', 'samsa-base'],
      ['samsa-nocrc', 'samsa-base-nocrc'],
    ] as const) {
      const at = clients.indexOf(after);
      if (at >= 0) clients.splice(at + 1, 0, before);
    }
  }
  const workloads = [
    { n: Number(values.small), size: 100 },
    { n: Number(values.large), size: 1024 },
  ].filter((w) => w.n > 0);
  const dataDir = mkdtempSync(join(tmpdir(), 'samsa-bench-'));
  const { child, bootstrap } = await startBrokerProcess(dataDir);
  const results: Result[] = [];
  try {
    for (const w of workloads) {
      if (pin) pinBroker(child.pid!, `0-${LAST_CPU}`); // the fill has every core
      const topic = await fill(bootstrap, w.n, w.size);
      await new Promise((r) => setTimeout(r, 2000)); // let the broker settle after the fill
      if (pin) pinBroker(child.pid!, String(LAST_CPU));
      for (let round = 0; round < rounds; round++) {
        // Each round starts with the next client: the first one after a fill (or after the
        // previous round's last client) meets a broker still busy with it, and a fixed order
        // charged that to the same client every round.
        const shift = round % clients.length;
        for (const c of [...clients.slice(shift), ...clients.slice(0, shift)]) {
          const args = [String(w.n), String(w.size)];
          const r =
            c === 'librdkafka'
              ? await runChild(
                  '/usr/bin/python3',
                  ['-c', PYTHON_WORKER, bootstrap, topic, ...args],
                  child.pid!,
                  pin,
                )
              : await runChild(
                  process.execPath,
                  [
                    'dist/bench/client-consumer.js',
                    '--worker',
                    c,
                    bootstrap,
                    topic,
                    ...args,
                    ...(c.startsWith('samsa-base') ? [values.base!] : []),
                  ],
                  child.pid!,
                  pin,
                );
          process.stdout.write(
            `round ${round + 1} ${c.padEnd(16)} ${String(w.n).padStart(8)} × ${String(w.size).padStart(4)} B: ${Math.round(r.recordsPerSec).toLocaleString('en-US').padStart(9)} records/s, startup ${r.startupSeconds.toFixed(2)} s, peak RSS ${r.maxRssMB.toFixed(0)} MB, CPU ${cpuPerRecord(r)} µs/record, broker ${brokerCpuPerRecord(r)} µs/record${phases(r)}\n`,
          );
          const prev = results.findIndex((x) => x.client === c && x.size === w.size);
          if (prev < 0) results.push(r);
          else if (r.recordsPerSec > results[prev]!.recordsPerSec)
            results[prev] = { ...r, maxRssMB: Math.max(r.maxRssMB, results[prev]!.maxRssMB) };
          else results[prev]!.maxRssMB = Math.max(r.maxRssMB, results[prev]!.maxRssMB);
        }
      }
    }
  } finally {
    child.kill('SIGTERM');
    await new Promise((r) => child.once('exit', r));
    rmSync(dataDir, { recursive: true, force: true });
  }
  for (const r of results) {
    process.stdout.write(
      `best ${r.client.padEnd(16)} ${String(r.records).padStart(8)} × ${String(r.size).padStart(4)} B: ${Math.round(r.recordsPerSec).toLocaleString('en-US').padStart(9)} records/s, peak RSS ${r.maxRssMB.toFixed(0)} MB, CPU ${cpuPerRecord(r)} µs/record, broker ${brokerCpuPerRecord(r)} µs/record\n`,
    );
  }
  for (const w of workloads) {
    const ofSize = results.filter((x) => x.size === w.size);
    for (const mine of ofSize.filter((x) => x.client.startsWith('samsa'))) {
      // Each build against the other clients; an after-build also against its before-build
      // (samsa / samsa-base, samsa-nocrc / samsa-base-nocrc).
      const baseOfMine = mine.client.replace(/^samsa/, 'samsa-base');
      const others = ofSize.filter((x) => !x.client.startsWith('samsa') || x.client === baseOfMine);
      for (const r of others) {
        // CPU per record: theirs / ours (how many times less CPU we spend), where both are known.
        const cpu =
          mine.cpuMs === undefined || r.cpuMs === undefined
            ? ''
            : `, ${(r.cpuMs / r.records / (mine.cpuMs / mine.records)).toFixed(2)}× less CPU per record`;
        process.stdout.write(
          `ratio ${w.size} B: ${mine.client} / ${r.client} = ${(mine.recordsPerSec / r.recordsPerSec).toFixed(2)}× records/s${cpu}, ${(mine.maxRssMB / r.maxRssMB).toFixed(2)}× peak RSS\n`,
        );
      }
      const kafkajs = ofSize.find((x) => x.client === 'kafkajs');
      if (kafkajs !== undefined) process.stdout.write(ceiling(w.size, mine, kafkajs));
    }
  }
}

/**
 * The records/s ratio over kafkajs that the CPU times allow, from the best rounds' figures per
 * record: ours (c), kafkajs's (k), and the broker's while serving each (b, bk). Two limits of a
 * 2-core machine: each process on a core of its own, where a client reads at most as fast as the
 * busier of itself and the broker (1 / max(c, b)); and both on one shared core, a saturated
 * machine (1 / (c + b)). "Ours free": the same limits if our consumer cost nothing.
 */
function ceiling(size: number, mine: Result, kafkajs: Result): string {
  const per = (ms: number | undefined, r: Result) =>
    ms === undefined ? Number.NaN : (ms * 1000) / r.records;
  const c = per(mine.cpuMs, mine);
  const b = per(mine.brokerCpuMs, mine);
  const k = per(kafkajs.cpuMs, kafkajs);
  const bk = per(kafkajs.brokerCpuMs, kafkajs);
  if ([c, b, k, bk].some(Number.isNaN)) return '';
  const own = Math.max(k, bk);
  const shared = k + bk;
  return `ceiling ${size} B: ${mine.client} (${c.toFixed(2)} µs, broker ${b.toFixed(2)}) vs kafkajs (${k.toFixed(2)} µs, broker ${bk.toFixed(2)}): a core each ${(own / Math.max(c, b)).toFixed(2)}× (ours free ${(own / b).toFixed(2)}×), one shared core ${(shared / (c + b)).toFixed(2)}× (ours free ${(shared / b).toFixed(2)}×)\n`;
}

const workerIdx = process.argv.indexOf('--worker');
if (workerIdx >= 0) {
  const [name, bootstrap, topic, n, size, baseDir] = process.argv.slice(workerIdx + 1);
  const fn = {
    samsa: samsaWorker,
    'samsa-nocrc': (b: string, t: string, n: number, sz: number) =>
      samsaWorker(b, t, n, sz, undefined, false),
    'samsa-base': samsaWorker,
    'samsa-base-nocrc': (b: string, t: string, n: number, sz: number, base?: string) =>
      samsaWorker(b, t, n, sz, base, false),
    kafkajs: kafkajsWorker,
    platformatic: platformaticWorker,
  }[name as 'samsa'];
  if (fn === undefined) throw new Error(`unknown worker ${name}`);
  await fn(bootstrap!, topic!, Number(n), Number(size), baseDir);
  process.exit(0);
} else {
  await orchestrate();
}
