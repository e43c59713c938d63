// Ordered parallel consumption: records/s of OrderedParallelConsumer (ordering 'key') with a
// handler that sleeps 5 ms, at maxConcurrency 1, 16 and 256, against one in-process broker, in
// the same run; the ratio is against concurrency 1.
//
//   npx tsx bench/ordered-parallel.ts [--keys 1000] [--partitions 8]
//
// The topic is filled once (40,000 records over --keys keys). Each concurrency level reads it
// from the start with its own group and processes a fixed number of records (enough for about
// 2 s at the ideal rate of concurrency × 200 records/s, capped by the topic); the time runs from
// the first record processed to the last, so the group join does not count. The ideal rate of a
// 5 ms handler is 200 × concurrency records/s, reached as long as there are enough distinct keys
// in flight: maxInFlightRecords is 16 × concurrency (at least 1,000), because a poll returns records
// of few partitions at a time and each partition holds only its share of the keys.
import { parseArgs } from 'node:util';
import { Admin } from '../src/client/admin/admin.js';
import { OrderedParallelConsumer } from '../src/client/patterns/ordered-parallel-consumer.js';
import { Producer } from '../src/client/producer/producer.js';
import { startTestBroker } from '../src/testkit/index.js';

const { values } = parseArgs({
  options: {
    keys: { type: 'string', default: '1000' },
    partitions: { type: 'string', default: '8' },
  },
});
const KEYS = Number(values.keys);
const PARTITIONS = Number(values.partitions);
const TOTAL = 40_000;
const HANDLER_MS = 5;
const LEVELS = [1, 16, 256];

const broker = await startTestBroker({ overrides: { 'group.initial.rebalance.delay.ms': 0 } });
try {
  const admin = new Admin({ bootstrapServers: broker.bootstrap });
  await admin.createTopics([{ name: 'bench-opc', numPartitions: PARTITIONS, replicationFactor: 1 }]);
  await admin.close();
  const producer = new Producer({ bootstrapServers: broker.bootstrap, lingerMs: 5 });
  const sends: Promise<unknown>[] = [];
  for (let i = 0; i < TOTAL; i++)
    sends.push(
      producer.send({ topic: 'bench-opc', key: `k${i % KEYS}`, value: String(i) }) as Promise<unknown>,
    );
  await Promise.all(sends);
  await producer.close();

  const results: { concurrency: number; records: number; seconds: number; rate: number }[] = [];
  for (const concurrency of LEVELS) {
    const target = Math.min(TOTAL, Math.max(400, concurrency * 200 * 2));
    let count = 0;
    let first = 0;
    let last = 0;
    const opc = new OrderedParallelConsumer({
      consumer: {
        bootstrapServers: broker.bootstrap,
        groupId: `bench-opc-${concurrency}`,
        autoOffsetReset: 'earliest',
      },
      topics: ['bench-opc'],
      maxConcurrency: concurrency,
      maxInFlightRecords: Math.max(1000, concurrency * 16),
      handler: async () => {
        await new Promise((r) => setTimeout(r, HANDLER_MS));
        if (count === 0) first = performance.now();
        count++;
        if (count === target) last = performance.now();
      },
    });
    const run = opc.run();
    while (count < target) await new Promise((r) => setTimeout(r, 20));
    await opc.close();
    await run;
    const seconds = (last - first) / 1000;
    results.push({ concurrency, records: target, seconds, rate: (target - 1) / seconds });
  }
  const base = results[0]!.rate;
  process.stdout.write(
    `handler ${HANDLER_MS} ms, ${KEYS} keys, ${PARTITIONS} partitions, ordering 'key'\n` +
      'concurrency  records  seconds  records/s  vs 1   ideal (200 × concurrency)\n',
  );
  for (const r of results)
    process.stdout.write(
      `${String(r.concurrency).padStart(11)}  ${String(r.records).padStart(7)}  ${r.seconds.toFixed(2).padStart(7)}  ${r.rate
        .toFixed(0)
        .padStart(
          9,
        )}  ${`${(r.rate / base).toFixed(1)}×`.padStart(5)}  ${String(200 * r.concurrency).padStart(6)}\n`,
    );
} finally {
  await broker.close();
}
