// Transactions benchmark, against one samsa broker in its own process, with our producer in
// this process (and librdkafka through confluent-kafka-python for the transactional part):
//
//  1. Transactional throughput: back-to-back transactions of 1, 100 and 1,000 records of
//     100 B (begin, send, commit; each commit waits for its markers) → transactions/s and
//     records/s; baseline = the same records sent idempotently without transactions (part 2).
//  2. Cost of idempotence: N records of 100 B with acks=all, idempotent vs not, alternated
//     (A B, B A, ...) in the same run; overhead = 1 - median idempotent / median plain
//     (goal < 5%). On a shared machine wall-clock rates swing with the neighbours' load, so the
//     CPU time spent per record (this process + the broker process, from /proc) is reported
//     too: it counts only our own work.
//
//   npx tsx bench/transactions.ts [--seconds 5] [--records 300000] [--rounds 7] [--no-librdkafka]
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { Admin, Producer } from '../src/client/index.js';

const { values } = parseArgs({
  options: {
    seconds: { type: 'string', default: '5' },
    records: { type: 'string', default: '300000' },
    rounds: { type: 'string', default: '7' },
    'no-librdkafka': { type: 'boolean', default: false },
  },
});
const SECONDS = Number(values.seconds);
const RECORDS = Number(values.records);
const ROUNDS = Number(values.rounds);
const PAYLOAD = Buffer.alloc(100, 65);

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

const fmt = (n: number): string => Math.round(n).toLocaleString('en-US');

/** CPU ms used so far by a process (utime + stime from /proc/<pid>/stat, 100 Hz ticks). */
function procCpuMs(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(fields[11]) + Number(fields[12])) * 10;
}

function selfCpuMs(): number {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1000;
}

interface Measured {
  rate: number;
  /** Client + broker CPU µs per record. */
  cpuUsPerRecord: number;
}

/** Sends `n` records and waits for all acknowledgements; returns records/s. */
async function sendAll(producer: Producer, topic: string, n: number): Promise<number> {
  let failed: Error | null = null;
  const onDelivery = (err: Error | null): void => {
    if (err !== null) failed ??= err;
  };
  const start = performance.now();
  for (let i = 0; i < n; i++) {
    if (!producer.send({ topic, value: PAYLOAD }, onDelivery)) await producer.bufferAvailable();
    else if ((i & 1023) === 1023) await new Promise((r) => setImmediate(r));
  }
  await producer.flush();
  if (failed !== null) throw failed;
  return n / ((performance.now() - start) / 1000);
}

async function transactional(
  bootstrap: string,
  topic: string,
  size: number,
): Promise<{ txnPerSec: number; recordsPerSec: number }> {
  const producer = new Producer({
    bootstrapServers: bootstrap,
    transactionalId: `bench-tx-${size}-${Date.now()}`,
    lingerMs: 5,
    clientId: 'bench-txn',
  });
  try {
    await producer.initTransactions();
    producer.beginTransaction();
    await producer.send({ topic, value: PAYLOAD });
    await producer.commitTransaction(); // warm-up: coordinator, AddPartitions, markers
    let txns = 0;
    const start = performance.now();
    const end = start + SECONDS * 1000;
    while (performance.now() < end) {
      producer.beginTransaction();
      const acks: Promise<unknown>[] = [];
      for (let i = 0; i < size; i++) acks.push(producer.send({ topic, value: PAYLOAD }));
      await producer.commitTransaction();
      await Promise.all(acks);
      txns++;
    }
    const seconds = (performance.now() - start) / 1000;
    return { txnPerSec: txns / seconds, recordsPerSec: (txns * size) / seconds };
  } finally {
    await producer.close();
  }
}

const PY_TXN = `
import sys, time
from confluent_kafka import Producer
bootstrap, topic, size, seconds = sys.argv[1], sys.argv[2], int(sys.argv[3]), float(sys.argv[4])
p = Producer({'bootstrap.servers': bootstrap, 'transactional.id': f'bench-rd-{size}-{time.time()}', 'linger.ms': 5})
p.init_transactions(30)
payload = b'A' * 100
p.begin_transaction(); p.produce(topic, payload); p.commit_transaction(30)
n = 0; start = time.time()
while time.time() - start < seconds:
    p.begin_transaction()
    for i in range(size):
        while True:
            try:
                p.produce(topic, payload); break
            except BufferError:
                p.poll(0.01)
    p.commit_transaction(30)
    n += 1
el = time.time() - start
print(n / el, n * size / el)
`;

