// The delay queue end to end against a real broker: records due at various times (delays equal to
// a level, sums of levels, and in between; deliverAt in absolute time) reach their target no
// earlier than due, in send order per key and delay, exactly once — also across a scheduler
// SIGKILLed in the middle of hand-offs and restarted. Lateness is measured and reported, and
// asserted only against a generous liveness bound. Also: a missing level topic, and a record
// without routing headers (skipped, the others still delivered).
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { after, before, test } from 'node:test';
import { Consumer } from '../../../src/client/consumer/consumer.js';
import { DELIVER_AT_HEADER, DelayQueue } from '../../../src/client/patterns/delay-queue.js';
import { startDelayScheduler } from '../../../src/client/patterns/delay-scheduler.js';
import { TopicSetupError } from '../../../src/client/patterns/pattern-topics.js';
import { Producer } from '../../../src/client/producer/producer.js';
import type { TestBroker } from '../../../src/testkit/index.js';
import { Proc } from '../../broker/txn/interop-support.js';
import { LOADER_FLAGS, moduleFile } from '../../support/repo.js';
import { scaled } from '../../support/timeouts.js';
import { broker, createTopic } from '../consumer/support.js';
import { countUncommitted, readKcat } from './fan-out-support.js';
import { until } from './support.js';

const CHILD = moduleFile('test/client/patterns/delay-scheduler-child.ts');
/** How late a record may arrive before the test calls it lost: a liveness bound, not precision. */
const LIVENESS_MS = 30_000;

let b: TestBroker;
before(async () => {
  b = await broker({ 'transaction.state.log.num.partitions': 3 });
});
after(async () => {
  await b?.close();
});

interface Arrival {
  value: string;
  partition: number;
  offset: bigint;
  deliverAt: number;
  arrivedAt: number;
}

/** Reads a target topic from its beginning as records become visible (read_committed). */
class Reader {
  readonly arrivals: Arrival[] = [];
  readonly #c: Consumer;
  #stopped = false;
  readonly #loop: Promise<void>;

  constructor(topic: string, partitions: number) {
    const c = new Consumer({
      bootstrapServers: b.bootstrap,
      isolationLevel: 'read_committed',
      fetchMaxWaitMs: 50,
    });
    this.#c = c;
    const tps = Array.from({ length: partitions }, (_, partition) => ({ topic, partition }));
    c.assign(tps);
    c.seekToBeginning(tps);
    this.#loop = (async () => {
      while (!this.#stopped) {
        const records = await c.poll(100);
        const arrivedAt = Date.now();
        for (const r of records)
          this.arrivals.push({
            value: r.value!.toString(),
            partition: r.partition,
            offset: r.offset,
            deliverAt: Number(r.headers.find((h) => h.key === DELIVER_AT_HEADER)?.value?.toString()),
            arrivedAt,
          });
      }
    })();
  }

  /** The partitions' positions are known: what is delivered from now on is seen as it comes. */
  async ready(topic: string, partitions: number): Promise<void> {
    for (let partition = 0; partition < partitions; partition++) await this.#c.position({ topic, partition });
  }

  async close(): Promise<void> {
    this.#stopped = true;
    await this.#loop;
    await this.#c.close();
  }
}

/** Values `D/key/seq`: records of one key and delay, numbered in the order they were sent. */
function parse(value: string): { delay: string; key: string; seq: number } {
  const [delay, key, seq] = value.split('/');
  return { delay: delay!, key: key!, seq: Number(seq) };
}

