// kcat 1.7.1 (librdkafka 2.0.2) against a real in-process broker: -L, a 100,000-message round
// trip with keys and headers for every codec (byte-identical, and the codec really in the log),
// and -Q offsets by timestamp.

import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { produceApi } from '../../src/protocol/messages/generated/produce.js';
import { encodeRecordBatchSync } from '../../src/protocol/record-batch/index.js';
import { startTestBroker, type TestBroker } from '../../src/testkit/index.js';
import { RawClient } from '../broker/support/raw-client.js';
import { scaled } from '../support/timeouts.js';
import { exec } from './support/exec.js';
import { storedBatches } from './support/log-batches.js';

let broker: TestBroker;
before(async () => {
  broker = await startTestBroker();
});
after(async () => {
  await broker.close();
});

const CODECS = [
  ['none', 0],
  ['gzip', 1],
  ['snappy', 2],
  ['lz4', 3],
  ['zstd', 4],
] as const;

const N = 100_000;

function messages(codec: string): string {
  const lines: string[] = [];
  for (let i = 0; i < N; i++) lines.push(`key-${i % 977}\tvalue ${codec} ${i} ${'x'.repeat(i % 50)} ünïcödé`);
  return `${lines.join('\n')}\n`;
}

test('kcat -L lists the broker as controller and the topics', async () => {
  await exec('kcat', ['-b', broker.bootstrap, '-P', '-t', 'listed-topic'], {
    input: 'one\n',
    timeoutMs: 20_000,
  });
  const r = await exec('kcat', ['-b', broker.bootstrap, '-L'], { timeoutMs: 20_000 });
  assert.equal(r.code, 0, r.stderr);
  const out = r.stdout.toString();
  assert.match(out, new RegExp(`broker ${broker.nodeId} at ${broker.host}:${broker.port} \\(controller\\)`));
  assert.match(out, /topic "listed-topic" with 1 partitions:/);
  assert.match(out, /partition 0, leader 1, replicas: 1, isrs: 1/);
});

for (const [codec, id] of CODECS) {
  test(`kcat round trip of ${N} keyed messages with headers, ${codec}`, {
    timeout: scaled(180_000),
  }, async () => {
    const topic = `kcat-${codec}`;
    const input = messages(codec);
    const p = await exec(
      'kcat',
      [
        '-b',
        broker.bootstrap,
        '-P',
        '-t',
        topic,
        '-K',
        '\t',
        '-z',
        codec,
        '-H',
        'h1=v1',
        '-H',
        'trace=abc\u00e9',
        '-X',
        'linger.ms=20',
      ],
      { input, timeoutMs: 90_000 },
    );
    assert.equal(p.code, 0, p.stderr);
    const c = await exec(
      'kcat',
      ['-b', broker.bootstrap, '-C', '-t', topic, '-o', 'beginning', '-e', '-q', '-f', '%k\t%s\t%h\n'],
      {
        timeoutMs: 90_000,
      },
    );
    assert.equal(c.code, 0, c.stderr);
    const expected = input
      .trimEnd()
      .split('\n')
      .map((l) => `${l}\th1=v1,trace=abc\u00e9`);
    const got = c.stdout.toString('utf8').trimEnd().split('\n');
    assert.equal(got.length, N);
    assert.deepEqual(got, expected);
    const batches = await storedBatches(broker.dataDir, topic, 0);
    assert.equal(
      batches.reduce((n, b) => n + b.recordCount, 0),
      N,
    );
    assert.ok(
      batches.some((b) => b.codec === id),
      `some batch in the log uses codec ${codec} (${id}); saw ${[...new Set(batches.map((b) => b.codec))]}`,
    );
  });
}

test('kcat -Q finds offsets by timestamp', async () => {
  const topic = 'kcat-times';
  const c = await RawClient.connect(broker.port);
  await c.request((await import('../../src/protocol/messages/generated/metadata.js')).metadataApi, 4, {
    topics: [{ topicId: 'AAAAAAAAAAAAAAAAAAAAAA', name: topic }],
    allowAutoTopicCreation: true,
    includeClusterAuthorizedOperations: false,
    includeTopicAuthorizedOperations: false,
  });
  for (const ts of [1_000_000, 2_000_000, 3_000_000]) {
    const batch = encodeRecordBatchSync([
      { value: Buffer.from(`at ${ts}`), timestamp: ts },
      { value: Buffer.from('same'), timestamp: ts + 1 },
    ]);
    const res = await c.request(produceApi, 7, {
      transactionalId: null,
      acks: 1,
      timeoutMs: 5000,
      topicData: [{ name: topic, partitionData: [{ index: 0, records: batch }] }],
    });
    assert.equal(res.responses[0]!.partitionResponses[0]!.errorCode, 0);
  }
  c.close();
  const q = async (ts: number): Promise<string> => {
    const r = await exec('kcat', ['-b', broker.bootstrap, '-Q', '-t', `${topic}:0:${ts}`], {
      timeoutMs: 20_000,
    });
    assert.equal(r.code, 0, r.stderr);
    return r.stdout.toString();
  };
  assert.match(await q(1_500_000), /offset 2\b/);
  assert.match(await q(2_000_001), /offset 3\b/);
  assert.match(await q(1), /offset 0\b/);
  assert.match(await q(9_000_000), /offset -1\b/);
});
