// kcat 1.7.1 (librdkafka 2.0.2) told the broker is old (api.version.request=false,
// broker.version.fallback): 0.9.0 → Produce v1 with magic-0 message sets, Fetch v1; 0.10.0 →
// Produce v2 with magic 1, Fetch v2. For every codec, what an old kcat writes is read back by an
// old and a modern kcat, and what a modern kcat writes by an old one.

import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { startTestBroker, type TestBroker } from '../../src/testkit/index.js';
import { storedHeaders } from '../broker/support/legacy.js';
import { RawClient } from '../broker/support/raw-client.js';
import { scaled } from '../support/timeouts.js';
import { exec } from './support/exec.js';

let broker: TestBroker;
before(async () => {
  broker = await startTestBroker({ overrides: { 'auto.create.topics.enable': true } });
});
after(async () => {
  await broker.close();
});

const N = 2000;
const LINES = Array.from({ length: N }, (_, i) => `key-${i % 97}:value ${i} ${'y'.repeat(i % 60)}`);
const input = `${LINES.join('\n')}\n`;
const expected = input
  .trimEnd()
  .split('\n')
  .map((l) => l.replace(':', '='));
const OLD = (fallback: string) => [
  '-X',
  'api.version.request=false',
  '-X',
  `broker.version.fallback=${fallback}`,
];

async function kcatProduce(topic: string, codec: string, extra: string[]): Promise<void> {
  const r = await exec(
    'kcat',
    ['-b', broker.bootstrap, ...extra, '-P', '-t', topic, '-p', '0', '-z', codec, '-K:'],
    {
      input,
      timeoutMs: 60_000,
    },
  );
  assert.equal(r.code, 0, r.stderr);
}

async function kcatConsume(
  topic: string,
  extra: string[],
): Promise<{ lines: string[]; timestamps: string[] }> {
  const r = await exec(
    'kcat',
    [
      '-b',
      broker.bootstrap,
      ...extra,
      '-C',
      '-t',
      topic,
      '-p',
      '0',
      '-o',
      'beginning',
      '-e',
      '-f',
      '%k=%s\t%T\n',
    ],
    { timeoutMs: 60_000 },
  );
  assert.equal(r.code, 0, r.stderr);
  const rows = r.stdout.toString().trimEnd().split('\n');
  return { lines: rows.map((x) => x.split('\t')[0]!), timestamps: rows.map((x) => x.split('\t')[1]!) };
}

for (const [fallback, magic] of [
  ['0.9.0', 0],
  ['0.10.0', 1],
] as const) {
  for (const codec of ['none', 'gzip', 'snappy', 'lz4']) {
    test(`kcat as a ${fallback} client (magic ${magic}), ${codec}: old writes, old and new reads`, {
      timeout: 120_000,
    }, async () => {
      const topic = `kcat-old-${magic}-${codec}`;
      await kcatProduce(topic, codec, OLD(fallback));
      const c = await RawClient.connect(broker.port);
      try {
        const headers = await storedHeaders(c, topic);
        assert.ok(headers.length > 0);
        for (const h of headers) assert.equal(h.magic, 2, 'stored as RecordBatch v2');
        // librdkafka sends a set uncompressed when compressing does not make it smaller.
        assert.ok(
          headers.some((h) => (h.attributes & 7) === ['none', 'gzip', 'snappy', 'lz4'].indexOf(codec)),
          'codec kept',
        );
      } finally {
        c.close();
      }
      const old = await kcatConsume(topic, OLD(fallback));
      assert.deepEqual(old.lines, expected);
      const modern = await kcatConsume(topic, []);
      assert.deepEqual(modern.lines, expected);
      // Magic 0 has no timestamps: -1 stored (librdkafka shows 0 for a magic-0 message).
      if (magic === 0) {
        assert.ok(
          modern.timestamps.every((t) => t === '-1'),
          modern.timestamps[0],
        );
        assert.ok(
          old.timestamps.every((t) => t === '0'),
          old.timestamps[0],
        );
      } else {
        assert.ok(
          modern.timestamps.every((t) => Number(t) > 1_600_000_000_000),
          modern.timestamps[0],
        );
        assert.deepEqual(old.timestamps, modern.timestamps);
      }
    });
  }
  test(`a modern kcat's batches read by kcat as a ${fallback} client`, {
    timeout: scaled(180_000),
  }, async () => {
    const topic = `kcat-new-${magic}`;
    await kcatProduce(topic, 'gzip', []);
    const old = await kcatConsume(topic, OLD(fallback));
    assert.deepEqual(old.lines, expected);
    const modern = await kcatConsume(topic, []);
    assert.deepEqual(old.timestamps, magic === 0 ? modern.timestamps.map(() => '0') : modern.timestamps);
  });
}
