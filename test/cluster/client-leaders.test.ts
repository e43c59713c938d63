// Our clients across leader changes of a three-broker cluster (broker processes):
// - an idempotent producer (acks=all, RF 3, min ISR 2, 5 requests in flight) writes numbered
//   records while the leaders of its partitions are killed -9 and restarted and leadership moves
//   back to the preferred replicas: every acknowledged record is stored exactly once, in order;
// - consumers whose position is above what a new leader has (records written with acks=1 while
//   the followers were frozen, read, then lost with their leader by an unclean election) find
//   the truncation with OffsetsForLeaderEpoch: auto.offset.reset=none raises LogTruncationError
//   naming the partition and offsets; earliest and latest go back to the divergent offset, as
//   Java's consumer does, and read the records written after the failover — none is skipped.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { Admin, Consumer, LogTruncationError, Producer } from '../../src/client/index.js';
import { startTestCluster, type TestCluster } from '../../src/testkit/cluster.js';
import { scaled, TestTimeoutError } from '../support/timeouts.js';
import {
  killAndRestart,
  leaderOf,
  rawProduce,
  sleep,
  viewOf,
  waitFor,
  waitForFullIsr,
  waitForViews,
} from './support.js';

const SESSION_MS = 6000;

let cluster: TestCluster;

before(async () => {
  cluster = await startTestCluster({
    brokers: 3,
    sessionTimeoutMs: SESSION_MS,
    overrides: {
      'auto.create.topics.enable': false,
      'replica.fetch.backoff.ms': 200,
      'replica.lag.time.max.ms': 1500,
      // Restarted brokers take their preferred leaderships back while the producer writes.
      'auto.leader.rebalance.enable': true,
      'leader.imbalance.check.interval.seconds': 2,
      'leader.imbalance.per.broker.percentage': 0,
    },
  });
});
after(async () => {
  await cluster?.close();
});

const say = (s: string) => process.stdout.write(`# ${s}\n`);
const port = (id: number) => cluster.broker(id).port!;
const anyRunning = () => cluster.nodeIds.find((id) => cluster.broker(id).running)!;

async function createTopic(
  name: string,
  replicaAssignment: Record<number, number[]>,
  configs: Record<string, string>,
): Promise<void> {
  const admin = new Admin({ bootstrapServers: cluster.bootstrap() });
  try {
    await admin.createTopics([{ name, replicaAssignment, configs }]);
  } finally {
    await admin.close();
  }
  await waitForFullIsr(cluster, [name]);
}

/** Every value of the partition from its start to its end offset (as numbers). */
async function readAll(topic: string, partition: number): Promise<string[]> {
  const consumer = new Consumer({ bootstrapServers: cluster.bootstrap(), autoOffsetReset: 'earliest' });
  try {
    const tp = { topic, partition };
    consumer.assign([tp]);
    const [end] = await consumer.endOffsets([tp]);
    const out: string[] = [];
    const ms = scaled(60_000);
    const deadline = Date.now() + ms;
    while ((await consumer.position(tp)) < end!) {
      if (Date.now() > deadline) throw new TestTimeoutError(`${topic}-${partition} read to ${end}`, ms);
      for (const r of await consumer.poll(500)) out.push(r.value!.toString());
    }
    return out;
  } finally {
    await consumer.close();
  }
}

