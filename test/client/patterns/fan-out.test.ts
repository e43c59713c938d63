// fanOut() against a real broker: a 2-partition topic copied into 6 partitions record by record
// (every record once, each key on murmur2(key) % 6, per-key order, headers and timestamps kept),
// read back with read_committed by our consumer, kcat and confluent-kafka-python — with the first
// bridge abandoned mid-stream (no stop(), a transaction open) while a second one with the same
// group takes over and fences it. Also: keyless round-robin, and the refusals (missing source,
// a target with another partition count, bad options).
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { ConfigError } from '../../../src/client/errors.js';
import { fanOut } from '../../../src/client/patterns/fan-out.js';
import { TopicSetupError } from '../../../src/client/patterns/pattern-topics.js';
import { FencedError } from '../../../src/client/patterns/transactional-hand-off.js';
import type { TestBroker } from '../../../src/testkit/index.js';
import { scaled } from '../../support/timeouts.js';
import { broker, createTopic } from '../consumer/support.js';
import {
  checkFanOut,
  countUncommitted,
  fillSource,
  readKcat,
  readOurs,
  readPython,
} from './fan-out-support.js';
import { endOffsets, sleep, until } from './support.js';

let b: TestBroker;
before(async () => {
  b = await broker({ 'transaction.state.log.num.partitions': 3 });
});
after(async () => {
  await b?.close();
});

const SHAPE = { keys: 150, keylessEvery: 10 };

test('a bridge abandoned with a transaction open is fenced by its successor: every record once, keyed by murmur2, in order', {
  timeout: scaled(300_000),
}, async (t) => {
  const FIRST = 6000;
  const LIVE = 3000;
  await createTopic(b, 'fo-orders', 2);
  await fillSource(b.bootstrap, 'fo-orders', 0, FIRST, SHAPE);
  const opts = {
    bootstrapServers: b.bootstrap,
    from: 'fo-orders',
    to: 'fo-orders-wide',
    partitions: 6,
    group: 'fo-widen',
    // Longer than the test: the first bridge's transaction stays open until it is fenced.
    transactionTimeoutMs: 600_000,
  };
  const first = await fanOut({ ...opts, commitIntervalMs: 600_000, maxRecordsPerTransaction: 1_000_000 });
  assert.deepEqual(first.info, {
    from: 'fo-orders',
    to: 'fo-orders-wide',
    group: 'fo-widen',
    transactionalId: 'fo-widen:fo-orders',
    sourcePartitions: 2,
    targetPartitions: 6,
    createdTarget: true,
  });
  // Every source record is written into the first bridge's one open transaction: in the log,
  // invisible to read_committed.
  const deadline = Date.now() + scaled(120_000);
  while ((await countUncommitted(b.bootstrap, 'fo-orders-wide')) < FIRST) {
    assert.ok(Date.now() < deadline, 'timed out waiting for the first bridge to write its transaction');
    await sleep(200);
  }
  assert.equal(first.progress().copied, 0, 'nothing committed yet');
  assert.equal((await readKcat(b.bootstrap, 'fo-orders-wide')).length, 0, 'read_committed sees nothing');

  // The first bridge is abandoned, not stopped: the second one's initTransactions aborts the
  // open transaction and fences it. Records keep arriving; the first bridge's next send fails.
  const second = await fanOut({ ...opts, commitIntervalMs: 20, maxRecordsPerTransaction: 500 });
  assert.equal(second.info.createdTarget, false);
  await fillSource(b.bootstrap, 'fo-orders', FIRST, LIVE, SHAPE);
  const firstEnd = await first.done.then(
    () => null,
    (e: unknown) => e,
  );
  assert.ok(firstEnd instanceof FencedError, `the abandoned bridge ends fenced, got ${String(firstEnd)}`);
  assert.match(firstEnd.message, /fo-widen:fo-orders/);
  assert.equal(first.progress().running, false);
  assert.equal(first.progress().copied, 0);

  const ends = await endOffsets(b, 'fo-orders', 2);
  await until(
    () => second.progress().partitions.every((p) => p.committed >= ends.get(p.partition)!),
    180_000,
    'the second bridge copied up to the source end',
  );
  const last = await second.stop();
  assert.equal(last.running, false);
  assert.equal(last.lag, 0);
  const total = FIRST + LIVE;
  assert.equal(last.copied, total);
  const aborted = (await countUncommitted(b.bootstrap, 'fo-orders-wide')) - total;
  assert.ok(
    aborted >= FIRST,
    `the abandoned transaction's ${FIRST}+ records are in the log, aborted (${aborted})`,
  );
  t.diagnostic(
    `${aborted} aborted records in the log, ${last.transactions} transactions by the second bridge`,
  );

  checkFanOut(await readOurs(b.bootstrap, 'fo-orders-wide', 6), total, 6, SHAPE, 'our consumer');
  checkFanOut(await readKcat(b.bootstrap, 'fo-orders-wide'), total, 6, SHAPE, 'kcat');
  checkFanOut(await readPython(b.bootstrap, 'fo-orders-wide', 6), total, 6, SHAPE, 'confluent-kafka-python');
});