function librdkafkaTxn(
  bootstrap: string,
  topic: string,
  size: number,
): Promise<{ txnPerSec: number; recordsPerSec: number }> {
  return new Promise((resolve, reject) => {
    const child = spawn('/usr/bin/python3', ['-c', PY_TXN, bootstrap, topic, String(size), String(SECONDS)], {
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    let out = '';
    child.stdout.on('data', (d: Buffer) => (out += d.toString()));
    child.on('exit', (code) => {
      const [t, r] = out.trim().split(' ').map(Number);
      if (code !== 0 || t === undefined || r === undefined)
        reject(new Error(`librdkafka worker failed (${code}): ${out}`));
      else resolve({ txnPerSec: t, recordsPerSec: r });
    });
  });
}

async function main(): Promise<void> {
  const dataDir = mkdtempSync(join(tmpdir(), 'samsa-bench-txn-'));
  const { child, bootstrap } = await startBrokerProcess(dataDir);
  const admin = new Admin({ bootstrapServers: bootstrap });
  let seq = 0;
  const topic = async (): Promise<string> => {
    const name = `bench-txn-${seq++}`;
    await admin.createTopics([{ name, numPartitions: 1, replicationFactor: 1 }]);
    return name;
  };
  let ours1000: number | null = null;
  try {
    process.stdout.write(`# transactional throughput (${SECONDS} s per row, 100 B records, 1 partition)\n`);
    for (const size of [1, 100, 1000]) {
      const ours = await transactional(bootstrap, await topic(), size);
      if (size === 1000) ours1000 = ours.recordsPerSec;
      process.stdout.write(
        `samsa client  txn of ${String(size).padStart(4)}: ${fmt(ours.txnPerSec).padStart(6)} txn/s, ${fmt(ours.recordsPerSec).padStart(9)} records/s\n`,
      );
      if (!values['no-librdkafka']) {
        const rd = await librdkafkaTxn(bootstrap, await topic(), size);
        process.stdout.write(
          `librdkafka    txn of ${String(size).padStart(4)}: ${fmt(rd.txnPerSec).padStart(6)} txn/s, ${fmt(rd.recordsPerSec).padStart(9)} records/s\n`,
        );
      }
    }
    const idem = new Producer({
      bootstrapServers: bootstrap,
      acks: 'all',
      enableIdempotence: true,
      lingerMs: 5,
      clientId: 'bench-idem',
    });
    const plain = new Producer({
      bootstrapServers: bootstrap,
      acks: 'all',
      enableIdempotence: false,
      lingerMs: 5,
      clientId: 'bench-plain',
    });
    try {
      process.stdout.write(
        `\n# idempotence overhead (${fmt(RECORDS)} records of 100 B, acks=all, ${ROUNDS} alternated rounds)\n`,
      );
      const t = await topic();
      await sendAll(plain, t, 100_000); // warm-up both (JIT, connections, batch buffers)
      await sendAll(idem, t, 100_000);
      const brokerPid = child.pid!;
      const measure = async (producer: Producer): Promise<Measured> => {
        const c0 = selfCpuMs() + procCpuMs(brokerPid);
        const rate = await sendAll(producer, t, RECORDS);
        const c1 = selfCpuMs() + procCpuMs(brokerPid);
        return { rate, cpuUsPerRecord: ((c1 - c0) * 1000) / RECORDS };
      };
      const plainRuns: Measured[] = [];
      const idemRuns: Measured[] = [];
      for (let r = 0; r < ROUNDS; r++) {
        // Swap the order every round so that neither side always runs on a warmer broker.
        if (r % 2 === 0) {
          plainRuns.push(await measure(plain));
          idemRuns.push(await measure(idem));
        } else {
          idemRuns.push(await measure(idem));
          plainRuns.push(await measure(plain));
        }
        const [a, b] = [plainRuns[r]!, idemRuns[r]!];
        process.stdout.write(
          `round ${r + 1}: plain ${fmt(a.rate)} records/s (${a.cpuUsPerRecord.toFixed(2)} µs CPU/record), idempotent ${fmt(b.rate)} records/s (${b.cpuUsPerRecord.toFixed(2)} µs CPU/record)\n`,
        );
      }
      const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
      const p = median(plainRuns.map((m) => m.rate));
      const i = median(idemRuns.map((m) => m.rate));
      const pc = median(plainRuns.map((m) => m.cpuUsPerRecord));
      const ic = median(idemRuns.map((m) => m.cpuUsPerRecord));
      process.stdout.write(
        `median: plain ${fmt(p)}, idempotent ${fmt(i)} records/s → ratio ${(i / p).toFixed(3)}, overhead ${((1 - i / p) * 100).toFixed(1)}%\n`,
      );
      process.stdout.write(
        `median CPU per record: plain ${pc.toFixed(2)} µs, idempotent ${ic.toFixed(2)} µs → overhead ${((ic / pc - 1) * 100).toFixed(1)}%\n`,
      );
      // Least-disturbed round of each: on a shared machine the neighbours only ever add time.
      const bestRate = (xs: Measured[]): number => Math.max(...xs.map((m) => m.rate));
      const bestCpu = (xs: Measured[]): number => Math.min(...xs.map((m) => m.cpuUsPerRecord));
      process.stdout.write(
        `best round: plain ${fmt(bestRate(plainRuns))}, idempotent ${fmt(bestRate(idemRuns))} records/s (ratio ${(bestRate(idemRuns) / bestRate(plainRuns)).toFixed(3)}); CPU ${bestCpu(plainRuns).toFixed(2)} vs ${bestCpu(idemRuns).toFixed(2)} µs/record (overhead ${((bestCpu(idemRuns) / bestCpu(plainRuns) - 1) * 100).toFixed(1)}%)\n`,
      );
      const t1000 = ours1000 ?? 0;
      process.stdout.write(
        `transactions of 1,000 vs idempotent without transactions (baseline): ${(t1000 / i).toFixed(2)}× records/s\n`,
      );
    } finally {
      await idem.close();
      await plain.close();
    }
  } finally {
    await admin.close();
    child.kill('SIGTERM');
    await new Promise((r) => child.once('exit', r));
    rmSync(dataDir, { recursive: true, force: true });
  }
}

await main();
