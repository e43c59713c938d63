// The delay queue's routing (a pure function) and its producer side, without a broker: the level
// a record waits in, the planned path of a delay (independent of when it is sent), the headers of
// a delayed record, and the refusals.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { ConfigError } from '../../../src/client/errors.js';
import {
  DELAY_PARTITION_HEADER,
  DELAY_TOPIC_HEADER,
  DELAY_UNTIL_HEADER,
  DELIVER_AT_HEADER,
  DelayQueue,
  levelLabel,
  nextHop,
  routingOf,
} from '../../../src/client/patterns/delay-queue.js';

const q = new DelayQueue({ name: 'rq', levels: [60_000, 1000, 10_000] });

/** The levels (ms) a record due `delay` after `start` waits in, and its final until. */
function path(delay: number, start: number): { levels: number[]; last: number } {
  const levels: number[] = [];
  let from = start;
  let last = start;
  for (
    let hop = nextHop(q.levels, start + delay, from);
    hop !== null;
    hop = nextHop(q.levels, start + delay, from)
  ) {
    levels.push(hop.level.delayMs);
    assert.ok(hop.until <= start + delay, 'a level is never left after the due time');
    assert.ok(hop.until > from, 'every hop waits');
    from = hop.until;
    last = hop.until;
  }
  return { levels, last };
}

describe('routing', () => {
  test('levels are sorted and named by their delay', () => {
    assert.deepEqual(
      q.levels.map((l) => [l.delayMs, l.topic]),
      [
        [1000, 'rq-delay-1s'],
        [10_000, 'rq-delay-10s'],
        [60_000, 'rq-delay-1m'],
      ],
    );
    assert.deepEqual([250, 1000, 90_000, 600_000, 7_200_000].map(levelLabel), [
      '250ms',
      '1s',
      '90s',
      '10m',
      '2h',
    ]);
    assert.equal(q.levelOf('rq-delay-10s')?.delayMs, 10_000);
    assert.equal(q.levelOf('rq'), undefined);
  });

  test('the largest level not longer than what is left; the smallest one, until due, for less', () => {
    assert.equal(nextHop(q.levels, 5000, 5000), null);
    assert.equal(nextHop(q.levels, 5000, 6000), null);
    assert.deepEqual(nextHop(q.levels, 5400, 5000), { level: q.levels[0], until: 5400 });
    assert.deepEqual(nextHop(q.levels, 6000, 5000), { level: q.levels[0], until: 6000 });
    assert.deepEqual(nextHop(q.levels, 14_999, 5000), { level: q.levels[0], until: 6000 });
    assert.deepEqual(nextHop(q.levels, 15_000, 5000), { level: q.levels[1], until: 15_000 });
    assert.deepEqual(nextHop(q.levels, 1_000_000, 5000), { level: q.levels[2], until: 65_000 });
  });

  test('a delay takes the same levels whenever it is sent, and ends exactly at its due time', () => {
    for (const delay of [1, 999, 1000, 1500, 10_000, 61_500, 3_600_000 + 1234]) {
      const a = path(delay, 1_700_000_000_000);
      const b = path(delay, 1_700_000_012_345);
      assert.deepEqual(a.levels, b.levels, `delay ${delay}`);
      assert.equal(a.last, 1_700_000_000_000 + delay, `delay ${delay} ends at its due time`);
    }
    assert.deepEqual(path(61_500, 0).levels, [60_000, 1000, 1000]);
    assert.deepEqual(path(21_000, 0).levels, [10_000, 10_000, 1000]);
    assert.equal(path(3_600_000, 0).levels.length, 60, 'an hour with a largest level of 1 min: 60 hops');
  });
});

