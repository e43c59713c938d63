// Latency and broker CPU of one serial Fetch of cached data (1 MiB and 4 MiB from one partition),
// end to end: file read, response assembly, socket write, measured by a raw socket client.
//
//   npx tsx bench/fetch-latency.ts [--base DIR/src] [--fetches N] [--rounds N] [--sizes 1,4]
//                                  [--batch-records N]
//
// Each broker runs in its own child process (this file with --broker SRC), so its CPU time
// (process.cpuUsage, asked over stdin) excludes the client's. `--base` adds a second broker built
// from another copy of the sources (e.g. a `git worktree` of HEAD, or a copy taken before a
// change): both serve the same data in the same run, rounds interleaved, so ratios hold on a
// loaded machine. Two more children are floors: "raw" `fs.read`s, per request, the same number
// of bytes of the same segment file into one reused buffer and writes them to the socket;
// "raw-stream" pipes an `fs.createReadStream({ start, end })` of them into the socket.
//
// Data: one partition, 24 MiB of 32-record batches of 1,000-byte values (≈ 32 KiB each: larger
// than the tail cache copies, so every read is a file read served from the page cache;
// `--batch-records 16` makes ≈ 16 KiB batches, the Java producer's batch.size, which the tail
// cache holds, so reads are copies out of its arena). Each Fetch (v12, sessionless, read_uncommitted, MaxWaitMs 0) asks
// for the partition from offset 0 with PartitionMaxBytes = MaxBytes = the size; the client only
// counts the answer's bytes (the first answer of each broker is decoded and checked).

import { type ChildProcess, spawn } from 'node:child_process';
import { createReadStream } from 'node:fs';
import { open } from 'node:fs/promises';
import { connect, createServer, type Socket } from 'node:net';
import { createInterface, type Interface } from 'node:readline';
import { pipeline } from 'node:stream/promises';
import { pathToFileURL } from 'node:url';
import { BrokerLink } from '../src/net/index.js';
import { decodeResponse, encodeRequest } from '../src/protocol/messages/frame.js';
import { createTopicsApi } from '../src/protocol/messages/generated/create-topics.js';
import { fetchApi } from '../src/protocol/messages/generated/fetch.js';
import { produceApi } from '../src/protocol/messages/generated/produce.js';
import { encodeRecordBatchSync } from '../src/protocol/record-batch/index.js';
import { fetchRequest } from '../test/broker/support/wire.js';

const TOPIC = 'latency';
const FETCH_VERSION = 12;
const LOG_BYTES = 24 << 20;

const arg = (name: string): string | undefined => {
  const i = process.argv.indexOf(name);
  return i >= 0 ? process.argv[i + 1] : undefined;
};

// ---- children ----------------------------------------------------------------------------------

async function brokerChild(src: string): Promise<void> {
  const { startTestBroker } = (await import(
    pathToFileURL(`${src}/testkit/index.ts`).href
  )) as typeof import('../src/testkit/index.js');
  const broker = await startTestBroker();
  process.stdout.write(`${JSON.stringify({ port: broker.port, dataDir: broker.dataDir })}\n`);
  control(async () => broker.close());
}

