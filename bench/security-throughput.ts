// Produce and consume throughput over TLS and SASL_SSL against plaintext, on one broker, in the
// same run: one samsa broker (its own process) with four ways in — PLAINTEXT, SSL, and a SASL_SSL
// listener used with SCRAM-SHA-256 and with PLAIN — and two clients, our Producer/Consumer and
// librdkafka (kcat 1.7.1 on librdkafka 2.0.2).
//
//   npx tsx bench/security-throughput.ts [--quick] [--records N] [--rounds R] [--clients samsa,kcat]
//
// Workload: N records of 1 KiB (value only, default 100,000 ≈ 100 MiB; --quick 20,000 and 2
// rounds), acks=1, every client's default batching (ours: batch.size 16 KiB, linger.ms 5;
// librdkafka: its defaults). One run = a fresh single-partition topic, produced into by the client
// and then read back from the earliest offset by the same client over the same protocol, then
// deleted. Rounds interleave the protocols (P, S, SS-SCRAM, SS-PLAIN, P, S, …) and the clients,
// so a change of machine load hits all of them alike; each figure is the median over rounds and
// each ratio is computed within a round (then the median), because the machine is shared.
//
// Timing. Ours: each run is a fresh child process; it connects (TLS handshake, SASL exchange,
// metadata) and, for produce, sends one warm-up record and waits for it, before the timed part
// starts on the orchestrator's "go"; produce = first send to flush() resolved, consume = first
// record to the N-th (poll loop; startup reported apart). Client CPU = process.cpuUsage over the
// timed part; broker CPU = utime+stime of the broker process (/proc, 10 ms ticks) between "go"
// and the result. kcat: wall time of the whole process (its connect and handshake included,
// a few ms against seconds), client CPU = its rusage (read through the wrapping shell's cutime),
// broker CPU over the whole process.
//
// Certificates: a throw-away CA and broker certificate made with openssl (test/support/tls-certs.ts)
// in a temp dir removed at the end, as is the broker's data dir.

import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { parseArgs } from 'node:util';

const SIZE = 1024;
const MODES = ['PLAINTEXT', 'SSL', 'SASL_SSL/SCRAM-SHA-256', 'SASL_SSL/PLAIN'] as const;
type Mode = (typeof MODES)[number];
const SHORT: Record<Mode, string> = {
  PLAINTEXT: 'plaintext',
  SSL: 'SSL',
  'SASL_SSL/SCRAM-SHA-256': 'SASL_SSL SCRAM-256',
  'SASL_SSL/PLAIN': 'SASL_SSL PLAIN',
};
const CLIENTS = ['samsa', 'kcat'] as const;
type Client = (typeof CLIENTS)[number];
const USER = 'bench';
const PASSWORD = 'bench-Secret-3d9e';

interface Timed {
  seconds: number;
  clientCpuMs: number;
  /** Only ours: time from process start-up work to the first consumed record. */
  startupSeconds?: number;
}

interface Sample {
  round: number;
  client: Client;
  mode: Mode;
  op: 'produce' | 'consume';
  mbPerSec: number;
  /** CPU ms per MiB. */
  clientCpu: number;
  brokerCpu: number;
}

interface BrokerInfo {
  bootstrap: Record<string, string>;
}

// ---- helpers -------------------------------------------------------------------------------

/** utime + stime of a process in ms (Linux /proc; USER_HZ 100). */
function processCpuMs(pid: number): number {
  const f = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
  return (Number(f[11]) + Number(f[12])) * 10;
}

const loadavg = () => readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ');
const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m]! : (s[m - 1]! + s[m]!) / 2;
};
const MIB = 1024 * 1024;

function clientSecurity(mode: Mode, caFile: string) {
  if (mode === 'PLAINTEXT') return {};
  const ssl = { ca: readFileSync(caFile, 'utf8') };
  if (mode === 'SSL') return { ssl };
  const mechanism = mode === 'SASL_SSL/PLAIN' ? 'PLAIN' : 'SCRAM-SHA-256';
  return { ssl, sasl: { mechanism, username: USER, password: PASSWORD } as const };
}