test('idempotent producer: leaders killed -9 and moved back while writing, every acknowledged record once and in order', {
  timeout: scaled(400_000),
}, async () => {
  const topic = 'idem';
  await createTopic(topic, { 0: [1, 2, 3], 1: [2, 3, 1] }, { 'min.insync.replicas': '2' });
  const producer = new Producer({
    bootstrapServers: cluster.bootstrap(),
    acks: 'all',
    enableIdempotence: true,
    maxInFlightRequestsPerConnection: 5,
    lingerMs: 2,
    batchSize: 2048,
    requestTimeoutMs: 10_000,
    deliveryTimeoutMs: scaled(240_000),
    retryBackoffMs: 50,
  });
  const acked: number[][] = [[], []];
  const failed: string[] = [];
  let next = 0;
  let writing = true;
  const writer = (async () => {
    const outstanding = new Set<Promise<void>>();
    while (writing) {
      const n = next++;
      const partition = n % 2;
      const p = producer
        .send({ topic, partition, value: String(n) })
        .then(
          () => {
            acked[partition]!.push(n);
          },
          (err: Error) => {
            failed.push(`${n}: ${err.message}`);
          },
        )
        .finally(() => outstanding.delete(p));
      outstanding.add(p);
      if (outstanding.size >= 200) await Promise.race(outstanding);
      if (n % 50 === 0) await sleep(5);
    }
    await Promise.all(outstanding);
  })();
  try {
    const progress = async (what: string, more: number) => {
      const target = acked[0]!.length + acked[1]!.length + more;
      await waitFor(
        what,
        () => acked[0]!.length + acked[1]!.length >= target,
        120_000,
        () => `acked ${acked[0]!.length + acked[1]!.length}, failed ${failed.length}`,
      );
    };
    await progress('records acknowledged before the faults', 500);
    for (const partition of [0, 1]) {
      const view = await viewOf(port(anyRunning()));
      const leader = leaderOf(view, topic, partition);
      say(`kill -9 of broker ${leader}, leader of ${topic}-${partition}`);
      await killAndRestart(cluster, leader, SESSION_MS, () =>
        progress(`writes after losing broker ${leader}`, 300),
      );
      await progress(`writes after broker ${leader} came back`, 300);
      // The preferred leaders (1 for partition 0, 2 for partition 1) take their partitions back.
      await waitForViews(
        cluster,
        'preferred leaders restored',
        (v) => leaderOf(v, topic, 0) === 1 && leaderOf(v, topic, 1) === 2,
        120_000,
      );
      await progress('writes after the preferred leader moved back', 300);
    }
  } finally {
    writing = false;
    await writer;
    await producer.close();
  }
  say(`acknowledged ${acked[0]!.length + acked[1]!.length} records, ${failed.length} failed`);
  assert.deepEqual(failed, [], 'nothing fails within delivery.timeout.ms');
  for (const partition of [0, 1]) {
    const stored = (await readAll(topic, partition)).map(Number);
    const sorted = [...stored].sort((a, b) => a - b);
    assert.deepEqual(stored, sorted, `${topic}-${partition} in send order`);
    assert.equal(new Set(stored).size, stored.length, `${topic}-${partition} without duplicates`);
    const have = new Set(stored);
    const missing = acked[partition]!.filter((n) => !have.has(n));
    assert.deepEqual(missing, [], `${topic}-${partition}: every acknowledged record stored`);
  }
});

