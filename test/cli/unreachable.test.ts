// The client commands against a broker that is not there: within a few seconds they say
// "cannot reach HOST:PORT (connection refused)" after one visible "retrying" line, and exit
// non-zero (before: topics --list was silent for 32 s, produce blamed the topic after 61 s,
// consume --timeout-ms 2000 ran 61 s).

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { runConsume } from '../../src/cli/commands/consume.js';
import { runProduce } from '../../src/cli/commands/produce.js';
import { runTopics } from '../../src/cli/commands/topics.js';
import { scaled } from '../support/timeouts.js';
import { captureIO, closedPort, lines, runCli } from './support.js';

test('topics --list, produce and consume: one retry line, then "cannot reach", exit 1 (process)', async () => {
  const port = await closedPort();
  const server = `127.0.0.1:${port}`;
  for (const [args, stdin] of [
    [['topics', '--list', '--bootstrap-server', server], ''],
    [['produce', '--topic', 't', '--bootstrap-server', server], 'a\nb\n'],
    [['consume', '--topic', 't', '--timeout-ms', '2000', '--bootstrap-server', server], ''],
  ] as const) {
    const r = await runCli(args, { stdin });
    assert.equal(r.code, 1, `${args[0]}: ${r.stderr}`);
    const err = lines(r.stderr);
    assert.match(err[0]!, new RegExp(`^samsa: cannot reach ${server} \\(connection refused\\); retrying`));
    assert.equal(err.at(-1), `samsa: cannot reach ${server} (connection refused)`, r.stderr);
    assert.doesNotMatch(r.stderr, /\n\s+at /, 'no stack trace');
  }
});

test('the error comes within 5 s; consume --timeout-ms 2000 ends near 2 s (in-process)', async () => {
  const server = `127.0.0.1:${await closedPort()}`;
  const timed = async (run: () => Promise<number>) => {
    const t0 = Date.now();
    const code = await run();
    return { code, ms: Date.now() - t0 };
  };
  const topics = captureIO();
  const t = await timed(() => runTopics(['--list', '--bootstrap-server', server], topics.io));
  assert.equal(t.code, 1);
  assert.ok(t.ms < scaled(5000), `topics took ${t.ms} ms`);
  assert.match(topics.stderr(), /cannot reach .*\(connection refused\)\n$/);

  const produce = captureIO('x\n');
  const p = await timed(() => runProduce(['--topic', 't', '--bootstrap-server', server], produce.io));
  assert.equal(p.code, 1);
  assert.ok(p.ms < scaled(5000), `produce took ${p.ms} ms`);
  assert.doesNotMatch(produce.stderr(), /topic/i, 'the topic is not blamed');

  const consume = captureIO();
  const c = await timed(() =>
    runConsume(['--topic', 't', '--timeout-ms', '2000', '--bootstrap-server', server], consume.io),
  );
  assert.equal(c.code, 1);
  assert.ok(c.ms >= 1900 && c.ms < scaled(4500), `consume took ${c.ms} ms`);
});

test('an unknown host is named as such', async () => {
  const io = captureIO();
  assert.equal(await runTopics(['--list', '--bootstrap-server', 'no-such-host.invalid:9092'], io.io), 1);
  assert.match(
    io.stderr(),
    /cannot reach no-such-host\.invalid:9092 \((unknown host|host name lookup failed|connection timed out)\)\n$/,
  );
});