function listenerOf(mode: Mode): string {
  return mode.startsWith('SASL_SSL') ? 'SASL_SSL' : mode;
}

// ---- broker process ------------------------------------------------------------------------

async function brokerMain(brokerPem: string): Promise<void> {
  const { startTestBroker } = await import('../src/testkit/index.js');
  const broker = await startTestBroker({
    overrides: {
      listeners: 'PLAINTEXT://127.0.0.1:0,SSL://127.0.0.1:0,SASL_SSL://127.0.0.1:0',
      'ssl.keystore.type': 'PEM',
      'ssl.keystore.location': brokerPem,
      'sasl.enabled.mechanisms': 'SCRAM-SHA-256,PLAIN',
      'listener.name.sasl_ssl.plain.sasl.jaas.config':
        'org.apache.kafka.common.security.plain.PlainLoginModule required ' +
        `username="${USER}" password="${PASSWORD}" user_${USER}="${PASSWORD}";`,
      'num.partitions': 1,
    },
  });
  const info: BrokerInfo = {
    bootstrap: Object.fromEntries(
      ['PLAINTEXT', 'SSL', 'SASL_SSL'].map((l) => [l, broker.bootstrapFor(l)] as const),
    ),
  };
  process.stdout.write(`READY ${JSON.stringify(info)}\n`);
  // Runs until the orchestrator closes stdin.
  await new Promise<void>((resolve) => {
    process.stdin.on('end', resolve);
    process.stdin.resume();
  });
  await broker.close();
  process.exit(0);
}

// ---- our client, one run per process ---------------------------------------------------------

function waitForGo(): Promise<void> {
  return new Promise((resolve) => {
    const rl = createInterface({ input: process.stdin });
    rl.once('line', () => {
      rl.close();
      resolve();
    });
  });
}

async function samsaWorker(
  op: string,
  mode: Mode,
  bootstrap: string,
  caFile: string,
  topic: string,
  n: number,
) {
  const { Consumer, Producer } = await import('../src/client/index.js');
  const security = clientSecurity(mode, caFile);
  const payload = Buffer.alloc(SIZE, 65);
  let r: Timed;
  if (op === 'produce') {
    const producer = new Producer({ bootstrapServers: bootstrap, clientId: 'bench', acks: 1, ...security });
    // Warm-up: connection, handshake, authentication and metadata before the timed part.
    await new Promise<void>((resolve, reject) =>
      producer.send({ topic, value: payload }, (e) => (e ? reject(e) : resolve())),
    );
    process.stdout.write('READY\n');
    await waitForGo();
    const cpu0 = process.cpuUsage();
    const t0 = performance.now();
    let failed: Error | null = null;
    const done = (e: Error | null) => {
      if (e && failed === null) failed = e;
    };
    for (let i = 0; i < n; i++) {
      if (!producer.send({ topic, value: payload }, done)) await producer.bufferAvailable();
      else if ((i & 1023) === 1023) await new Promise((res) => setImmediate(res));
    }
    await producer.flush();
    const seconds = (performance.now() - t0) / 1000;
    const cpu = process.cpuUsage(cpu0);
    if (failed) throw failed;
    r = { seconds, clientCpuMs: (cpu.user + cpu.system) / 1000 };
    process.stdout.write(`RESULT ${JSON.stringify(r)}\n`);
    await producer.close();
  } else {
    // n + 1 records: the producer's warm-up record is in the topic too.
    const consumer = new Consumer({
      bootstrapServers: bootstrap,
      clientId: 'bench',
      autoOffsetReset: 'earliest',
      ...security,
    });
    process.stdout.write('READY\n');
    await waitForGo();
    const cpu0 = process.cpuUsage();
    const t0 = performance.now();
    consumer.assign([{ topic, partition: 0 }]);
    let count = 0;
    let bytes = 0;
    let first = 0;
    while (count < n + 1) {
      const records = await consumer.poll(1000);
      if (records.length > 0 && first === 0) first = performance.now();
      count += records.length;
      for (const rec of records) bytes += rec.value === null ? 0 : rec.value.length;
    }
    const end = performance.now();
    const cpu = process.cpuUsage(cpu0);
    if (bytes !== (n + 1) * SIZE) throw new Error(`read ${bytes} bytes, expected ${(n + 1) * SIZE}`);
    r = {
      seconds: (end - first) / 1000,
      startupSeconds: (first - t0) / 1000,
      clientCpuMs: (cpu.user + cpu.system) / 1000,
    };
    process.stdout.write(`RESULT ${JSON.stringify(r)}\n`);
    await consumer.close();
  }
  process.exit(0);
}

