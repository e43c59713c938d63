// How long one commitSync of our Consumer takes against a quiet broker (an in-process test broker,
// one commit at a time, awaited), next to a bare OffsetCommit round trip on a connection of its
// own (the floor). Three shapes of consumer:
//  - assign: a consumer with a group id but no membership (a simple commit), after a poll;
//  - subscribed, idle: a group member between polls (no Fetch in flight);
//  - subscribed, polling: a member whose poll loop keeps a Fetch long poll (fetch.max.wait.ms)
//    waiting on the broker, as a consumer that commits from another task does.
// A commit that waited on a timer or behind a long-polling Fetch shows as a median near that
// timer's period instead of near the round trip.
// Run: npx tsx bench/groups-commit-latency.ts   (COMMITS=30 per shape, FETCH_WAIT_MS=500)
import { performance } from 'node:perf_hooks';
import { Admin } from '../src/client/admin/admin.js';
import { Consumer } from '../src/client/consumer/index.js';
import { Producer } from '../src/client/producer/producer.js';
import { startTestBroker } from '../src/testkit/index.js';
import { findCoordinator, simpleCommit, TOPIC } from './groups-e2e-support.js';
import { WireConn } from './groups-wire.js';

const COMMITS = Number(process.env.COMMITS ?? 30);
const FETCH_WAIT_MS = Number(process.env.FETCH_WAIT_MS ?? 500);

const broker = await startTestBroker({
  overrides: { 'group.initial.rebalance.delay.ms': 0, 'offsets.topic.num.partitions': 1 },
});
const bootstrapServers = broker.bootstrap;

function summary(label: string, ms: number[]): void {
  const s = [...ms].sort((a, b) => a - b);
  const at = (q: number) => (s[Math.min(s.length - 1, Math.floor(q * s.length))] as number).toFixed(2);
  console.log(
    `  ${label.padEnd(44)} median ${at(0.5).padStart(7)} ms   p90 ${at(0.9).padStart(7)} ms   max ${at(1).padStart(7)} ms`,
  );
}

async function timedCommits(consumer: Consumer, offsetBase: bigint): Promise<number[]> {
  const times: number[] = [];
  for (let i = 0; i < COMMITS; i++) {
    const t0 = performance.now();
    await consumer.commitSync([{ topic: TOPIC, partition: 0, offset: offsetBase + BigInt(i) }]);
    times.push(performance.now() - t0);
    await new Promise((r) => setTimeout(r, 7)); // not in step with any timer of the consumer
  }
  return times;
}

try {
  const admin = new Admin({ bootstrapServers });
  await admin.createTopics([{ name: TOPIC, numPartitions: 1, replicationFactor: 1 }]);
  await admin.close();
  const producer = new Producer({ bootstrapServers });
  await producer.send({ topic: TOPIC, partition: 0, key: 'k', value: 'v' });
  await producer.close();
  console.log(
    `commitSync latency, one commit at a time, ${COMMITS} each (fetch.max.wait.ms ${FETCH_WAIT_MS})`,
  );

  // The floor: OffsetCommit v8 round trips of a simple consumer on a bare connection.
  const conn = await WireConn.connect(broker.port);
  await findCoordinator(conn, 'latency-raw');
  const raw: number[] = [];
  for (let i = 0; i < COMMITS + 5; i++) {
    const t0 = performance.now();
    await simpleCommit(conn, 'latency-raw', 0, BigInt(i));
    if (i >= 5) raw.push(performance.now() - t0);
  }
  conn.close();
  summary('bare OffsetCommit round trip', raw);

  const options = { bootstrapServers, enableAutoCommit: false, fetchMaxWaitMs: FETCH_WAIT_MS };
  const assigned = new Consumer({ ...options, groupId: 'latency-assign' });
  assigned.assign([{ topic: TOPIC, partition: 0 }]);
  await assigned.poll(2000);
  await assigned.commitSync([{ topic: TOPIC, partition: 0, offset: 0n }]); // finds the coordinator
  summary('assign, after a poll', await timedCommits(assigned, 1n));
  await assigned.close();

  const member = new Consumer({ ...options, groupId: 'latency-member' });
  member.subscribe([TOPIC]);
  while (member.assignment().length === 0) await member.poll(200);
  await member.commitSync([{ topic: TOPIC, partition: 0, offset: 0n }]);
  summary('subscribed, idle between polls', await timedCommits(member, 1n));

  let polling = true;
  const loop = (async () => {
    while (polling) await member.poll(1000);
  })();
  await new Promise((r) => setTimeout(r, 100));
  summary('subscribed, a poll (Fetch long poll) running', await timedCommits(member, 100n));
  polling = false;
  await loop;
  await member.close();
} finally {
  await broker.close();
}
