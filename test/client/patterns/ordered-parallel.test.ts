// OrderedParallelConsumer against a real broker: 5,000 records over 200 keys in 4 partitions with
// random handler delays — every record processed, no key ever out of order or processed twice at
// once, the in-flight bound held, everything committed at close; a second member joining mid-way
// (same checks, per member); handler failures with 'stop' (nothing committed past the record)
// and 'skip' (reported, then passed).
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { Consumer } from '../../../src/client/consumer/consumer.js';
import type { ConsumerRecord } from '../../../src/client/consumer/types.js';
import { OrderedParallelConsumer } from '../../../src/client/patterns/ordered-parallel-consumer.js';
import { RecordProcessingError } from '../../../src/client/patterns/ordered-parallel-options.js';
import type { TestBroker } from '../../../src/testkit/index.js';
import { broker, createTopic } from '../consumer/support.js';
import {
  assertKeyOrder,
  committedOffsets,
  endOffsets,
  id,
  type Processed,
  produceKeyed,
  sleep,
  until,
} from './support.js';

const RECORDS = 5000;
const KEYS = 200;
const PARTITIONS = 4;

let b: TestBroker;
before(async () => {
  b = await broker();
});
after(async () => {
  await b?.close();
});

function consumerOptions(group: string, clientId: string) {
  return {
    bootstrapServers: b.bootstrap,
    groupId: group,
    clientId,
    autoOffsetReset: 'earliest' as const,
    sessionTimeoutMs: 6000,
    heartbeatIntervalMs: 500,
    fetchMaxWaitMs: 100,
    retryBackoffMs: 50,
  };
}

/** Watches a handler: per-key exclusivity across everything it watches, and peak concurrency. */
class Probe {
  readonly busyKeys = new Set<string>();
  running = 0;
  peak = 0;
  overlap: string | null = null;
  enter(r: ConsumerRecord): string {
    const k = `${r.partition}/${r.key!.toString()}`;
    if (this.busyKeys.has(k)) this.overlap ??= `${k} processed twice at once (offset ${r.offset})`;
    this.busyKeys.add(k);
    this.running++;
    this.peak = Math.max(this.peak, this.running);
    return k;
  }
  leave(k: string): void {
    this.busyKeys.delete(k);
    this.running--;
  }
}

test('5,000 records, 200 keys, 4 partitions, random delays: all processed, per-key order kept', async () => {
  const topic = 'opc-e2e';
  await createTopic(b, topic, PARTITIONS);
  await produceKeyed(b, topic, RECORDS, KEYS);
  const probe = new Probe();
  const processed: Processed[] = [];
  let maxHeld = 0;
  const opc = new OrderedParallelConsumer({
    consumer: consumerOptions('opc-e2e', 'opc-e2e'),
    topics: [topic],
    maxConcurrency: 32,
    // Small, so that back-pressure (pause, cut polls) is exercised many times.
    maxInFlightRecords: 100,
    commitIntervalMs: 200,
    handler: async (r) => {
      const k = probe.enter(r);
      await sleep(Math.random() * 3);
      processed.push({ partition: r.partition, offset: r.offset, key: r.key!.toString() });
      probe.leave(k);
    },
  });
  const running = opc.run();
  const sampler = setInterval(() => {
    maxHeld = Math.max(maxHeld, opc.stats().inFlight);
  }, 5);
  try {
    await until(() => processed.length >= RECORDS, 120_000, 'every record processed');
  } finally {
    clearInterval(sampler);
    await opc.close();
  }
  await running;
  assert.equal(probe.overlap, null);
  assert.equal(processed.length, RECORDS, 'each record processed exactly once in a run without faults');
  assert.equal(new Set(processed.map(id)).size, RECORDS);
  assertKeyOrder(processed, 'single run');
  assert.ok(probe.peak > 1, 'records were processed concurrently');
  assert.ok(probe.peak <= 32, `peak concurrency ${probe.peak} above maxConcurrency`);
  assert.ok(maxHeld <= 100, `held ${maxHeld} records, above maxInFlightRecords`);
  assert.deepEqual(
    await committedOffsets(b, 'opc-e2e'),
    await endOffsets(b, topic, PARTITIONS),
    'close() committed everything processed',
  );
});