/** A worker child: waits for READY, samples broker CPU, says go, samples again at RESULT. */
function runSamsa(brokerPid: number, args: string[]): Promise<{ timed: Timed; brokerCpuMs: number }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [...process.execArgv, 'bench/security-throughput.ts', ...args], {
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    let err = '';
    let b0 = 0;
    let result: { timed: Timed; brokerCpuMs: number } | null = null;
    child.stderr!.on('data', (d: Buffer) => (err += d.toString()));
    const rl = createInterface({ input: child.stdout! });
    rl.on('line', (line) => {
      if (line === 'READY') {
        b0 = processCpuMs(brokerPid);
        child.stdin!.write('go\n');
      } else if (line.startsWith('RESULT ')) {
        result = { timed: JSON.parse(line.slice(7)) as Timed, brokerCpuMs: processCpuMs(brokerPid) - b0 };
      }
    });
    child.on('close', (code) => {
      if (code !== 0 || result === null)
        reject(new Error(`${args.join(' ')} failed (${code}): ${err.slice(-2000)}`));
      else resolve(result);
    });
  });
}

// ---- kcat ------------------------------------------------------------------------------------

function kcatSecurity(mode: Mode, caFile: string): string[] {
  if (mode === 'PLAINTEXT') return [];
  const x = ['-X', `security.protocol=${listenerOf(mode)}`, '-X', `ssl.ca.location=${caFile}`];
  if (mode === 'SSL') return x;
  const mechanism = mode === 'SASL_SSL/PLAIN' ? 'PLAIN' : 'SCRAM-SHA-256';
  return [
    ...x,
    '-X',
    `sasl.mechanisms=${mechanism}`,
    '-X',
    `sasl.username=${USER}`,
    '-X',
    `sasl.password=${PASSWORD}`,
  ];
}

