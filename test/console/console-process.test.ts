// The console as users start it, as real processes: `samsa console --bootstrap-server … --read-only`
// against a test broker (its URL printed, the page loads in Chromium, a write refused),
// `samsa start` with `http.listener` (the console's URL printed, `/` serves the page, `/metrics`
// and `/health` still answer), and `samsa start` whose console logs users in with their SASL
// credentials (console.auth.sasl.mechanisms: it connects to the SASL_PLAINTEXT listener).
import assert from 'node:assert/strict';
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import type { Browser } from 'playwright-core';
import { startTestBroker, type TestBroker } from '../../src/testkit/index.js';
import { PASSWORDS, plainJaas } from '../broker/sasl/support.js';
import { MAIN, REPO } from '../cli/support.js';
import { LOADER_FLAGS } from '../support/repo.js';
import { scaled } from '../support/timeouts.js';
import { launchBrowser, openPage } from './support.js';

let browser: Browser;
let broker: TestBroker;
const children: ChildProcess[] = [];

before(async () => {
  browser = await launchBrowser();
  broker = await startTestBroker();
});

after(async () => {
  for (const c of children) if (c.exitCode === null && c.signalCode === null) c.kill('SIGKILL');
  await browser?.close();
  await broker?.close();
});

/** Starts `samsa ARGS` and waits (scaled) for a line of its output matching `re`. */
async function samsa(args: string[], re: RegExp) {
  const child = spawn(process.execPath, [...LOADER_FLAGS, MAIN, ...args], {
    cwd: REPO,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  children.push(child);
  let out = '';
  child.stdout!.on('data', (d: Buffer) => {
    out += d.toString();
  });
  child.stderr!.on('data', (d: Buffer) => {
    out += d.toString();
  });
  const exited = new Promise<number | string>((resolve) =>
    child.on('exit', (code, signal) => resolve(code ?? signal ?? -1)),
  );
  // tsx compiles what a fresh process loads: most of a minute on a loaded two-core machine.
  const deadline = Date.now() + scaled(120_000);
  for (;;) {
    const m = re.exec(out);
    if (m) return { child, match: m, output: () => out, exited };
    if (child.exitCode !== null || Date.now() > deadline) {
      child.kill('SIGKILL');
      throw new Error(`samsa ${args.join(' ')}: no line matching ${re}:\n${out}`);
    }
    await new Promise((r) => setTimeout(r, 50));
  }
}

test('samsa console --read-only: prints its URL, the page loads, a write is refused', {
  timeout: scaled(300_000),
}, async () => {
  const p = await samsa(
    ['console', '--bootstrap-server', broker.bootstrap, '--port', '0', '--read-only'],
    /samsa console for (\S+) at (http:\/\/127\.0\.0\.1:\d+\/) \(read-only\)/,
  );
  assert.equal(p.match[1], broker.bootstrap);
  const url = p.match[2]!;
  const context = await browser.newContext();
  const { page, errors } = await openPage(context);
  await page.goto(`${url}#/`);
  await page.getByText('Cluster id').waitFor();
  await page.getByText('read-only', { exact: true }).waitFor();
  assert.deepEqual(errors, []);
  await context.close();

  const r = await fetch(`${url}api/topics`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ name: 'from-process', partitions: 1 }),
  });
  assert.equal(r.status, 403);
  assert.match(((await r.json()) as { error: string }).error, /read-only/);
  assert.equal((await fetch(`${url}api/topics`)).status, 200);
  p.child.kill('SIGTERM');
  assert.equal(await p.exited, 0, p.output());
});

test('samsa start with http.listener mounts the console next to /metrics', {
  timeout: scaled(300_000),
}, async () => {
  const dir = await mkdtemp(join(tmpdir(), 'samsa-console-start-'));
  try {
    const p = await samsa(
      ['start', '--port', '0', '--data-dir', dir, '--override', 'http.listener=127.0.0.1:0'],
      /samsa console at (http:\/\/127\.0\.0\.1:\d+\/)\n/,
    );
    const url = p.match[1]!;
    const page = await fetch(url);
    assert.equal(page.status, 200);
    assert.match(await page.text(), /<title>Samsa console<\/title>/);
    const metrics = await fetch(`${url}metrics`);
    assert.equal(metrics.status, 200);
    assert.match(await metrics.text(), /^# (HELP|TYPE) /m);
    assert.equal((await fetch(`${url}health/live`)).status, 200);
    // The console reaches the broker it is mounted on.
    const cluster = (await (await fetch(`${url}api/cluster`)).json()) as { brokers: unknown[] };
    assert.equal(cluster.brokers.length, 1);
    p.child.kill('SIGTERM');
    assert.equal(await p.exited, 0, p.output());
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});

test('samsa start with console.auth.sasl.mechanisms: users log in with their SASL credentials', {
  timeout: scaled(300_000),
}, async () => {
  const dir = await mkdtemp(join(tmpdir(), 'samsa-console-sasl-'));
  try {
    const overrides = {
      listeners: 'PLAINTEXT://127.0.0.1:0,SASL_PLAINTEXT://127.0.0.1:0',
      'sasl.enabled.mechanisms': 'PLAIN',
      'sasl.jaas.config': plainJaas(),
      'http.listener': '127.0.0.1:0',
      // SCRAM is offered by the console but not enabled on this listener.
      'console.auth.sasl.mechanisms': 'PLAIN,SCRAM-SHA-256',
    };
    const p = await samsa(
      [
        'start',
        '--data-dir',
        dir,
        ...Object.entries(overrides).flatMap(([k, v]) => ['--override', `${k}=${v}`]),
      ],
      /samsa console at (http:\/\/127\.0\.0\.1:\d+\/) \(login required\)\n/,
    );
    const url = p.match[1]!;
    const login = (password: string, mechanism = 'PLAIN') =>
      fetch(`${url}api/login`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ user: 'alice', password, mechanism }),
      });
    assert.equal((await fetch(`${url}api/topics`)).status, 401);
    assert.equal((await login('wrong')).status, 401);
    const scram = await login(PASSWORDS.alice, 'SCRAM-SHA-256');
    assert.equal(scram.status, 400);
    assert.match(
      ((await scram.json()) as { error: string }).error,
      /does not offer SCRAM-SHA-256.*enables PLAIN/,
    );
    const ok = await login(PASSWORDS.alice);
    assert.equal(ok.status, 200, await ok.text());
    const cookie = ok.headers.get('set-cookie')!.split(';', 1)[0]!;
    const session = (await (await fetch(`${url}api/session`, { headers: { cookie } })).json()) as {
      user: string;
    };
    assert.equal(session.user, 'alice');
    assert.equal((await fetch(`${url}api/topics`, { headers: { cookie } })).status, 200);
    p.child.kill('SIGTERM');
    assert.equal(await p.exited, 0, p.output());
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});