test('consumers above a truncated log: none raises LogTruncationError, earliest/latest go back to the divergent offset', {
  timeout: scaled(400_000),
}, async () => {
  const topic = 'trunc';
  // The leader is the controller, so the ISR shrink it proposes while the others are frozen
  // is applied, and the high watermark moves over the records only it has.
  const controller = (await viewOf(port(anyRunning()))).controllerId;
  const others = cluster.nodeIds.filter((id) => id !== controller);
  await createTopic(topic, { 0: [controller, ...others] }, { 'unclean.leader.election.enable': 'true' });
  const tp = { topic, partition: 0 };

  const first = await rawProduce(
    port(controller),
    topic,
    0,
    -1,
    Array.from({ length: 10 }, (_, i) => `old-${i}`),
  );
  assert.equal(first.errorCode, 0);

  const consumers = (['none', 'earliest', 'latest'] as const).map(
    (reset) =>
      new Consumer({
        bootstrapServers: cluster.bootstrap(),
        autoOffsetReset: reset,
        retryBackoffMs: 100,
        requestTimeoutMs: 10_000,
      }),
  );
  const pollUntil = async (c: Consumer, what: string, done: (values: string[]) => boolean) => {
    const seen: string[] = [];
    const ms = scaled(90_000);
    const deadline = Date.now() + ms;
    while (!done(seen)) {
      if (Date.now() > deadline) throw new TestTimeoutError(what, ms, `got ${seen.join(',')}`);
      for (const r of await c.poll(300)) seen.push(`${r.offset}:${r.value}`);
    }
    return seen;
  };
  let frozen = false;
  let leaderDead = false;
  try {
    for (const c of consumers) {
      c.assign([tp]);
      c.seek(tp, 0);
    }
    for (const c of consumers) await pollUntil(c, 'the first records read', (v) => v.length >= 10);

    for (const id of others) cluster.pause(id);
    frozen = true;
    // Written only once the followers are out of the ISR: by then their parked fetches expired,
    // and no fetch answer with these records waits in a frozen follower's socket buffer (it
    // would be applied on waking, after the leader died).
    await waitForViews(
      cluster,
      'the frozen followers out of the ISR',
      (v) => v.topics.get(topic)?.[0]?.isr.length === 1,
      60_000,
      [controller],
    );
    const lost = await rawProduce(
      port(controller),
      topic,
      0,
      1,
      Array.from({ length: 10 }, (_, i) => `lost-${i}`),
    );
    assert.equal(lost.errorCode, 0);
    // With the leader alone in the ISR the high watermark reaches 20: every consumer reads it.
    for (const c of consumers) await pollUntil(c, 'the acks=1 records read', (v) => v.length >= 10);
    for (const c of consumers) assert.equal(await c.position(tp), 20n);

    say(`kill -9 of broker ${controller} (leader and controller), then the frozen followers wake`);
    await cluster.kill(controller);
    leaderDead = true;
    for (const id of others) cluster.resume(id);
    frozen = false;
    // The woken brokers answer metadata before they accept writes as leader: retry until one does.
    let fresh = { errorCode: -1, baseOffset: -1n };
    await waitFor(
      'records written to an unclean leader among the woken followers',
      async () => {
        const views = await waitForViews(
          cluster,
          'an unclean leader among the woken followers',
          (v) => others.includes(leaderOf(v, topic, 0)),
          SESSION_MS + 120_000,
          others,
        );
        const newLeader = leaderOf(views.get(others[0]!)!, topic, 0);
        const values = Array.from({ length: 5 }, (_, i) => `new-${i}`);
        fresh = await rawProduce(port(newLeader), topic, 0, 1, values).catch(() => fresh);
        if (fresh.errorCode === 0) say(`new leader ${newLeader}`);
        return fresh.errorCode === 0;
      },
      120_000,
      () => `last error ${fresh.errorCode}`,
    );
    assert.equal(fresh.errorCode, 0);
    assert.equal(fresh.baseOffset, 10n, 'the new leader lacks the acks=1 records');

    const [none, earliest, latest] = consumers;
    const ms = scaled(90_000);
    const deadline = Date.now() + ms;
    let raised: unknown = null;
    while (raised === null) {
      if (Date.now() > deadline)
        throw new TestTimeoutError('LogTruncationError with auto.offset.reset=none', ms);
      try {
        const got = await none!.poll(300);
        assert.deepEqual(got, [], 'nothing read past a truncation');
      } catch (err) {
        raised = err;
      }
    }
    assert.ok(raised instanceof LogTruncationError, String(raised));
    assert.deepEqual(
      raised.truncations.map((t) => [t.topic, t.partition, t.offset, t.divergentOffset]),
      [[topic, 0, 20n, 10n]],
    );
    assert.match(raised.message, /trunc-0 at offset 20 .*divergent offset 10/);
    say(raised.message);

    for (const c of [earliest!, latest!]) {
      const read = await pollUntil(c, 'the records written after the failover', (v) => v.length >= 5);
      assert.deepEqual(read, ['10:new-0', '11:new-1', '12:new-2', '13:new-3', '14:new-4']);
    }
    // The stopped consumer resumes where the application seeks it (the divergent offset).
    none!.seek(tp, raised.truncations[0]!.divergentOffset!);
    assert.equal((await pollUntil(none!, 'reads after the seek', (v) => v.length >= 5))[0], '10:new-0');
  } finally {
    if (frozen) for (const id of others) cluster.resume(id);
    for (const c of consumers) await c.close();
    if (leaderDead) await cluster.restart(controller);
  }
});