const sq = (s: string) => `'${s.replace(/'/g, `'\\''`)}'`;

/**
 * Runs kcat under `sh`, which prints its own /proc stat after kcat exits: cutime + cstime there are
 * kcat's CPU time.
 */
function runKcat(brokerPid: number, kcatArgs: string[]): Promise<{ timed: Timed; brokerCpuMs: number }> {
  return new Promise((resolve, reject) => {
    const script = `kcat ${kcatArgs.map(sq).join(' ')} >/dev/null && cat /proc/$$/stat`;
    const b0 = processCpuMs(brokerPid);
    const t0 = performance.now();
    const child = spawn('sh', ['-c', script], { stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    child.stdout.on('data', (d: Buffer) => (out += d.toString()));
    child.stderr.on('data', (d: Buffer) => (err += d.toString()));
    child.on('close', (code) => {
      const seconds = (performance.now() - t0) / 1000;
      const brokerCpuMs = processCpuMs(brokerPid) - b0;
      if (code !== 0)
        return reject(new Error(`kcat ${kcatArgs.join(' ')} failed (${code}): ${err.slice(-2000)}`));
      const f = out.trim().split(') ')[1]!.split(' ');
      const clientCpuMs = (Number(f[13]) + Number(f[14])) * 10; // cutime, cstime
      resolve({ timed: { seconds, clientCpuMs }, brokerCpuMs });
    });
  });
}

// ---- orchestration -------------------------------------------------------------------------

function startBroker(brokerPem: string): Promise<{ child: ChildProcess; info: BrokerInfo }> {
  return new Promise((resolve, reject) => {
    const child = spawn(
      process.execPath,
      [...process.execArgv, 'bench/security-throughput.ts', '--broker', brokerPem],
      { stdio: ['pipe', 'pipe', 'inherit'] },
    );
    const rl = createInterface({ input: child.stdout! });
    rl.on('line', (line) => {
      if (line.startsWith('READY ')) resolve({ child, info: JSON.parse(line.slice(6)) as BrokerInfo });
    });
    child.on('exit', (code) => reject(new Error(`broker exited with ${code}`)));
  });
}

async function orchestrate(): Promise<void> {
  const { values } = parseArgs({
    options: {
      quick: { type: 'boolean', default: false },
      records: { type: 'string' },
      rounds: { type: 'string' },
      clients: { type: 'string', default: CLIENTS.join(',') },
    },
  });
  const n = Number(values.records ?? (values.quick ? 20_000 : 100_000));
  const rounds = Number(values.rounds ?? (values.quick ? 2 : 5));
  const clients = values.clients!.split(',') as Client[];
  const mib = (n * SIZE) / MIB;

  const { makeTestCerts } = await import('../test/support/tls-certs.js');
  const certs = makeTestCerts();
  const tmp = mkdtempSync(join(tmpdir(), 'samsa-bench-sec-'));
  let broker: ChildProcess | undefined;
  const samples: Sample[] = [];
  const loads: string[] = [loadavg()];
  try {
    const started = await startBroker(certs.brokerPem);
    broker = started.child;
    const brokerPid = broker.pid!;
    const bootstrap = started.info.bootstrap;
    const { Admin } = await import('../src/client/index.js');
    const admin = new Admin({ bootstrapServers: bootstrap.PLAINTEXT! });
    await admin.alterUserScramCredentials([
      { type: 'upsert', user: USER, mechanism: 'SCRAM-SHA-256', password: PASSWORD },
    ]);
    // kcat's input: n lines of 1 KiB (the newline is the delimiter, not part of the value).
    const kcatInput = join(tmp, 'records.txt');
    if (clients.includes('kcat')) writeFileSync(kcatInput, `${'A'.repeat(SIZE)}\n`.repeat(n));

    process.stdout.write(
      `${n.toLocaleString('en-US')} records × ${SIZE} B (${mib.toFixed(0)} MiB) per run, ${rounds} rounds, ` +
        `clients ${clients.join(', ')}; load average ${loads[0]}\n`,
    );
    // Untimed warm-up: one small run per client and mode, so the broker's JIT, TLS session
    // machinery and SCRAM credentials cache (if any) are not paid by the first measured round.
    const warmN = Math.min(2000, n);
    let seq = 0;
    const oneRun = async (round: number, client: Client, mode: Mode, records: number, record: boolean) => {
      const topic = `bench-sec-${++seq}`;
      await admin.createTopics([{ name: topic, numPartitions: 1, replicationFactor: 1 }]);
      const bs = bootstrap[listenerOf(mode)]!;
      for (const op of ['produce', 'consume'] as const) {
        let res: { timed: Timed; brokerCpuMs: number };
        if (client === 'samsa') {
          res = await runSamsa(brokerPid, ['--worker', op, mode, bs, certs.caCert, topic, String(records)]);
        } else {
          const common = ['-b', bs, '-t', topic, '-q', ...kcatSecurity(mode, certs.caCert)];
          const input = records === n ? kcatInput : join(tmp, 'warm.txt');
          if (records !== n) writeFileSync(input, `${'A'.repeat(SIZE)}\n`.repeat(records));
          res =
            op === 'produce'
              ? await runKcat(brokerPid, ['-P', ...common, '-X', 'acks=1', '-p', '0', '-l', input])
              : await runKcat(brokerPid, [
                  '-C',
                  ...common,
                  '-p',
                  '0',
                  '-o',
                  'beginning',
                  '-c',
                  String(records),
                  '-e',
                ]);
        }
        if (!record) continue;
        const m = (records * SIZE) / MIB;
        const s: Sample = {
          round,
          client,
          mode,
          op,
          mbPerSec: m / res.timed.seconds,
          clientCpu: res.timed.clientCpuMs / m,
          brokerCpu: res.brokerCpuMs / m,
        };
        samples.push(s);
        process.stdout.write(
          `round ${round + 1} ${client.padEnd(5)} ${SHORT[mode].padEnd(18)} ${op.padEnd(7)} ` +
            `${s.mbPerSec.toFixed(1).padStart(6)} MiB/s, CPU ms/MiB client ${s.clientCpu.toFixed(1).padStart(5)} ` +
            `broker ${s.brokerCpu.toFixed(1).padStart(5)}` +
            (res.timed.startupSeconds !== undefined
              ? `, startup ${res.timed.startupSeconds.toFixed(2)} s`
              : '') +
            '\n',
        );
      }
      await admin.deleteTopics([topic]);
    };
    for (const client of clients) for (const mode of MODES) await oneRun(-1, client, mode, warmN, false);
    for (let round = 0; round < rounds; round++) {
      // Rotate the client order every round; the protocols always interleave within a client.
      const order = round % 2 === 0 ? clients : [...clients].reverse();
      for (const client of order) for (const mode of MODES) await oneRun(round, client, mode, n, true);
      loads.push(loadavg());
    }
    await admin.close();
  } finally {
    if (broker) {
      broker.stdin!.end();
      await new Promise((r) => broker!.once('exit', r));
    }
    certs.remove();
    rmSync(tmp, { recursive: true, force: true });
  }

  // Summary: medians over rounds, and per-round ratios to plaintext (then their median).
  process.stdout.write(`\nload average during the run: ${loads.join(' → ')}\n`);
  process.stdout.write(
    '\n| client | protocol | produce MiB/s | × plaintext | consume MiB/s | × plaintext | CPU ms/MiB produce (client + broker) | × plaintext | CPU ms/MiB consume (client + broker) | × plaintext |\n' +
      '|---|---|---:|---:|---:|---:|---:|---:|---:|---:|\n',
  );
  for (const client of clients) {
    for (const mode of MODES) {
      const cells: string[] = [];
      const cpuCells: string[] = [];
      for (const op of ['produce', 'consume'] as const) {
        const mine = samples.filter((s) => s.client === client && s.mode === mode && s.op === op);
        const base = samples.filter((s) => s.client === client && s.mode === 'PLAINTEXT' && s.op === op);
        const ratio = (f: (s: Sample) => number) =>
          median(
            mine.map((s) => {
              const b = base.find((x) => x.round === s.round)!;
              return f(s) / f(b);
            }),
          );
        const tot = (s: Sample) => s.clientCpu + s.brokerCpu;
        cells.push(
          median(mine.map((s) => s.mbPerSec)).toFixed(1),
          mode === 'PLAINTEXT' ? '1' : ratio((s) => s.mbPerSec).toFixed(2),
        );
        cpuCells.push(
          `${median(mine.map((s) => s.clientCpu)).toFixed(1)} + ${median(mine.map((s) => s.brokerCpu)).toFixed(1)}`,
          mode === 'PLAINTEXT' ? '1' : ratio(tot).toFixed(2),
        );
      }
      process.stdout.write(
        `| ${client} | ${SHORT[mode]} | ${cells[0]} | ${cells[1]} | ${cells[2]} | ${cells[3]} | ${cpuCells[0]} | ${cpuCells[1]} | ${cpuCells[2]} | ${cpuCells[3]} |\n`,
      );
    }
  }
}

const brokerIdx = process.argv.indexOf('--broker');
const workerIdx = process.argv.indexOf('--worker');
if (brokerIdx >= 0) {
  await brokerMain(process.argv[brokerIdx + 1]!);
} else if (workerIdx >= 0) {
  const [op, mode, bootstrap, caFile, topic, n] = process.argv.slice(workerIdx + 1);
  await samsaWorker(op!, mode as Mode, bootstrap!, caFile!, topic!, Number(n));
} else {
  await orchestrate();
}
