// `samsa start` and the top-level command fail with one line and a non-zero status for what the
// user can fix (a port in use, a log dir that is a file, a bad config value), warn about config
// keys as Kafka does, and print both the bound and the advertised address. Plus --version,
// `perf --help`, unknown-command hints, and `npm start` passing SIGTERM on to the broker.

import assert from 'node:assert/strict';
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { describeFailure } from '../../src/cli/errors.js';
import { LOADER_FLAGS } from '../support/repo.js';
import { scaled, TestTimeoutError } from '../support/timeouts.js';
import { lines, MAIN, REPO, runCli } from './support.js';

let dir: string;
before(async () => {
  dir = await mkdtemp(join(tmpdir(), 'samsa-cli-'));
});
after(async () => {
  await rm(dir, { recursive: true, force: true });
});

/** Exactly one line on stderr, no stack trace, exit status 1. */
function assertOneLineFailure(r: { code: number | null; stderr: string }, pattern: RegExp): void {
  assert.equal(r.code, 1, r.stderr);
  const err = lines(r.stderr).filter((l) => !/^\d{4}-\d\d-\d\dT.* (INFO|WARN) /.test(l));
  assert.equal(err.length, 1, `one line expected:\n${r.stderr}`);
  assert.match(err[0]!, /^samsa: /);
  assert.match(err[0]!, pattern);
  assert.doesNotMatch(r.stderr, /\n\s+at /);
}

test('a port in use: one line naming the address', async () => {
  const server = createServer();
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  const port = (server.address() as { port: number }).port;
  try {
    const r = await runCli(['start', '--port', String(port), '--data-dir', join(dir, 'busy')]);
    assertOneLineFailure(r, new RegExp(`cannot listen on 127\\.0\\.0\\.1:${port}: address already in use`));
  } finally {
    await new Promise<void>((r) => server.close(() => r()));
  }
});

test('a data dir that is a file: one line', async () => {
  const file = join(dir, 'a-file');
  await writeFile(file, 'x');
  const r = await runCli(['start', '--port', '0', '--data-dir', file]);
  assertOneLineFailure(r, /a-file.*not a directory/);
});

test('bad config values and flags: one line each', async () => {
  assertOneLineFailure(
    await runCli([
      'start',
      '--port',
      '0',
      '--data-dir',
      join(dir, 'bad'),
      '--override',
      'log.segment.bytes=5',
    ]),
    /invalid configuration: .*log\.segment\.bytes/,
  );
  assertOneLineFailure(
    await runCli(['start', '--prot', '9092']),
    /unknown option --prot \(did you mean --port\?\)/,
  );
  assertOneLineFailure(await runCli(['start', '--node-id', 'x']), /--node-id expects a non-negative integer/);
  const props = join(dir, 'broken.properties');
  await writeFile(props, 'listeners=nonsense\n');
  assertOneLineFailure(
    await runCli(['start', props, '--data-dir', join(dir, 'bad2')]),
    /invalid configuration: .*listener/i,
  );
});

test('read-only and other file-system errors are described in one line', () => {
  const fsError = (code: string, syscall: string, path: string) =>
    Object.assign(new Error(`${code}: ${syscall} '${path}'`), { code, syscall, path });
  assert.equal(
    describeFailure(fsError('EACCES', 'mkdir', '/data/x')),
    'cannot mkdir /data/x: permission denied',
  );
  assert.equal(
    describeFailure(fsError('EROFS', 'open', '/ro/.lock')),
    'cannot open /ro/.lock: read-only file system',
  );
  assert.equal(describeFailure(fsError('EEXIST', 'mkdir', '/tmp/f')), '/tmp/f exists and is not a directory');
  assert.equal(describeFailure(new TypeError('a bug')), null, 'a bug keeps its stack');
});

