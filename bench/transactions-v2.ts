// Transaction protocol v2 (KIP-890 part 2) against v1, with our producer: back-to-back
// transactions (begin, N records of 100 B to one partition, commit) against two samsa brokers
// in their own processes, one at `transaction.version` 2 (the producer skips
// AddPartitionsToTxn, uses Produce v12 and EndTxn v5) and one at 1 (AddPartitionsToTxn v3,
// Produce v11, EndTxn v4). Rounds alternate which broker goes first (A B, B A, ...); the result
// is the median v2/v1 ratio of transactions per second over the rounds, so the machine's load
// swings hit both sides alike.
//
//   npx tsx bench/transactions-v2.ts [--seconds 3] [--rounds 6] [--sizes 1,100]
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { Admin, Producer } from '../src/client/index.js';

const { values } = parseArgs({
  options: {
    seconds: { type: 'string', default: '3' },
    rounds: { type: 'string', default: '6' },
    sizes: { type: 'string', default: '1,100' },
  },
});
const SECONDS = Number(values.seconds);
const ROUNDS = Number(values.rounds);
const SIZES = values.sizes.split(',').map(Number);
const PAYLOAD = Buffer.alloc(100, 65);
const TOPIC = 'bench-txn-v2';

function startBroker(dataDir: string, level: number): Promise<{ child: ChildProcess; bootstrap: string }> {
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
        '--override',
        `transaction.version=${level}`,
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

/** Transactions per second of `size` records each, for SECONDS. */
async function txnRate(producer: Producer, size: number): Promise<number> {
  let txns = 0;
  const start = performance.now();
  const end = start + SECONDS * 1000;
  while (performance.now() < end) {
    producer.beginTransaction();
    const acks: Promise<unknown>[] = [];
    for (let i = 0; i < size; i++) acks.push(producer.send({ topic: TOPIC, partition: 0, value: PAYLOAD }));
    await producer.commitTransaction();
    await Promise.all(acks);
    txns++;
  }
  return txns / ((performance.now() - start) / 1000);
}

const median = (xs: number[]): number => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 === 1 ? s[(s.length - 1) / 2]! : (s[s.length / 2 - 1]! + s[s.length / 2]!) / 2;
};

async function main(): Promise<void> {
  const brokers = new Map<number, { child: ChildProcess; bootstrap: string; dir: string }>();
  try {
    for (const level of [1, 2]) {
      const dir = mkdtempSync(join(tmpdir(), `samsa-bench-txn-v${level}-`));
      brokers.set(level, { ...(await startBroker(dir, level)), dir });
    }
    const producers = new Map<number, Producer>();
    for (const [level, b] of brokers) {
      const admin = new Admin({ bootstrapServers: b.bootstrap });
      await admin.createTopics([{ name: TOPIC, numPartitions: 1, replicationFactor: 1 }]);
      await admin.close();
      const p = new Producer({
        bootstrapServers: b.bootstrap,
        transactionalId: `bench-v${level}`,
        lingerMs: 5,
      });
      await p.initTransactions();
      await txnRate(p, 1); // warm-up: coordinator load, connections, JIT
      producers.set(level, p);
    }
    for (const size of SIZES) {
      const rates = new Map<number, number[]>([
        [1, []],
        [2, []],
      ]);
      const ratios: number[] = [];
      for (let round = 0; round < ROUNDS; round++) {
        const order = round % 2 === 0 ? [1, 2] : [2, 1];
        const got = new Map<number, number>();
        for (const level of order) got.set(level, await txnRate(producers.get(level)!, size));
        for (const [level, r] of got) rates.get(level)!.push(r);
        ratios.push(got.get(2)! / got.get(1)!);
      }
      const fmt = (xs: number[]) => xs.map((x) => x.toFixed(0)).join(' / ');
      process.stdout.write(
        `transactions of ${size} record(s): v1 txn/s ${fmt(rates.get(1)!)}; v2 txn/s ${fmt(rates.get(2)!)}; ` +
          `median v2/v1 ${median(ratios).toFixed(2)}× (rounds: ${ratios.map((r) => r.toFixed(2)).join(' ')})\n`,
      );
    }
    for (const p of producers.values()) await p.close();
  } finally {
    for (const b of brokers.values()) {
      b.child.kill('SIGTERM');
      await new Promise((r) => b.child.once('exit', r));
      rmSync(b.dir, { recursive: true, force: true });
    }
  }
}

await main();