/** Exactly once, never early, live, and in send order per key and delay (in target offset order). */
function checkArrivals(arrivals: readonly Arrival[], expected: number): void {
  const byValue = new Map<string, Arrival>();
  for (const a of arrivals) {
    assert.ok(!byValue.has(a.value), `${a.value} delivered twice`);
    byValue.set(a.value, a);
    assert.ok(Number.isFinite(a.deliverAt), `${a.value} has its due time`);
    assert.ok(
      a.arrivedAt >= a.deliverAt,
      `${a.value} arrived ${a.deliverAt - a.arrivedAt} ms before it was due`,
    );
    assert.ok(
      a.arrivedAt - a.deliverAt <= scaled(LIVENESS_MS),
      `${a.value} was ${a.arrivedAt - a.deliverAt} ms late`,
    );
  }
  assert.equal(byValue.size, expected);
  const last = new Map<string, { seq: number; offset: bigint }>();
  for (const a of [...arrivals].sort((x, y) => x.partition - y.partition || Number(x.offset - y.offset))) {
    const { delay, key, seq } = parse(a.value);
    const k = `${delay}/${key}`;
    const prev = last.get(k);
    assert.ok(prev === undefined || prev.seq < seq, `${k}: #${seq} delivered after #${prev?.seq}`);
    last.set(k, { seq, offset: a.offset });
  }
}

function percentiles(values: number[]): string {
  const s = [...values].sort((x, y) => x - y);
  const at = (q: number) => s[Math.min(s.length - 1, Math.floor(q * s.length))];
  return `p50 ${at(0.5)} ms, p99 ${at(0.99)} ms, max ${s.at(-1)} ms (${s.length} records)`;
}

test('records arrive no earlier than due, in order per key and delay, exactly once', {
  timeout: scaled(240_000),
}, async (t) => {
  const queue = new DelayQueue({ name: 'dq', levels: [1000, 4000] });
  assert.deepEqual(await queue.createTopics({ bootstrapServers: b.bootstrap }, { partitions: 2 }), [
    'dq-delay-1s',
    'dq-delay-4s',
  ]);
  assert.deepEqual(
    await queue.createTopics({ bootstrapServers: b.bootstrap }, { partitions: 2 }),
    [],
    'created once',
  );
  await createTopic(b, 'dq-out', 3);
  const scheduler = await startDelayScheduler(queue, { bootstrapServers: b.bootstrap, group: 'dq-sched' });
  const reader = new Reader('dq-out', 3);
  await reader.ready('dq-out', 3);
  const producer = new Producer({ bootstrapServers: b.bootstrap, lingerMs: 0 });
  // Delays equal to a level or a sum of levels (1000, 4000, 5000, 9000), in between (300, 1700,
  // 6300), and none (0: straight to the target).
  const delays = [0, 300, 1000, 1700, 4000, 5000, 6300, 9000];
  const keys = ['k0', 'k1', 'k2', 'k3'];
  let expected = 0;
  try {
    for (let seq = 0; seq < 4; seq++) {
      const sends: Promise<unknown>[] = [];
      for (const d of delays)
        for (const key of keys) {
          sends.push(
            producer.send(queue.delayed({ topic: 'dq-out', key, value: `${d}/${key}/${seq}`, delayMs: d })),
          );
          expected++;
        }
      const at = new Date(Date.now() + 2500);
      sends.push(
        producer.send(queue.delayed({ topic: 'dq-out', key: 'abs', value: `at/abs/${seq}`, deliverAt: at })),
      );
      expected++;
      await Promise.all(sends);
      await new Promise((r) => setTimeout(r, 37));
    }
    await until(() => reader.arrivals.length >= expected, 60_000, `${expected} records delivered`);
    // Anything delivered twice would show up within a few more polls.
    await new Promise((r) => setTimeout(r, 500));
  } finally {
    await producer.close();
    await reader.close();
  }
  const stats = scheduler.stats();
  await scheduler.stop();
  checkArrivals(reader.arrivals, expected);
  assert.equal(
    stats.delivered,
    expected - keys.length * 4,
    'all but the undelayed ones went through the scheduler',
  );
  assert.equal(stats.invalid, 0);
  assert.ok(stats.latenessMs.max >= 0);
  const lateness = (pick: (d: string) => boolean) =>
    percentiles(
      reader.arrivals.filter((a) => pick(parse(a.value).delay)).map((a) => a.arrivedAt - a.deliverAt),
    );
  t.diagnostic(
    `lateness at the reader, delays that are sums of levels: ${lateness((d) => ['1000', '4000', '5000', '9000'].includes(d))}`,
  );
  t.diagnostic(
    `lateness at the reader, delays in between: ${lateness((d) => ['300', '1700', '6300', 'at'].includes(d))}`,
  );
  t.diagnostic(`scheduler: ${JSON.stringify(stats)}`);
});

