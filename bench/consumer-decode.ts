// The consumer's per-record CPU without a broker or a socket: what `poll()` does with fetched data
// (`CompletedFetch.drain`: open each batch, check its CRC-32C unless checkCrcs is false, build
// one ConsumerRecord per record), over the same bytes many times, measured with
// `process.cpuUsage` (CPU time, not wall time: the machine is shared).
//
//   npx tsc && node dist/bench/consumer-decode.js [--size 1024] [--batch-records 1014]
//     [--fetch-bytes 1048576] [--rounds 7] [--seconds 1] [--base DIR]
//
// The data is one partition's fetch answer of `--fetch-bytes` made of uncompressed batches of
// `--batch-records` records of `--size` bytes (1,014 × 1 KiB is what the producer of
// bench/client-consumer.ts writes), drained 500 records at a time (max.poll.records). `--base DIR`
// also measures DIR/dist's CompletedFetch (another copy of the tree, built there with tsc):
// rounds alternate between the trees and each reports its best round, for both CRC settings.
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import type { ConsumerRecord } from '../src/client/consumer/index.js';
import { encodeRecordBatchSync } from '../src/protocol/record-batch/index.js';

type CompletedFetchModule = typeof import('../src/client/consumer/completed-fetch.js');
type StateModule = typeof import('../src/client/consumer/subscription-state.js');

const { values } = parseArgs({
  options: {
    size: { type: 'string', default: '1024' },
    'batch-records': { type: 'string', default: '1014' },
    'fetch-bytes': { type: 'string', default: '1048576' },
    rounds: { type: 'string', default: '7' },
    seconds: { type: 'string', default: '1' },
    base: { type: 'string' },
  },
});
const size = Number(values.size);
const perBatch = Number(values['batch-records']);
const fetchBytes = Number(values['fetch-bytes']);

function fetchData(): Buffer {
  const value = Buffer.alloc(size, 65);
  const batches: Buffer[] = [];
  let bytes = 0;
  let offset = 0;
  while (bytes < fetchBytes) {
    const records = Array.from({ length: perBatch }, () => ({ key: null, value, timestamp: Date.now() }));
    const b = encodeRecordBatchSync(records, { baseOffset: offset });
    batches.push(b);
    bytes += b.length;
    offset += perBatch;
  }
  return Buffer.concat(batches);
}

async function load(dir: string | null): Promise<{ cf: CompletedFetchModule; st: StateModule }> {
  const at = (rel: string) =>
    dir === null
      ? `../src/client/consumer/${rel}`
      : pathToFileURL(join(dir, 'dist/src/client/consumer', rel)).href;
  return {
    cf: (await import(at('completed-fetch.js'))) as CompletedFetchModule,
    st: (await import(at('subscription-state.js'))) as StateModule,
  };
}

/** CPU nanoseconds per record of draining `data` again and again for about `seconds`. */
async function measure(m: { cf: CompletedFetchModule; st: StateModule }, data: Buffer, crc: boolean) {
  const state = new m.st.PartitionState('t', 0);
  const { end } = m.cf.scanBatches(data);
  const budget = Number(values.seconds) * 1e6;
  let records = 0;
  let sink = 0;
  const t0 = process.cpuUsage();
  for (;;) {
    const fetch = new m.cf.CompletedFetch(state, 0, 0n, data, end, null, true, crc);
    while (!fetch.done) {
      const out: ConsumerRecord[] = [];
      await fetch.drain(out, 500, null, null);
      for (const r of out) sink += r.value === null ? 0 : r.value.length;
      records += out.length;
    }
    const used = process.cpuUsage(t0);
    if (used.user + used.system >= budget) {
      if (sink === 0) throw new Error('no bytes consumed');
      return ((used.user + used.system) * 1000) / records;
    }
  }
}

const data = fetchData();
const trees: [string, { cf: CompletedFetchModule; st: StateModule }][] = [['this tree', await load(null)]];
if (values.base !== undefined) trees.push(['base', await load(values.base)]);
const best = new Map<string, number>();
for (let round = 0; round < Number(values.rounds); round++) {
  for (const [name, m] of round % 2 === 0 ? trees : [...trees].reverse()) {
    for (const crc of [true, false]) {
      const ns = await measure(m, data, crc);
      const key = `${name}, checkCrcs ${crc}`;
      best.set(key, Math.min(best.get(key) ?? Number.POSITIVE_INFINITY, ns));
      process.stdout.write(`round ${round + 1} ${key}: ${ns.toFixed(1)} ns CPU per record\n`);
    }
  }
}
for (const [key, ns] of best) process.stdout.write(`best ${key}: ${ns.toFixed(1)} ns CPU per record\n`);
if (values.base !== undefined) {
  for (const crc of [true, false]) {
    const after = best.get(`this tree, checkCrcs ${crc}`)!;
    const before = best.get(`base, checkCrcs ${crc}`)!;
    process.stdout.write(
      `checkCrcs ${crc}: this tree / base = ${(after / before).toFixed(2)}× CPU per record\n`,
    );
  }
}