/** Reads `n` (int32 request) bytes of `file` from position 0 and writes them back, per request. */
async function rawChild(file: string): Promise<void> {
  const fh = await open(file, 'r');
  let buf = Buffer.allocUnsafeSlow(1);
  const server = createServer((s) => {
    s.setNoDelay(true);
    let pending = Buffer.alloc(0);
    s.on('data', async (d: Buffer) => {
      pending = Buffer.concat([pending, d]);
      while (pending.length >= 4) {
        const n = pending.readInt32BE(0);
        pending = pending.subarray(4);
        if (buf.length < n + 4) buf = Buffer.allocUnsafeSlow(n + 4);
        const { bytesRead } = await fh.read(buf, 4, n, 0);
        buf.writeInt32BE(bytesRead, 0);
        s.write(buf.subarray(0, bytesRead + 4));
      }
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const port = (server.address() as { port: number }).port;
  process.stdout.write(`${JSON.stringify({ port, dataDir: '' })}\n`);
  control(async () => {
    server.close();
    await fh.close();
  });
}

/**
 * The same as `rawChild` through `fs.createReadStream({ start, end })` piped into the socket
 * (Node's other way of moving file bytes to a socket; no sendfile): one stream per request.
 */
async function rawStreamChild(file: string): Promise<void> {
  const server = createServer((s) => {
    s.setNoDelay(true);
    let pending = Buffer.alloc(0);
    let busy = Promise.resolve();
    s.on('data', (d: Buffer) => {
      pending = Buffer.concat([pending, d]);
      while (pending.length >= 4) {
        const n = pending.readInt32BE(0);
        pending = pending.subarray(4);
        busy = busy.then(async () => {
          const head = Buffer.alloc(4);
          head.writeInt32BE(n, 0);
          s.write(head);
          await pipeline(createReadStream(file, { start: 0, end: n - 1, highWaterMark: n }), s, {
            end: false,
          });
        });
      }
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const port = (server.address() as { port: number }).port;
  process.stdout.write(`${JSON.stringify({ port, dataDir: '' })}\n`);
  control(async () => {
    server.close();
  });
}

/** stdin commands: "cpu" → one line of process.cpuUsage(); end of stdin → stop and exit. */
function control(stop: () => Promise<void>): void {
  const rl = createInterface({ input: process.stdin });
  rl.on('line', (l) => {
    if (l === 'cpu') process.stdout.write(`${JSON.stringify(process.cpuUsage())}\n`);
  });
  rl.on('close', () => void stop().then(() => process.exit(0)));
}

// ---- parent ------------------------------------------------------------------------------------

interface Child {
  readonly name: string;
  readonly proc: ChildProcess;
  readonly lines: Interface;
  readonly port: number;
  readonly dataDir: string;
}

async function nextLine(lines: Interface): Promise<string> {
  return new Promise((resolve) => lines.once('line', resolve));
}

async function startChild(name: string, args: string[]): Promise<Child> {
  const profile = process.env.FETCH_BENCH_PROFILE
    ? ['--cpu-prof', '--cpu-prof-dir', `${process.env.FETCH_BENCH_PROFILE}/${name}`]
    : [];
  const proc = spawn(process.execPath, [...profile, '--import', 'tsx', import.meta.filename, ...args], {
    stdio: ['pipe', 'pipe', 'inherit'],
  });
  const lines = createInterface({ input: proc.stdout! });
  const { port, dataDir } = JSON.parse(await nextLine(lines)) as { port: number; dataDir: string };
  return { name, proc, lines, port, dataDir };
}

async function childCpuMs(c: Child): Promise<number> {
  const answer = nextLine(c.lines);
  c.proc.stdin!.write('cpu\n');
  const { user, system } = JSON.parse(await answer) as { user: number; system: number };
  return (user + system) / 1000;
}

async function stopChild(c: Child): Promise<void> {
  const exited = new Promise((r) => c.proc.once('exit', r));
  c.proc.stdin!.end();
  await exited;
}

async function fill(port: number, recordsPerBatch: number): Promise<void> {
  const link = new BrokerLink(1, '127.0.0.1', port, { clientId: 'bench-fetch-latency' });
  try {
    await link.request(createTopicsApi, {
      topics: [{ name: TOPIC, numPartitions: 1, replicationFactor: 1, assignments: [], configs: [] }],
      timeoutMs: 30_000,
      validateOnly: false,
    });
    const value = Buffer.alloc(1000, 7);
    let written = 0;
    while (written < LOG_BYTES) {
      // One batch per request (v2 produce).
      const records = encodeRecordBatchSync(
        Array.from({ length: recordsPerBatch }, () => ({ value, timestamp: BigInt(Date.now()) })),
      );
      written += records.length;
      const res = await link.request(produceApi, {
        transactionalId: null,
        acks: 1,
        timeoutMs: 30_000,
        topicData: [{ name: TOPIC, partitionData: [{ index: 0, records }] }],
      });
      const code = res.responses[0]!.partitionResponses[0]!.errorCode;
      if (code !== 0) throw new Error(`produce failed: ${code}`);
    }
  } finally {
    link.close();
  }
}

/** A raw Kafka connection: one request at a time, answers counted, not decoded. */
class RawClient {
  readonly #socket: Socket;
  #want = -1;
  #got = 0;
  #chunks: Buffer[] = [];
  #keep = false;
  #head: Buffer = Buffer.alloc(0);
  #done: ((frame: Buffer[]) => void) | null = null;

  private constructor(socket: Socket) {
    this.#socket = socket;
    socket.setNoDelay(true);
    socket.on('data', (d: Buffer) => this.#onData(d));
  }

  static async connect(port: number): Promise<RawClient> {
    const s = connect(port, '127.0.0.1');
    await new Promise<void>((resolve, reject) => {
      s.once('connect', resolve);
      s.once('error', reject);
    });
    return new RawClient(s);
  }

  #onData(d: Buffer): void {
    let data = d;
    while (data.length > 0) {
      if (this.#want < 0) {
        this.#head = this.#head.length === 0 ? data : Buffer.concat([this.#head, data]);
        if (this.#head.length < 4) return;
        this.#want = this.#head.readInt32BE(0);
        data = this.#head.subarray(4);
        this.#head = Buffer.alloc(0);
        this.#got = 0;
      }
      const n = Math.min(data.length, this.#want - this.#got);
      if (this.#keep) this.#chunks.push(data.subarray(0, n));
      this.#got += n;
      data = data.subarray(n);
      if (this.#got === this.#want) {
        this.#want = -1;
        const chunks = this.#chunks;
        this.#chunks = [];
        const done = this.#done!;
        this.#done = null;
        done(chunks);
      }
    }
  }

  /** Sends `frame`, resolves with the answer's bytes (kept only when `keep`). */
  request(frame: readonly Buffer[], keep: boolean): Promise<Buffer[]> {
    this.#keep = keep;
    const p = new Promise<Buffer[]>((resolve) => {
      this.#done = resolve;
    });
    this.#socket.cork();
    for (const c of frame) this.#socket.write(c);
    this.#socket.uncork();
    return p;
  }

  close(): void {
    this.#socket.destroy();
  }
}

function fetchFrame(size: number, correlationId: number): Buffer[] {
  return encodeRequest(
    fetchApi,
    FETCH_VERSION,
    correlationId,
    'bench',
    fetchRequest(TOPIC, { partition: 0, offset: 0n }, { maxBytes: size, partitionMaxBytes: size }),
  );
}

interface Sample {
  wallMs: number[];
  cpuMs: number;
  fetches: number;
  bytes: number;
}

function quantile(xs: readonly number[], q: number): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor(q * s.length))]!;
}

async function main(): Promise<void> {
  const fetches = Number(arg('--fetches') ?? 100);
  const rounds = Number(arg('--rounds') ?? 3);
  const sizes = (arg('--sizes') ?? '1,4').split(',').map((s) => Number(s) << 20);
  const base = arg('--base');
  const recordsPerBatch = Number(arg('--batch-records') ?? 32);
  const here = new URL('../src', import.meta.url).pathname;
  const brokers: Child[] = [await startChild('current', ['--broker', here])];
  if (base !== undefined) brokers.push(await startChild('base', ['--broker', base]));
  for (const b of brokers) await fill(b.port, recordsPerBatch);
  const raw = await startChild('raw', [
    '--raw',
    `${brokers[0]!.dataDir}/${TOPIC}-0/00000000000000000000.log`,
  ]);
  const rawStream = await startChild('raw-stream', [
    '--raw-stream',
    `${brokers[0]!.dataDir}/${TOPIC}-0/00000000000000000000.log`,
  ]);
  const children = [...brokers, raw, rawStream];
  const clients = new Map<Child, RawClient>();
  for (const c of children) clients.set(c, await RawClient.connect(c.port));
  const results = new Map<string, Sample>();
  let correlationId = 1;

  const checkFirst = (c: Child, chunks: Buffer[], size: number): number => {
    const frame = Buffer.concat(chunks);
    if (c === raw || c === rawStream) return frame.length;
    const res = decodeResponse(fetchApi, FETCH_VERSION, frame);
    const p = res.body.responses[0]!.partitions[0]!;
    if (p.errorCode !== 0) throw new Error(`${c.name}: fetch error ${p.errorCode}`);
    const got = p.records?.length ?? 0;
    if (got < size * 0.9 || got > size) throw new Error(`${c.name}: ${got} record bytes for ${size}`);
    return got;
  };

  try {
    for (let round = 0; round < rounds; round++) {
      for (const size of sizes) {
        // The raw floor serves exactly what a broker answered.
        let rawBytes = size;
        for (const c of children) {
          const client = clients.get(c)!;
          const frame = (): Buffer[] => {
            if (c !== raw && c !== rawStream) return fetchFrame(size, correlationId++);
            const b = Buffer.alloc(4);
            b.writeInt32BE(rawBytes, 0);
            return [b];
          };
          const got = checkFirst(c, await client.request(frame(), true), size);
          if (c === brokers[0]) rawBytes = got;
          for (let i = 0; i < 5; i++) await client.request(frame(), false); // warm-up
          const wall: number[] = [];
          const cpu0 = await childCpuMs(c);
          for (let i = 0; i < fetches; i++) {
            const f = frame();
            const t0 = performance.now();
            await client.request(f, false);
            wall.push(performance.now() - t0);
          }
          const cpu = (await childCpuMs(c)) - cpu0;
          const key = `${c.name} ${size >> 20} MiB`;
          const prev = results.get(key);
          // Best round (lowest median) kept: the machine is shared.
          if (prev === undefined || quantile(wall, 0.5) < quantile(prev.wallMs, 0.5))
            results.set(key, { wallMs: wall, cpuMs: cpu, fetches, bytes: got });
          console.log(
            `round ${round + 1} ${key}: median ${quantile(wall, 0.5).toFixed(2)} ms, p10 ${quantile(wall, 0.1).toFixed(2)} ms, CPU ${(cpu / fetches).toFixed(2)} ms/fetch`,
          );
        }
      }
    }
  } finally {
    for (const c of clients.values()) c.close();
    for (const c of children) await stopChild(c);
  }

  console.log('\n| case | median | p10 | p90 | child CPU per Fetch | vs raw (median) |');
  console.log('| --- | --- | --- | --- | --- | --- |');
  for (const size of sizes) {
    const r = results.get(`raw ${size >> 20} MiB`)!;
    for (const c of children) {
      const s = results.get(`${c.name} ${size >> 20} MiB`)!;
      const med = quantile(s.wallMs, 0.5);
      console.log(
        `| ${c.name} ${size >> 20} MiB | ${med.toFixed(2)} ms | ${quantile(s.wallMs, 0.1).toFixed(2)} ms | ${quantile(s.wallMs, 0.9).toFixed(2)} ms | ${(s.cpuMs / s.fetches).toFixed(2)} ms | ${(med / quantile(r.wallMs, 0.5)).toFixed(2)}× |`,
      );
    }
  }
}

if (process.argv.includes('--broker')) await brokerChild(arg('--broker')!);
else if (process.argv.includes('--raw')) await rawChild(arg('--raw')!);
else if (process.argv.includes('--raw-stream')) await rawStreamChild(arg('--raw-stream')!);
else await main();