test('a scheduler SIGKILLed mid-way and restarted: every record exactly once, none early', {
  timeout: scaled(300_000),
}, async (t) => {
  const queue = new DelayQueue({ name: 'dr', levels: [1000, 4000] });
  await queue.createTopics({ bootstrapServers: b.bootstrap }, { partitions: 2 });
  await createTopic(b, 'dr-out', 2);
  const child = () =>
    new Proc(
      spawn(process.execPath, [...LOADER_FLAGS, CHILD, b.bootstrap, 'dr', '1000,4000', 'dr-sched'], {
        stdio: ['ignore', 'pipe', 'pipe'],
      }),
    );
  const first = child();
  const reader = new Reader('dr-out', 2);
  const producer = new Producer({ bootstrapServers: b.bootstrap });
  const total = 3000;
  try {
    await first.waitLine((l) => l === 'ready', 120_000);
    await reader.ready('dr-out', 2);
    // Most records become due together, so the scheduler hands them off in many transactions.
    const sends: Promise<unknown>[] = [];
    for (let i = 0; i < total; i++) {
      const delay = [1000, 1500, 4000, 5500][i % 4]!;
      const key = `k${Math.floor(i / 4) % 25}`;
      sends.push(
        producer.send(queue.delayed({ topic: 'dr-out', key, value: `${delay}/${key}/${i}`, delayMs: delay })),
      );
    }
    await Promise.all(sends);
    await until(() => reader.arrivals.length >= 300, 120_000, 'the first scheduler delivered 300 records');
  } finally {
    await first.kill('SIGKILL');
  }
  const beforeKill = reader.arrivals.length;
  assert.ok(beforeKill < total, 'killed before the end');
  // Records fall due while no scheduler runs; the next one delivers them (late, never early).
  await new Promise((r) => setTimeout(r, 1000));
  const second = await startDelayScheduler(queue, { bootstrapServers: b.bootstrap, group: 'dr-sched' });
  try {
    await until(() => reader.arrivals.length >= total, 120_000, `all ${total} records delivered`);
    await new Promise((r) => setTimeout(r, 500));
  } finally {
    await producer.close();
    await reader.close();
    await second.stop();
  }
  checkArrivals(reader.arrivals, total);
  const kcat = await readKcat(b.bootstrap, 'dr-out');
  assert.equal(kcat.length, total, 'kcat (read_committed) sees every record once');
  assert.equal(new Set(kcat.map((r) => r.value)).size, total);
  const aborted = (await countUncommitted(b.bootstrap, 'dr-out')) - total;
  t.diagnostic(`${beforeKill} delivered before the kill; ${aborted} aborted records in the target's log`);
});

