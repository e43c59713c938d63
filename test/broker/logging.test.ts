// The broker's log as `samsa start` writes it: `--log-format json` gives one JSON object per line
// (ts, level, logger, msg, fields), text stays one line per event whatever the fields hold, and
// debug adds one `kafka.request.logger` line per request with the API, client id, principal,
// listener and client address. No password reaches either format, debug included.

import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { consoleLogger } from '../../src/cli/console-logger.js';
import { formatJsonLine, formatTextLine } from '../../src/cli/log-format.js';
import { Producer } from '../../src/client/index.js';
import { startTestBroker, type TestBroker } from '../../src/testkit/index.js';
import { PASSWORDS, plainJaas } from './sasl/support.js';

const lines: string[] = [];
let broker: TestBroker;

before(async () => {
  broker = await startTestBroker({
    logger: consoleLogger('debug', 'json', (line) => lines.push(line)),
    overrides: {
      listeners: 'PLAINTEXT://127.0.0.1:0,SASL_PLAINTEXT://127.0.0.1:0',
      'sasl.enabled.mechanisms': 'PLAIN',
      'sasl.jaas.config': plainJaas(),
      'group.initial.rebalance.delay.ms': 0,
    },
  });
});
after(async () => {
  await broker?.close();
});

const parsed = () => lines.map((l) => JSON.parse(l) as Record<string, unknown>);

test('json: every line is one JSON object with ts, level, logger and msg', () => {
  assert.ok(lines.length > 0, 'the broker logged at startup');
  for (const line of lines) {
    assert.ok(line.endsWith('\n') && line.indexOf('\n') === line.length - 1, `one line: ${line}`);
    const o = JSON.parse(line) as Record<string, unknown>;
    assert.match(String(o.ts), /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
    assert.ok(['debug', 'info', 'warn', 'error'].includes(String(o.level)));
    assert.equal(typeof o.logger, 'string');
    assert.equal(typeof o.msg, 'string');
  }
  assert.ok(parsed().some((o) => o.msg === 'broker started' && o.level === 'info'));
});

test('debug: one request line per request with client id, principal, listener and address', async () => {
  const producer = new Producer({
    bootstrapServers: broker.bootstrapFor('SASL_PLAINTEXT'),
    clientId: 'request-log-test',
    sasl: { mechanism: 'PLAIN', username: 'alice', password: PASSWORDS.alice },
  });
  try {
    await producer.send({ topic: 'request-log', value: 'v' });
  } finally {
    await producer.close();
  }
  const requests = parsed().filter((o) => o.logger === 'kafka.request.logger');
  const produce = requests.find((o) => o.api === 'Produce' && o.clientId === 'request-log-test');
  assert.ok(produce, `a Produce request line among ${JSON.stringify(requests.slice(0, 5))}`);
  assert.equal(produce.level, 'debug');
  assert.equal(produce.principal, 'User:alice');
  assert.equal(produce.listener, 'SASL_PLAINTEXT');
  assert.equal(produce.securityProtocol, 'SASL_PLAINTEXT');
  assert.match(String(produce.clientAddress), /127\.0\.0\.1/);
  assert.equal(typeof produce.apiVersion, 'number');
  assert.equal(typeof produce.correlationId, 'number');
  assert.ok(typeof produce.totalTimeMs === 'number' && produce.totalTimeMs >= 0);
  assert.ok(typeof produce.responseBytes === 'number' && produce.responseBytes > 0);
  assert.ok(requests.some((o) => o.api === 'Metadata' && o.clientId === 'request-log-test'));
});

test('no password in the log, debug included', () => {
  const text = lines.join('');
  for (const pw of Object.values(PASSWORDS)) assert.ok(!text.includes(pw), 'a password was logged');
});

test('text: newlines in messages, values and error stacks stay on one line', () => {
  const err = new Error('boom\nsecond line');
  const t = new Date(0);
  const line = formatTextLine(t, 'error', 'failed\nhere', {
    error: err,
    detail: 'a b',
    plain: 'x',
    n: 3n,
    obj: { a: 'x y' },
  });
  assert.equal(line.indexOf('\n'), line.length - 1, line);
  assert.match(line, /^1970-01-01T00:00:00\.000Z ERROR failed\\nhere error="Error: boom\\nsecond line\\n/);
  assert.match(line, / detail="a b" plain=x n=3 obj="\{\\"a\\":\\"x y\\"\}"\n$/);
  const json = formatJsonLine(t, 'error', 'failed\nhere', { error: err, ts: 'mine', logger: 'samsa.test' });
  assert.equal(json.indexOf('\n'), json.length - 1, json);
  const o = JSON.parse(json) as Record<string, unknown>;
  assert.equal(o.msg, 'failed\nhere');
  assert.equal(o.logger, 'samsa.test');
  assert.equal(o.ts, '1970-01-01T00:00:00.000Z');
  assert.equal(o['field.ts'], 'mine');
  assert.deepEqual(Object.keys(o.error as object).sort(), ['message', 'name', 'stack']);
});

test('a logger below debug builds no request lines', async () => {
  const info: string[] = [];
  const b = await startTestBroker({ logger: consoleLogger('info', 'json', (l) => info.push(l)) });
  try {
    const producer = new Producer({ bootstrapServers: b.bootstrap, clientId: 'quiet' });
    await producer.send({ topic: 'quiet', value: 'v' });
    await producer.close();
  } finally {
    await b.close();
  }
  assert.ok(!info.some((l) => l.includes('kafka.request.logger')));
});