test('a second member joins mid-way: nothing lost, per-key order kept in each member', async () => {
  const topic = 'opc-rebalance';
  const group = 'opc-rebalance';
  await createTopic(b, topic, PARTITIONS);
  await produceKeyed(b, topic, RECORDS, KEYS);
  // One probe across both members: a key is never processed by both at once, which is what
  // waiting for the revoked partitions' handlers before the revoke completes guarantees.
  const probe = new Probe();
  const runs = new Map<string, Processed[][]>();
  const revoked = new Map<string, number>();
  let closing = false;
  const member = (name: string) => {
    // A new segment each time partitions are assigned: a partition that comes back starts again
    // from the committed offset, which may repeat what this member processed before.
    const segments: Processed[][] = [[]];
    runs.set(name, segments);
    return new OrderedParallelConsumer({
      consumer: consumerOptions(group, name),
      topics: [topic],
      maxConcurrency: 16,
      maxInFlightRecords: 200,
      commitIntervalMs: 200,
      rebalanceListener: {
        onPartitionsAssigned: () => {
          segments.push([]);
        },
        onPartitionsRevoked: (tps) => {
          if (!closing) revoked.set(name, (revoked.get(name) ?? 0) + tps.length);
        },
      },
      handler: async (r) => {
        const k = probe.enter(r);
        await sleep(Math.random() * 5);
        segments.at(-1)!.push({ partition: r.partition, offset: r.offset, key: r.key!.toString() });
        probe.leave(k);
      },
    });
  };
  const count = () => new Set([...runs.values()].flat(2).map(id)).size;
  const a = member('a');
  const aRun = a.run();
  await until(() => count() >= 1500, 60_000, 'member a processed 1,500 records');
  const bMember = member('b');
  const bRun = bMember.run();
  try {
    await until(() => count() >= RECORDS, 120_000, 'every record processed by a or b');
  } finally {
    closing = true;
    await Promise.all([a.close(), bMember.close()]);
  }
  await Promise.all([aRun, bRun]);
  assert.equal(probe.overlap, null);
  for (const [name, segments] of runs)
    for (const [i, seg] of segments.entries()) assertKeyOrder(seg, `member ${name}, assignment ${i}`);
  assert.ok(runs.get('b')!.flat().length > 0, 'member b took part');
  assert.ok((revoked.get('a') ?? 0) > 0, 'partitions moved from a to b while a was working');
  assert.equal(count(), RECORDS);
});

test("onFailure 'stop': run() rejects after the retries, nothing is committed past the record", async () => {
  const topic = 'opc-stop';
  await createTopic(b, topic, 1);
  await produceKeyed(b, topic, 50, 5);
  let attempts = 0;
  const opc = new OrderedParallelConsumer({
    consumer: consumerOptions('opc-stop', 'opc-stop'),
    topics: [topic],
    retry: { retries: 2, backoffMs: 10 },
    handler: async (r) => {
      if (r.offset === 20n) {
        attempts++;
        throw new Error('poison');
      }
    },
  });
  await assert.rejects(opc.run(), (err: unknown) => {
    assert.ok(err instanceof RecordProcessingError);
    assert.equal(err.offset, 20n);
    assert.equal(err.attempts, 3);
    return true;
  });
  assert.equal(attempts, 3);
  const committed = (await committedOffsets(b, 'opc-stop')).get(0);
  assert.ok(committed !== undefined && committed <= 20n, `committed ${committed}, past the failed record`);
});

test("onFailure 'skip': the record is reported, its key goes on in order, everything is committed", async () => {
  const topic = 'opc-skip';
  await createTopic(b, topic, 2);
  await produceKeyed(b, topic, 200, 10);
  const skipped: string[] = [];
  const processed: Processed[] = [];
  let failures = 0;
  const opc = new OrderedParallelConsumer({
    consumer: consumerOptions('opc-skip', 'opc-skip'),
    topics: [topic],
    retry: { retries: 1, backoffMs: 5 },
    onFailure: 'skip',
    onSkip: async (r, _err, n) => {
      skipped.push(`${r.value!.toString()}/${n}`);
    },
    handler: async (r) => {
      // Value 7 fails for good; value 13 fails once and passes on its retry.
      const v = Number(r.value!.toString());
      if (v === 7 || (v === 13 && failures++ === 0)) throw new Error(`bad ${v}`);
      processed.push({ partition: r.partition, offset: r.offset, key: r.key!.toString() });
    },
  });
  const running = opc.run();
  try {
    await until(() => processed.length + skipped.length >= 200, 60_000, 'all 200 records handled');
  } finally {
    await opc.close();
  }
  await running;
  assert.deepEqual(skipped, ['7/2']);
  assert.equal(processed.length, 199);
  assertKeyOrder(processed, 'skip run');
  assert.deepEqual(await committedOffsets(b, 'opc-skip'), await endOffsets(b, topic, 2));
});

test('refuses a consumer that auto commits or has no group', () => {
  const auto = new Consumer({ bootstrapServers: b.bootstrap, groupId: 'x' });
  assert.throws(
    () => new OrderedParallelConsumer({ consumer: auto, topics: ['t'], handler: () => {} }),
    /enableAutoCommit: false/,
  );
  void auto.close();
  assert.throws(
    () =>
      new OrderedParallelConsumer({
        consumer: { bootstrapServers: b.bootstrap },
        topics: ['t'],
        handler: () => {},
      }),
    /needs a groupId/,
  );
});