test('keyless records round-robin over every target partition; stopAtEnd ends at the start end', {
  timeout: scaled(180_000),
}, async () => {
  const shape = { keys: 10, keylessEvery: 2 };
  await createTopic(b, 'fo-rr', 2);
  await fillSource(b.bootstrap, 'fo-rr', 0, 600, shape);
  const bridge = await fanOut({
    bootstrapServers: b.bootstrap,
    from: 'fo-rr',
    to: 'fo-rr-wide',
    partitions: 5,
    keyless: 'round-robin',
    stopAtEnd: true,
  });
  assert.equal(bridge.info.group, 'samsa-fan-out.fo-rr.fo-rr-wide');
  const last = await bridge.done;
  assert.equal(last.copied, 600);
  assert.equal(last.lag, 0);
  const got = await readOurs(b.bootstrap, 'fo-rr-wide', 5);
  checkFanOut(got, 600, 5, shape, 'our consumer');
  const keylessPerPartition = [0, 0, 0, 0, 0];
  for (const r of got) if (r.key === null) keylessPerPartition[r.partition]!++;
  // 300 keyless records in one run, one per partition in turn: 60 each.
  assert.deepEqual(keylessPerPartition, [60, 60, 60, 60, 60]);

  // A second run of the same group finds nothing left to copy.
  const again = await fanOut({
    bootstrapServers: b.bootstrap,
    from: 'fo-rr',
    to: 'fo-rr-wide',
    partitions: 5,
    stopAtEnd: true,
  });
  assert.equal((await again.done).copied, 0);
});

test('refusals: a missing source, a target with another partition count, bad options', async () => {
  const base = { bootstrapServers: b.bootstrap };
  await assert.rejects(
    fanOut({ ...base, from: 'fo-no-such-topic', to: 'fo-x', partitions: 3 }),
    (e: unknown) =>
      e instanceof TopicSetupError && /source topic 'fo-no-such-topic' does not exist/.test(e.message),
  );
  await createTopic(b, 'fo-src', 1);
  await createTopic(b, 'fo-narrow', 4);
  await assert.rejects(
    fanOut({ ...base, from: 'fo-src', to: 'fo-narrow', partitions: 8 }),
    (e: unknown) => e instanceof TopicSetupError && /exists with 4 partitions, not 8/.test(e.message),
  );
  await assert.rejects(
    fanOut({ ...base, from: 'fo-src', to: 'fo-narrow', partitions: 2 }),
    /exists with 4 partitions, not 2/,
    'more partitions than asked is refused too: keys would not land on murmur2(key) % 2',
  );
  for (const [bad, pattern] of [
    [{ partitions: 0 }, /partitions must be a whole number of 1 or more, got 0/],
    [{ partitions: 2.5 }, /partitions must be a whole number/],
    [{ to: 'fo-src' }, /different topics/],
    [{ to: 'bad name' }, /to must be a topic name/],
    [{ keyless: 'random' }, /keyless must be sticky or round-robin/],
  ] as const) {
    await assert.rejects(
      fanOut({ ...base, from: 'fo-src', to: 'fo-y', partitions: 3, ...(bad as object) }),
      (e: unknown) => e instanceof ConfigError && pattern.test(e.message),
      JSON.stringify(bad),
    );
  }
});