test('a frozen scheduler replaced by a new one is fenced when it wakes: no record twice', {
  timeout: scaled(300_000),
}, async (t) => {
  const queue = new DelayQueue({ name: 'dz', levels: [1000, 4000] });
  await queue.createTopics({ bootstrapServers: b.bootstrap }, { partitions: 2 });
  await createTopic(b, 'dz-out', 2);
  const zombie = new Proc(
    spawn(process.execPath, [...LOADER_FLAGS, CHILD, b.bootstrap, 'dz', '1000,4000', 'dz-sched'], {
      stdio: ['ignore', 'pipe', 'pipe'],
    }),
  );
  const reader = new Reader('dz-out', 2);
  const producer = new Producer({ bootstrapServers: b.bootstrap });
  const total = 2000;
  let second: Awaited<ReturnType<typeof startDelayScheduler>> | undefined;
  try {
    await zombie.waitLine((l) => l === 'ready', 120_000);
    await reader.ready('dz-out', 2);
    const sends: Promise<unknown>[] = [];
    for (let i = 0; i < total; i++) {
      const delay = [1000, 2500, 4000][i % 3]!;
      const key = `k${Math.floor(i / 3) % 20}`;
      sends.push(
        producer.send(queue.delayed({ topic: 'dz-out', key, value: `${delay}/${key}/${i}`, delayMs: delay })),
      );
    }
    await Promise.all(sends);
    await until(() => reader.arrivals.length >= 200, 120_000, 'the first scheduler delivered 200 records');
    // Frozen wherever it is (possibly inside a transaction), as a process stuck in a long GC
    // pause or a suspended VM would be; a new scheduler takes over meanwhile.
    zombie.child.kill('SIGSTOP');
    second = await startDelayScheduler(queue, { bootstrapServers: b.bootstrap, group: 'dz-sched' });
    zombie.child.kill('SIGCONT');
    assert.equal(await zombie.exited, 1, 'the woken scheduler stops');
    assert.match(
      zombie.stderr,
      /FencedError: fenced: another instance started with transactional\.id dz-sched:scheduler/,
    );
    await until(() => reader.arrivals.length >= total, 120_000, `all ${total} records delivered`);
    await new Promise((r) => setTimeout(r, 500));
  } finally {
    await zombie.kill('SIGKILL');
    await producer.close();
    await reader.close();
    await second?.stop();
  }
  checkArrivals(reader.arrivals, total);
  const aborted = (await countUncommitted(b.bootstrap, 'dz-out')) - total;
  t.diagnostic(`${aborted} aborted records in the target's log`);
});

test('a missing level topic is refused; records that cannot be delivered are skipped, the others not held up', {
  timeout: scaled(120_000),
}, async () => {
  const missing = new DelayQueue({ name: 'dm', levels: [1000] });
  await assert.rejects(
    startDelayScheduler(missing, { bootstrapServers: b.bootstrap }),
    (e: unknown) =>
      e instanceof TopicSetupError && /level topic 'dm-delay-1s' does not exist/.test(e.message),
  );
  const queue = new DelayQueue({ name: 'di', levels: [500] });
  await queue.createTopics({ bootstrapServers: b.bootstrap }, { partitions: 1 });
  await createTopic(b, 'di-out', 2);
  const producer = new Producer({ bootstrapServers: b.bootstrap });
  // Written by hand: no routing headers. Then a target that does not exist, a partition past the
  // target's end, and a good record behind them all in the same level partition.
  await producer.send({ topic: 'di-delay-500ms', value: 'written by hand' });
  await producer.send(queue.delayed({ topic: 'di-nowhere', value: 'lost', delayMs: 600 }));
  await producer.send(
    queue.delayed({ topic: 'di-out', partition: 7, value: 'no such partition', delayMs: 600 }),
  );
  await producer.send(queue.delayed({ topic: 'di-out', partition: 1, value: 'fine', delayMs: 600 }));
  await producer.close();
  const warnings: string[] = [];
  const scheduler = await startDelayScheduler(queue, {
    bootstrapServers: b.bootstrap,
    logger: (level, message, fields) => {
      if (level === 'warn') warnings.push(`${message}: ${String(fields?.reason)}`);
    },
  });
  assert.equal(scheduler.group, 'di-delay-scheduler');
  await until(() => scheduler.stats().delivered === 1, 60_000, 'the valid record delivered');
  await scheduler.stop();
  assert.equal(scheduler.stats().invalid, 3);
  assert.equal(scheduler.stats().aborted, 0, 'no transaction failed on their account');
  const text = warnings.join('\n');
  assert.match(text, /cannot be delivered: no samsa-delay-topic header/);
  assert.match(text, /cannot be delivered: target topic di-nowhere does not exist/);
  assert.match(text, /cannot be delivered: target partition 7 does not exist \(di-out has 2\)/);
  const out = await readKcat(b.bootstrap, 'di-out');
  assert.deepEqual(
    out.map((r) => [r.partition, r.value]),
    [[1, 'fine']],
  );
});
