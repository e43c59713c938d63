// `samsa consume` and `samsa perf consume` against a real broker, through their run functions
// with captured output: Kafka's perf-test header and row format, console-consumer printing.
import assert from 'node:assert/strict';
import { PassThrough } from 'node:stream';
import { after, before, test } from 'node:test';
import { runConsume } from '../../../src/cli/commands/consume.js';
import { PERF_CONSUME_HEADER, runPerfConsume } from '../../../src/cli/commands/perf-consume.js';
import { Producer } from '../../../src/client/producer/producer.js';
import type { TestBroker } from '../../../src/testkit/index.js';
import { broker, createTopic, produce } from './support.js';

let b: TestBroker;
before(async () => {
  b = await broker();
  await createTopic(b, 'cli', 2);
  await produce(b, 'cli', 50, 2);
  const p = new Producer({ bootstrapServers: b.bootstrap });
  await p.send({
    topic: 'cli',
    partition: 0,
    key: null,
    value: 'with-headers',
    timestamp: 1700000000000,
    headers: { a: '1', b: '2' },
  });
  await p.close();
});
after(async () => {
  await b?.close();
});

function io() {
  const out: string[] = [];
  const err: string[] = [];
  const stdout = new PassThrough();
  const stderr = new PassThrough();
  stdout.on('data', (d: Buffer) => out.push(d.toString()));
  stderr.on('data', (d: Buffer) => err.push(d.toString()));
  return { io: { stdin: new PassThrough(), stdout, stderr }, out, err };
}

test("perf consume prints Kafka's header and one summary row", async () => {
  const c = io();
  const code = await runPerfConsume(
    ['--bootstrap-server', b.bootstrap, '--topic', 'cli', '--messages', '51', '--timeout', '5000'],
    c.io,
  );
  assert.equal(code, 0, c.err.join(''));
  const lines = c.out
    .join('')
    .split('\n')
    .filter((l) => l !== '');
  assert.equal(`${lines[0]}\n`, PERF_CONSUME_HEADER);
  const row = lines[1]!.split(', ');
  assert.equal(row.length, 10);
  assert.match(row[0]!, /^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d:\d{3}$/);
  assert.match(row[2]!, /^\d+\.\d{4}$/);
  assert.equal(row[4], '51');
  assert.match(row[5]!, /^\d+\.\d{4}$/);
  assert.match(row[6]!, /^\d+$/);
});

test('consume --from-beginning with --group prints values; key/headers/timestamp on request', async () => {
  const c = io();
  const code = await runConsume(
    [
      '--bootstrap-server',
      b.bootstrap,
      '--topic',
      'cli',
      '--group',
      'cli-g',
      '--from-beginning',
      '--max-messages',
      '51',
      '--print-key',
      '--property',
      'print.headers=true',
      'print.timestamp=true',
    ],
    c.io,
  );
  assert.equal(code, 0, c.err.join(''));
  const lines = c.out
    .join('')
    .split('\n')
    .filter((l) => l !== '');
  assert.equal(lines.length, 51);
  assert.ok(
    lines.includes('CreateTime:1700000000000\ta:1,b:2\tnull\twith-headers'),
    lines.slice(-3).join(' | '),
  );
  assert.ok(lines.some((l) => /^CreateTime:\d+\tNO_HEADERS\tkey-7\tvalue-7$/.test(l)));
  assert.match(c.err.join(''), /Processed a total of 51 messages/);
  // The group committed what was printed: nothing left to read.
  const again = io();
  await runConsume(
    ['--bootstrap-server', b.bootstrap, '--topic', 'cli', '--group', 'cli-g', '--timeout-ms', '800'],
    again.io,
  );
  assert.equal(again.out.join(''), '');
});

test('consume --partition --offset reads from that offset; --max-messages stops', async () => {
  const c = io();
  const code = await runConsume(
    [
      '--bootstrap-server',
      b.bootstrap,
      '--topic',
      'cli',
      '--partition',
      '1',
      '--offset',
      '20',
      '--max-messages',
      '3',
    ],
    c.io,
  );
  assert.equal(code, 0, c.err.join(''));
  assert.deepEqual(
    c.out
      .join('')
      .split('\n')
      .filter((l) => l !== ''),
    ['value-41', 'value-43', 'value-45'],
  );
});

test('bad arguments are usage errors', async () => {
  const c = io();
  assert.equal(await runConsume(['--offset', '3', '--topic', 'x'], c.io), 1);
  assert.match(c.err.join(''), /--offset needs --partition/);
  const d = io();
  assert.equal(await runPerfConsume(['--topic', 'x'], d.io), 1);
  assert.match(d.err.join(''), /--messages/);
});
