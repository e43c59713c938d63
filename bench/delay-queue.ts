// Delay queue precision: how late records reach a read_committed reader of the target, for delays
// equal to a level or a sum of levels, and for delays in between (which wait their last part in
// the smallest level, behind records that entered it earlier). The baseline, measured in the same
// run, is the fastest any exactly-once hand-off can be: one transaction (begin, one record, the
// offsets, commit) from its start until a read_committed reader sees the record.
//
//   npx tsx bench/delay-queue.ts [--records 600] [--levels 1000,4000] [--only-levels]
//
// Records are sent at a steady pace (one every 10 ms, spread over 8 keys and 6 delays; with
// --only-levels the 3 delays on levels only, so none waits behind a shorter remainder) while one
// scheduler runs in the same process as the broker and the reader.
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { parseArgs } from 'node:util';
import { Admin } from '../src/client/admin/admin.js';
import { Consumer } from '../src/client/consumer/consumer.js';
import { DELIVER_AT_HEADER, DelayQueue } from '../src/client/patterns/delay-queue.js';
import { startDelayScheduler } from '../src/client/patterns/delay-scheduler.js';
import { Producer } from '../src/client/producer/producer.js';
import { startTestBroker } from '../src/testkit/index.js';

const { values } = parseArgs({
  options: {
    records: { type: 'string', default: '600' },
    levels: { type: 'string', default: '1000,4000' },
    'only-levels': { type: 'boolean', default: false },
  },
});
const RECORDS = Number(values.records);
const LEVELS = values.levels!.split(',').map(Number);
const ON_LEVELS = [LEVELS[0]!, LEVELS.at(-1)!, LEVELS[0]! + LEVELS.at(-1)!];
const BETWEEN = [
  Math.round(LEVELS[0]! * 0.3),
  Math.round(LEVELS[0]! * 1.7),
  LEVELS.at(-1)! + Math.round(LEVELS[0]! * 2.3),
];

const broker = await startTestBroker({
  overrides: { 'transaction.state.log.num.partitions': 3, 'offsets.topic.num.partitions': 3 },
});
const bootstrapServers = broker.bootstrap;

function stats(xs: number[]): { p50: number; p99: number; max: number } {
  const s = [...xs].sort((a, b) => a - b);
  const at = (q: number) => s[Math.min(s.length - 1, Math.floor(q * s.length))]!;
  return { p50: at(0.5), p99: at(0.99), max: s.at(-1)! };
}

/** A read_committed reader of `topic` that notes when each record became visible. */
function reader(topic: string, partitions: number) {
  const seen: { value: string; at: number; deliverAt: number }[] = [];
  const c = new Consumer({ bootstrapServers, isolationLevel: 'read_committed', fetchMaxWaitMs: 50 });
  const tps = Array.from({ length: partitions }, (_, partition) => ({ topic, partition }));
  c.assign(tps);
  c.seekToEnd(tps);
  let stopped = false;
  const loop = (async () => {
    while (!stopped) {
      const records = await c.poll(100);
      const at = Date.now();
      for (const r of records)
        seen.push({
          value: r.value!.toString(),
          at,
          deliverAt: Number(r.headers.find((h) => h.key === DELIVER_AT_HEADER)?.value?.toString() ?? 0),
        });
    }
  })();
  return {
    seen,
    ready: () => Promise.all(tps.map((tp) => c.position(tp))),
    close: async () => {
      stopped = true;
      await loop;
      await c.close();
    },
  };
}

try {
  const admin = new Admin({ bootstrapServers });
  await admin.createTopics([
    { name: 'bench-dq-out', numPartitions: 3 },
    { name: 'bench-txn-in', numPartitions: 1 },
    { name: 'bench-txn-out', numPartitions: 1 },
  ]);
  await admin.close();

  // Baseline: one exactly-once hand-off, start of the transaction to visible.
  const base = reader('bench-txn-out', 1);
  await base.ready();
  const txn = new Producer({ bootstrapServers, transactionalId: 'bench-baseline', lingerMs: 0 });
  await txn.initTransactions();
  const baseline: number[] = [];
  for (let i = 0; i < 40; i++) {
    const started = Date.now();
    txn.beginTransaction();
    txn.sendAndForget({ topic: 'bench-txn-out', value: `b${i}` });
    await txn.sendOffsetsToTransaction(
      [{ topic: 'bench-txn-in', partition: 0, offset: BigInt(i + 1) }],
      'bench-baseline',
    );
    await txn.commitTransaction();
    while (!base.seen.some((s) => s.value === `b${i}`)) await new Promise((r) => setTimeout(r, 1));
    baseline.push(base.seen.find((s) => s.value === `b${i}`)!.at - started);
  }
  await txn.close();
  await base.close();

  const queue = new DelayQueue({ name: 'bench-dq', levels: LEVELS });
  await queue.createTopics({ bootstrapServers }, { partitions: 2 });
  const scheduler = await startDelayScheduler(queue, { bootstrapServers });
  const loopDelay = monitorEventLoopDelay({ resolution: 10 });
  loopDelay.enable();
  const out = reader('bench-dq-out', 3);
  await out.ready();
  const producer = new Producer({ bootstrapServers, lingerMs: 0 });
  const delays = values['only-levels'] ? ON_LEVELS : [...ON_LEVELS, ...BETWEEN];
  for (let i = 0; i < RECORDS; i++) {
    const d = delays[i % delays.length]!;
    producer.sendAndForget(
      queue.delayed({ topic: 'bench-dq-out', key: `k${i % 8}`, value: `${d}/${i}`, delayMs: d }),
    );
    await new Promise((r) => setTimeout(r, 10));
  }
  await producer.flush();
  const deadline = Date.now() + 120_000;
  while (out.seen.length < RECORDS && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
  await producer.close();
  await out.close();
  const schedulerStats = scheduler.stats();
  await scheduler.stop();

  loopDelay.disable();
  const early = out.seen.filter((s) => s.at < s.deliverAt).length;
  const lateness = (set: number[]) =>
    stats(out.seen.filter((s) => set.includes(Number(s.value.split('/')[0]))).map((s) => s.at - s.deliverAt));
  const b = stats(baseline);
  const row = (name: string, s: { p50: number; p99: number; max: number }) =>
    `| ${name} | ${s.p50} ms | ${s.p99} ms | ${s.max} ms | ${(s.p50 / b.p50).toFixed(1)}× |`;
  console.log(`delivered ${out.seen.length}/${RECORDS}, early ${early}, levels ${LEVELS.join(', ')} ms`);
  console.log('| lateness at a read_committed reader | p50 | p99 | max | p50 vs baseline |');
  console.log('| --- | --- | --- | --- | --- |');
  console.log(row('baseline: one transaction, start to visible', b));
  console.log(row(`delays on levels (${ON_LEVELS.join(', ')} ms)`, lateness(ON_LEVELS)));
  if (!values['only-levels'])
    console.log(row(`delays in between (${BETWEEN.join(', ')} ms)`, lateness(BETWEEN)));
  const ms = (ns: number) => Math.round(ns / 1e6);
  console.log(
    `event loop delay meanwhile (the broker, scheduler, producer and reader share one): p50 ${ms(loopDelay.percentile(50))} ms, p99 ${ms(loopDelay.percentile(99))} ms, max ${ms(loopDelay.max)} ms`,
  );
  console.log(
    `scheduler: ${schedulerStats.transactions} transactions, ${schedulerStats.forwarded} hops, lateness at commit ${JSON.stringify(schedulerStats.latenessMs)}`,
  );
} finally {
  await broker.close();
}
