// The console's configuration: the `console.*` keys `samsa start` reads (login by SASL
// credentials, session timeout, sampling intervals, throughput window) and the matching
// `samsa console` flags, with the mistakes each refuses in one line.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { runConsole } from '../../src/cli/commands/console.js';
import { ConsoleConfigError, consoleSettingsFrom } from '../../src/console/index.js';
import { captureIO } from '../cli/support.js';

const settings = (o: Record<string, string>) => consoleSettingsFrom(new Map(Object.entries(o)));

test('console.* keys: a SASL login, its session timeout, the sampling intervals', () => {
  const s = settings({
    'console.auth.sasl.mechanisms': 'scram-sha-256, PLAIN,SCRAM-SHA-256',
    'console.auth.session.timeout.ms': '600000',
    'console.refresh.ms': '2000',
    'console.idle.refresh.ms': '0',
    'console.throughput.window.ms': '30000',
  });
  assert.deepEqual(s.saslLogin, { mechanisms: ['SCRAM-SHA-256', 'PLAIN'], sessionTimeoutMs: 600000 });
  assert.deepEqual([s.refreshMs, s.idleRefreshMs, s.throughputWindowMs], [2000, 0, 30000]);
  const none = settings({});
  assert.deepEqual(
    [none.saslLogin, none.refreshMs, none.idleRefreshMs, none.throughputWindowMs],
    [undefined, undefined, undefined, undefined],
  );
  // Floors: a refresh faster than 250 ms is 250 ms.
  assert.equal(settings({ 'console.refresh.ms': '10' }).refreshMs, 250);
});

test('console.* mistakes are refused, naming the key', () => {
  const refused: [Record<string, string>, RegExp][] = [
    [{ 'console.auth.sasl.mechanisms': 'GSSAPI' }, /console.auth.sasl.mechanisms: GSSAPI is not one of/],
    [{ 'console.auth.sasl.mechanisms': ' , ' }, /names no SASL mechanism/],
    [
      { 'console.auth.sasl.mechanisms': 'PLAIN', 'console.auth.user': 'a', 'console.auth.password': 'b' },
      /exclude each other/,
    ],
    [{ 'console.auth.session.timeout.ms': '1000' }, /needs console.auth.sasl.mechanisms/],
    [{ 'console.idle.refresh.ms': 'soon' }, /console.idle.refresh.ms must be a number of milliseconds/],
    [{ 'console.throughput.window.ms': '-5' }, /console.throughput.window.ms must be a number/],
    [{ 'console.auth.sasl.mechanism': 'PLAIN' }, /unknown console config console.auth.sasl.mechanism/],
  ];
  for (const [props, re] of refused)
    assert.throws(
      () => settings(props),
      (e: Error) => e instanceof ConsoleConfigError && re.test(e.message),
    );
});

test('samsa console: the login and sampling flags are checked before anything starts', async () => {
  const cases: [string[], RegExp][] = [
    [
      ['--sasl-login', 'KERBEROS'],
      /--sasl-login: KERBEROS is not one of SCRAM-SHA-256, SCRAM-SHA-512, PLAIN/,
    ],
    [['--session-timeout-ms', '1000'], /--session-timeout-ms goes with --sasl-login/],
    [['--idle-refresh-ms', '1m'], /--idle-refresh-ms expects milliseconds/],
    [['--throughput-window-ms', ''], /--throughput-window-ms expects milliseconds/],
  ];
  for (const [args, re] of cases) {
    const c = captureIO();
    assert.equal(await runConsole([...args, '--bootstrap-server', '127.0.0.1:1'], c.io), 1, args.join(' '));
    assert.match(c.stderr(), re);
  }
  const help = captureIO();
  assert.equal(await runConsole(['--help'], help.io), 0);
  assert.match(help.stdout(), /--sasl-login MECHS/);
});
