// Backlog fan-out throughput: records/s of fanOut() copying a 4-partition topic into 16
// partitions, exactly once, against a baseline measured in the same run: the same copy with no
// guarantee at all — a plain consumer and an idempotent (non-transactional) producer, no offset
// commits, one flush at the end. The ratio is the price of exactly-once (the transactions:
// AddPartitionsToTxn, AddOffsetsToTxn, TxnOffsetCommit, EndTxn and the markers, and the flush
// that each commit waits for).
//
//   npx tsx bench/fan-out.ts [--records 100000] [--keys 10000]
import { parseArgs } from 'node:util';
import { Admin } from '../src/client/admin/admin.js';
import { Consumer } from '../src/client/consumer/consumer.js';
import { fanOut } from '../src/client/patterns/fan-out.js';
import { Producer } from '../src/client/producer/producer.js';
import { murmur2Partition } from '../src/protocol/partitioners.js';
import { startTestBroker } from '../src/testkit/index.js';

const { values } = parseArgs({
  options: { records: { type: 'string', default: '100000' }, keys: { type: 'string', default: '10000' } },
});
const RECORDS = Number(values.records);
const KEYS = Number(values.keys);
const FROM = 4;
const TO = 16;

const broker = await startTestBroker({
  overrides: { 'transaction.state.log.num.partitions': 3, 'offsets.topic.num.partitions': 3 },
});
const bootstrapServers = broker.bootstrap;
try {
  const admin = new Admin({ bootstrapServers });
  await admin.createTopics([
    { name: 'bench-fo-src', numPartitions: FROM },
    { name: 'bench-fo-plain-1', numPartitions: TO },
    { name: 'bench-fo-plain-2', numPartitions: TO },
  ]);
  await admin.close();
  const p = new Producer({ bootstrapServers, lingerMs: 5 });
  const value = Buffer.alloc(100, 'v');
  for (let i = 0; i < RECORDS; i++) {
    if (
      !p.send({ topic: 'bench-fo-src', key: `key-${i % KEYS}`, value, headers: { seq: String(i) } }, () => {})
    )
      await p.bufferAvailable();
  }
  await p.flush();
  await p.close();
  const tps = Array.from({ length: FROM }, (_, partition) => ({ topic: 'bench-fo-src', partition }));

  // Baseline: the same copy with the same clients, no commits, no transactions.
  async function plainCopy(run: number): Promise<number> {
    const started = Date.now();
    const c = new Consumer({ bootstrapServers, autoOffsetReset: 'earliest' });
    const out = new Producer({ bootstrapServers, lingerMs: 5 });
    c.assign(tps);
    c.seekToBeginning(tps);
    let copied = 0;
    while (copied < RECORDS) {
      for (const r of await c.poll(200)) {
        const headers = r.headers.map((h) => [h.key, h.value] as const);
        const rec = {
          topic: `bench-fo-plain-${run}`,
          key: r.key,
          value: r.value,
          headers,
          timestamp: r.timestamp,
        };
        if (!out.send({ ...rec, partition: murmur2Partition(r.key!, TO)! }, () => {}))
          await out.bufferAvailable();
        copied++;
      }
    }
    await out.flush();
    await out.close();
    await c.close();
    return (Date.now() - started) / 1000;
  }

  async function exactlyOnce(run: number): Promise<{ seconds: number; transactions: number }> {
    const started = Date.now();
    const bridge = await fanOut({
      bootstrapServers,
      from: 'bench-fo-src',
      to: `bench-fo-wide-${run}`,
      partitions: TO,
      stopAtEnd: true,
    });
    const last = await bridge.done;
    if (last.copied !== RECORDS) throw new Error(`fan-out copied ${last.copied} of ${RECORDS}`);
    return { seconds: (Date.now() - started) / 1000, transactions: last.transactions };
  }

  // ABBA order, best of two each: neither side gets only the warm (or the cold) broker.
  const plain1 = await plainCopy(1);
  const eos1 = await exactlyOnce(1);
  const eos2 = await exactlyOnce(2);
  const plain2 = await plainCopy(2);
  const plainSeconds = Math.min(plain1, plain2);
  const { seconds, transactions } = eos1.seconds <= eos2.seconds ? eos1 : eos2;
  const plainRate = RECORDS / plainSeconds;
  const rate = RECORDS / seconds;
  console.log(`runs (s): no guarantee ${plain1}, ${plain2}; exactly once ${eos1.seconds}, ${eos2.seconds}`);
  console.log(
    `${RECORDS} records of 100 bytes over ${KEYS} keys, ${FROM} → ${TO} partitions, one in-process broker`,
  );
  console.log('| copy | time | records/s | vs no guarantee |');
  console.log('| --- | --- | --- | --- |');
  console.log(
    `| no guarantee (consumer + idempotent producer, no commits) | ${plainSeconds.toFixed(1)} s | ${Math.round(plainRate)} | 1× |`,
  );
  console.log(
    `| fanOut (exactly once, ${transactions} transactions) | ${seconds.toFixed(1)} s | ${Math.round(rate)} | ${(rate / plainRate).toFixed(2)}× |`,
  );
} finally {
  await broker.close();
}
