// The delay queue end to end against a real broker: records due at various times (delays equal to
// a level, sums of levels, and in between; deliverAt in absolute time) reach their target no
// earlier than due, in send order per key and delay, exactly once — also across a scheduler
// SIGKILLed in the middle of hand-offs and restarted. Lateness is measured and reported; an
// undisturbed scheduler is held to the precision docs/patterns/delay-queues.md documents (times a
// generous factor), a killed or frozen one only to a liveness bound. While every record waits
// the scheduler sleeps: the broker's metrics show no level record read twice and fetches at the
// long-poll rate only. Also: a missing level topic, and a record without routing headers
// (skipped, the others still delivered).
import assert from 'node:assert/strict';
import { performance } from 'node:perf_hooks';
import { after, before, test } from 'node:test';
import { Consumer } from '../../../src/client/consumer/consumer.js';
import { DELIVER_AT_HEADER, DelayQueue } from '../../../src/client/patterns/delay-queue.js';
import { startDelayScheduler } from '../../../src/client/patterns/delay-scheduler.js';
import { TopicSetupError } from '../../../src/client/patterns/pattern-topics.js';
import { Producer } from '../../../src/client/producer/producer.js';
import type { TestBroker } from '../../../src/testkit/index.js';
import { parsePrometheusText } from '../../support/prometheus-text.js';
import { scaled } from '../../support/timeouts.js';
import { broker, createTopic } from '../consumer/support.js';
import { spawnModule } from './crash-support.js';
import { countUncommitted, readKcat } from './fan-out-support.js';
import { until } from './support.js';

const CHILD = 'test/client/patterns/delay-scheduler-child.ts';
/**
 * How late a record may arrive when the scheduler was killed or frozen meanwhile, before the test
 * calls it lost: a liveness bound, not precision.
 */
const LIVENESS_MS = 30_000;
/**
 * The precision docs/patterns/delay-queues.md#precision documents: the worst p99 lateness it
 * reports on the shared 2-core machine (load 40-48), for delays that are a level or a sum of
 * levels, and for delays in between (those add up to the smallest level, 1 s in these tests).
 */
const DOCUMENTED_P99_MS = { onLevels: 4_700, inBetween: 6_700 };
/**
 * An undisturbed scheduler delivers every record within this many times the documented p99
 * (scaled by SAMSA_TEST_TIMEOUT_SCALE): never fails for load, catches minutes of lateness.
 */
const PRECISION_FACTOR = 3;
const precisionBound = (onLevels: boolean): number =>
  scaled(PRECISION_FACTOR * (onLevels ? DOCUMENTED_P99_MS.onLevels : DOCUMENTED_P99_MS.inBetween));
/** Fetch requests per second an idle scheduler may send: its long poll allows 1000 / 100 ms. */
const IDLE_FETCHES_PER_SECOND = 20;
/** poll() calls per second of an idle scheduler: it wakes every 500 ms, or when a record comes. */
const IDLE_POLLS_PER_SECOND = 20;