/** Starts `samsa start ARGS` and resolves with its output once it is listening. */
async function startBroker(args: readonly string[]): Promise<{ child: ChildProcess; output: () => string }> {
  const child = spawn(process.execPath, [...LOADER_FLAGS, MAIN, 'start', ...args], {
    cwd: REPO,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  child.stdout!.on('data', (d: Buffer) => {
    out += d.toString();
  });
  child.stderr!.on('data', (d: Buffer) => {
    out += d.toString();
  });
  const ms = scaled(60_000);
  const deadline = Date.now() + ms;
  while (!out.includes('listening on')) {
    if (child.exitCode !== null) throw new Error(`broker exited with ${child.exitCode}:\n${out}`);
    if (Date.now() > deadline) {
      child.kill('SIGKILL');
      throw new TestTimeoutError('the broker to listen', ms, out);
    }
    await new Promise((r) => setTimeout(r, 50));
  }
  return { child, output: () => out };
}

async function stop(child: ChildProcess): Promise<number | null> {
  const exited = new Promise<number | null>((r) => child.once('exit', (code) => r(code)));
  child.kill('SIGTERM');
  return exited;
}

test('log.retention.hours=-5 starts (unlimited, as Kafka); unknown keys warn; banner shows bound and advertised', async () => {
  const b = await startBroker([
    '--port',
    '0',
    '--data-dir',
    join(dir, 'ok'),
    '--override',
    'log.retention.hours=-5',
    '--override',
    'log.retention.hour=5',
    '--override',
    'num.io.threads=8',
    '--override',
    'advertised.listeners=PLAINTEXT://clients.example:9999',
  ]);
  try {
    const out = b.output();
    assert.match(
      out,
      /WARN The configuration 'log\.retention\.hour' was supplied but isn't a known config \(did you mean 'log\.retention\.hours'\?\)/,
    );
    assert.match(out, /INFO Kafka configs that have no effect in samsa: num\.io\.threads/);
    assert.match(out, /listening on 127\.0\.0\.1:\d+, advertised to clients as clients\.example:9999 /);
    assert.doesNotMatch(out, /startsWith|TypeError/);
  } finally {
    assert.equal(await stop(b.child), 0);
  }
});

test('--version prints the package version; perf --help lists both benchmarks; unknown commands get a hint', async () => {
  const pkg = JSON.parse(await readFile(join(REPO, 'package.json'), 'utf8')) as { version: string };
  const v = await runCli(['--version']);
  assert.equal(v.code, 0);
  assert.equal(v.stdout.trim(), pkg.version);
  const perf = await runCli(['perf', '--help']);
  assert.equal(perf.code, 0, perf.stderr);
  assert.match(perf.stdout, /produce/);
  assert.match(perf.stdout, /consume/);
  const typo = await runCli(['topic', '--list']);
  assert.equal(typo.code, 1);
  assert.equal(
    typo.stderr,
    'samsa: unknown command "topic" (did you mean topics?); samsa --help lists the commands\n',
  );
});

test('npm start execs the broker: SIGTERM to npm reaches it (no orphan)', async () => {
  const pkg = JSON.parse(await readFile(join(REPO, 'package.json'), 'utf8')) as {
    scripts: { start: string };
  };
  assert.match(pkg.scripts.start, /^exec node bin\/samsa\.js start\b/);
  // The real script under real npm, with a stand-in for bin/samsa.js (the real one needs dist/).
  const app = join(dir, 'npm-app');
  await mkdir(join(app, 'bin'), { recursive: true });
  await writeFile(
    join(app, 'package.json'),
    JSON.stringify({
      name: 'npm-start-probe',
      version: '1.0.0',
      private: true,
      scripts: { start: pkg.scripts.start },
    }),
  );
  await writeFile(
    join(app, 'bin', 'samsa.js'),
    `process.stdout.write('broker ' + process.pid + ' up\\n');
process.on('SIGTERM', () => { process.stdout.write('broker got SIGTERM\\n'); process.exit(0); });
setInterval(() => {}, 1000);
`,
  );
  const npm = spawn('npm', ['start', '--silent'], { cwd: app, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  npm.stdout!.on('data', (d: Buffer) => {
    out += d.toString();
  });
  npm.stderr!.on('data', (d: Buffer) => {
    out += d.toString();
  });
  const ms = scaled(60_000);
  const deadline = Date.now() + ms;
  let pid = 0;
  while (pid === 0) {
    pid = Number(/broker (\d+) up/.exec(out)?.[1] ?? 0);
    if (pid === 0 && (npm.exitCode !== null || Date.now() > deadline)) {
      npm.kill('SIGKILL');
      throw new TestTimeoutError('npm start to run the broker', ms, out);
    }
    await new Promise((r) => setTimeout(r, 50));
  }
  const alive = () => {
    try {
      process.kill(pid, 0);
      return true;
    } catch {
      return false;
    }
  };
  try {
    const exited = new Promise((r) => npm.once('exit', r));
    npm.kill('SIGTERM');
    await exited;
    while (alive() && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
    assert.equal(alive(), false, `the broker (pid ${pid}) outlived npm start:\n${out}`);
    assert.match(out, /broker got SIGTERM/);
  } finally {
    if (alive()) process.kill(pid, 'SIGKILL');
  }
});