describe('delayed()', () => {
  const now = 1_700_000_000_000;
  const header = (r: { headers?: unknown }, k: string) =>
    (r.headers as [string, string | Buffer | null][]).find(([key]) => key === k)?.[1];

  test('a record for its first level, with its due time, its leaving time and its target', () => {
    const r = q.delayed(
      { topic: 'reminders', key: 'user-1', value: 'v', headers: { trace: 'abc' }, delayMs: 12_000 },
      now,
    );
    assert.equal(r.topic, 'rq-delay-10s');
    assert.equal(r.key, 'user-1');
    assert.equal(r.value, 'v');
    assert.equal(r.timestamp, now, 'the send time, kept up to the delivery');
    assert.equal(r.partition, undefined, 'the level partition follows the key');
    assert.deepEqual(r.headers, [
      ['trace', 'abc'],
      [DELIVER_AT_HEADER, String(now + 12_000)],
      [DELAY_UNTIL_HEADER, String(now + 10_000)],
      [DELAY_TOPIC_HEADER, 'reminders'],
    ]);
  });

  test('deliverAt as a Date or ms; a target partition travels in a header; samsa-* headers are ours', () => {
    const r = q.delayed(
      {
        topic: 'reminders',
        value: null,
        partition: 4,
        timestamp: 42,
        headers: [
          [DELAY_TOPIC_HEADER, 'elsewhere'],
          ['a', null],
        ],
        deliverAt: new Date(now + 500),
      },
      now,
    );
    assert.equal(r.topic, 'rq-delay-1s');
    assert.equal(r.timestamp, 42);
    assert.equal(header(r, DELAY_TOPIC_HEADER), 'reminders');
    assert.equal(header(r, DELAY_PARTITION_HEADER), '4');
    assert.equal(header(r, DELAY_UNTIL_HEADER), String(now + 500));
    assert.equal(header(r, 'a'), null);
    assert.equal(q.delayed({ topic: 't', value: 'x', deliverAt: now + 2000.2 }, now).topic, 'rq-delay-1s');
    assert.equal(
      header(q.delayed({ topic: 't', value: 'x', deliverAt: now + 2000.2 }, now), DELIVER_AT_HEADER),
      String(now + 2001),
      'rounded up, never early',
    );
  });

  test('already due: the record itself, for its target, with its due time', () => {
    const r = q.delayed({ topic: 'reminders', key: 'k', value: 'v', partition: 1, deliverAt: now - 5 }, now);
    assert.deepEqual(r, {
      topic: 'reminders',
      key: 'k',
      value: 'v',
      partition: 1,
      headers: [[DELIVER_AT_HEADER, String(now - 5)]],
    });
    assert.equal(q.delayed({ topic: 'reminders', value: 'v', delayMs: 0 }, now).topic, 'reminders');
  });

  test('refusals', () => {
    const bad: [object, RegExp][] = [
      [{ topic: 't', value: 'v' }, /needs deliverAt or a delayMs/],
      [{ topic: 't', value: 'v', delayMs: -1 }, /delayMs ≥ 0/],
      [{ topic: 't', value: 'v', delayMs: Number.NaN }, /delayMs ≥ 0/],
      [{ topic: 't', value: 'v', deliverAt: new Date('nope') }, /not a valid time/],
      [{ topic: 'rq-delay-1m', value: 'v', delayMs: 5 }, /one of the delay queue's own topics/],
      [{ topic: 'a b', value: 'v', delayMs: 5 }, /target topic must be a topic name/],
    ];
    for (const [record, pattern] of bad)
      assert.throws(
        () => q.delayed(record as Parameters<typeof q.delayed>[0], now),
        (e: unknown) => e instanceof ConfigError && pattern.test(e.message),
        JSON.stringify(record),
      );
    assert.throws(() => new DelayQueue({ name: 'x', levels: [] }), /at least one delay/);
    assert.throws(() => new DelayQueue({ name: 'x', levels: [1000, 1000] }), /twice/);
    assert.throws(() => new DelayQueue({ name: 'x', levels: [0] }), /whole number of 1 or more/);
    assert.throws(() => new DelayQueue({ name: 'bad name' }), /level topic must be a topic name/);
  });
});

describe('routingOf()', () => {
  const level = q.levels[1]!;
  const h = (k: string, v: string) => ({ key: k, value: Buffer.from(v) });

  test('reads the routing headers and keeps the others (and the due time)', () => {
    const info = routingOf(
      [
        h('x', '1'),
        h(DELIVER_AT_HEADER, '5000'),
        h(DELAY_UNTIL_HEADER, '4000'),
        h(DELAY_TOPIC_HEADER, 'out'),
        h(DELAY_PARTITION_HEADER, '2'),
      ],
      1,
      level,
    );
    assert.deepEqual(info, {
      deliverAt: 5000,
      until: 4000,
      topic: 'out',
      partition: 2,
      headers: [
        ['x', Buffer.from('1')],
        [DELIVER_AT_HEADER, Buffer.from('5000')],
      ],
    });
  });

  test('without until, the timestamp + the level; without a target, a reason', () => {
    const info = routingOf([h(DELAY_TOPIC_HEADER, 'out')], 100, level);
    assert.ok(typeof info !== 'string');
    assert.equal(info.until, 10_100);
    assert.equal(info.deliverAt, 10_100);
    assert.match(routingOf([], 100, level) as string, /no samsa-delay-topic header/);
    assert.match(
      routingOf([h(DELAY_TOPIC_HEADER, 'o'), h(DELAY_UNTIL_HEADER, 'soon')], 1, level) as string,
      /not a number/,
    );
    assert.match(
      routingOf([h(DELAY_TOPIC_HEADER, 'o'), h(DELAY_PARTITION_HEADER, '-1')], 1, level) as string,
      /partition/,
    );
  });
});