let b: TestBroker;
before(async () => {
  b = await broker({ 'transaction.state.log.num.partitions': 3, 'http.listener': '127.0.0.1:0' });
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

/**
 * Exactly once, never early, no later than `lateBoundMs(value)`, and in send order per key and
 * delay (in target offset order).
 */
function checkArrivals(
  arrivals: readonly Arrival[],
  expected: number,
  lateBoundMs: (value: string) => number = () => scaled(LIVENESS_MS),
): void {
  const byValue = new Map<string, Arrival>();
  for (const a of arrivals) {
    assert.ok(!byValue.has(a.value), `${a.value} delivered twice`);
    byValue.set(a.value, a);
    assert.ok(Number.isFinite(a.deliverAt), `${a.value} has its due time`);
    assert.ok(
      a.arrivedAt >= a.deliverAt,
      `${a.value} arrived ${a.deliverAt - a.arrivedAt} ms before it was due`,
    );
    const bound = lateBoundMs(a.value);
    assert.ok(
      a.arrivedAt - a.deliverAt <= bound,
      `${a.value} was ${a.arrivedAt - a.deliverAt} ms late (bound ${bound} ms)`,
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

/** The delays of the first test that are a level or a sum of levels (1 s and 4 s). */
const ON_LEVELS = ['1000', '4000', '5000', '9000'];

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
  checkArrivals(reader.arrivals, expected, (value) => precisionBound(ON_LEVELS.includes(parse(value).delay)));
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
    `lateness at the reader, delays that are sums of levels: ${lateness((d) => ON_LEVELS.includes(d))}`,
  );
  t.diagnostic(
    `lateness at the reader, delays in between: ${lateness((d) => !ON_LEVELS.includes(d) && d !== '0')}`,
  );
  t.diagnostic(`scheduler: ${JSON.stringify(stats)}`);
});

/**
 * Consumer.poll() calls in this process while `during` runs — the scheduler's, when it is the
 * only consumer here: a loop that wakes up to look at records that are not due shows up here
 * even when it sends no request.
 */
async function countPolls(during: () => Promise<unknown>): Promise<number> {
  const poll = Consumer.prototype.poll;
  let calls = 0;
  Consumer.prototype.poll = function (this: Consumer, timeoutMs: number) {
    calls++;
    return poll.call(this, timeoutMs);
  };
  try {
    await during();
  } finally {
    Consumer.prototype.poll = poll;
  }
  return calls;
}

/** The broker's Fetch requests so far and record bytes fetched from `topic` (its /metrics). */
async function fetchCounters(topic: string): Promise<{ fetches: number; bytesOut: number }> {
  const res = await fetch(`http://127.0.0.1:${b.http!.port}/metrics`);
  assert.equal(res.status, 200);
  const { samples } = parsePrometheusText(await res.text());
  let fetches = 0;
  let bytesOut = 0;
  for (const x of samples) {
    // FetchConsumer: Kafka's request name for a consumer's Fetch.
    if (x.name === 'kafka_network_requestmetrics_requests_total' && x.labels.request?.startsWith('Fetch'))
      fetches += x.value;
    if (x.name === 'kafka_server_brokertopicmetrics_bytesout_total' && x.labels.topic === topic)
      bytesOut += x.value;
  }
  return { fetches, bytesOut };
}

test('while every record waits the scheduler sleeps: no record read twice, fetches at the long-poll rate; then on time', {
  timeout: scaled(240_000),
}, async (t) => {
  const queue = new DelayQueue({ name: 'dp', levels: [1000, 30_000] });
  await queue.createTopics({ bootstrapServers: b.bootstrap }, { partitions: 2 });
  await createTopic(b, 'dp-out', 2);
  const scheduler = await startDelayScheduler(queue, { bootstrapServers: b.bootstrap, group: 'dp-sched' });
  const total = 200;
  let reader: Reader | undefined;
  try {
    // 31 s = 30 s + 1 s: every record waits in the 30 s level first, and nothing is due before.
    const producer = new Producer({ bootstrapServers: b.bootstrap });
    const sentAt = Date.now();
    try {
      await Promise.all(
        Array.from({ length: total }, (_, i) =>
          producer.send(
            queue.delayed({
              topic: 'dp-out',
              key: `k${i % 10}`,
              value: `31000/k${i % 10}/${i}`,
              delayMs: 31_000,
            }),
          ),
        ),
      );
    } finally {
      await producer.close();
    }
    await until(
      () => scheduler.stats().waiting === total,
      60_000,
      `the scheduler to hold all ${total} records`,
    );
    // Nothing but the scheduler talks to the broker now. Watch it until 2 s before the first
    // record is due (at most 5 s).
    const windowMs = Math.min(5000, sentAt + 30_000 - 2000 - Date.now());
    assert.ok(
      windowMs >= 1000,
      `timed out: the scheduler took ${Date.now() - sentAt} ms to read ${total} records`,
    );
    const before = await fetchCounters('dp-delay-30s');
    assert.ok(before.bytesOut > 0 && before.fetches > 0, 'the broker counted the records fetched once');
    const from = Date.now();
    const loopBefore = performance.eventLoopUtilization();
    const polls = await countPolls(() => new Promise((r) => setTimeout(r, windowMs)));
    const loop = performance.eventLoopUtilization(loopBefore);
    const after = await fetchCounters('dp-delay-30s');
    const seconds = (Date.now() - from) / 1000;
    const stats = scheduler.stats();
    assert.equal(stats.delivered + stats.forwarded, 0, 'nothing was due in the window');
    assert.equal(stats.waiting, total);
    assert.equal(after.bytesOut, before.bytesOut, 'no waiting record was fetched again');
    const rate = (after.fetches - before.fetches) / seconds;
    t.diagnostic(
      `${after.fetches - before.fetches} Fetch requests (${rate.toFixed(1)}/s) and ${polls} poll() calls in ${seconds.toFixed(1)} s while ${total} records waited in ${stats.pausedPartitions} paused partitions; event loop ${(loop.utilization * 100).toFixed(1)}% busy`,
    );
    assert.ok(rate < IDLE_FETCHES_PER_SECOND, `busy polling: ${rate.toFixed(1)} Fetch requests/s`);
    assert.ok(
      polls / seconds < IDLE_POLLS_PER_SECOND,
      `busy polling: ${(polls / seconds).toFixed(1)} poll() calls/s`,
    );

    reader = new Reader('dp-out', 2);
    await reader.ready('dp-out', 2);
    await until(() => reader!.arrivals.length >= total, 120_000, `all ${total} records delivered`);
    await new Promise((r) => setTimeout(r, 500));
  } finally {
    await reader?.close();
    await scheduler.stop();
  }
  checkArrivals(reader.arrivals, total, () => precisionBound(true));
  t.diagnostic(
    `lateness at the reader: ${percentiles(reader.arrivals.map((a) => a.arrivedAt - a.deliverAt))}`,
  );
});

test('a scheduler SIGKILLed mid-way and restarted: every record exactly once, none early', {
  timeout: scaled(300_000),
}, async (t) => {
  const queue = new DelayQueue({ name: 'dr', levels: [1000, 4000] });
  await queue.createTopics({ bootstrapServers: b.bootstrap }, { partitions: 2 });
  await createTopic(b, 'dr-out', 2);
  const child = () => spawnModule(CHILD, [b.bootstrap, 'dr', '1000,4000', 'dr-sched']);
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
  const zombie = spawnModule(CHILD, [b.bootstrap, 'dz', '1000,4000', 'dz-sched']);
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
