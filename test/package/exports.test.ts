// The package's entry points (package.json "exports"): `samsa/client` loads no broker or storage
// code, the root exports the whole client (error classes included) plus the broker, and every
// entry resolves to the same module in source (the `samsa-source` condition, used by the tests
// and the documentation blocks) and in the build (dist/, what users get).
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { pathToFileURL } from 'node:url';
import { REPO_ROOT, SOURCE_NODE_FLAGS } from '../docs/doc-blocks.js';
import { repoFile } from '../support/repo.js';
import { scaled } from '../support/timeouts.js';

const RECORD_LOADS = repoFile('test/package/record-loads.mjs');

interface Child {
  status: number | null;
  stdout: string;
  stderr: string;
  /** Repository-relative paths of our modules the child loaded. */
  loaded: string[];
}

/** Runs an ES module snippet from the repository root, where `samsa` resolves to this package. */
async function runChild(code: string): Promise<Child> {
  const dir = await mkdtemp(join(tmpdir(), 'samsa-exports-'));
  const log = join(dir, 'loads.txt');
  try {
    const child = spawn(
      process.execPath,
      [...SOURCE_NODE_FLAGS, '--import', pathToFileURL(RECORD_LOADS).href, '--input-type=module', '-e', code],
      { cwd: REPO_ROOT, env: { ...process.env, SAMSA_LOAD_LOG: log }, stdio: ['ignore', 'pipe', 'pipe'] },
    );
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    const ms = scaled(60_000);
    const timer = setTimeout(() => child.kill('SIGKILL'), ms);
    const status = await new Promise<number | null>((r) => child.on('close', (c) => r(c)));
    clearTimeout(timer);
    if (status === null) throw new Error(`timed out after ${ms} ms: node -e ${code}\n${stderr}`);
    const root = pathToFileURL(REPO_ROOT).href;
    const loaded = existsSync(log)
      ? (await readFile(log, 'utf8'))
          .split('\n')
          .filter((u) => u.startsWith(root) && !u.includes('/node_modules/'))
          .map((u) => u.slice(root.length).replace(/\?.*$/, ''))
      : [];
    return { status, stdout, stderr, loaded };
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

test('samsa/client loads the client and no broker or storage module', async () => {
  const r = await runChild(
    "const m = await import('samsa/client'); console.log(JSON.stringify(Object.keys(m)));",
  );
  assert.equal(r.status, 0, r.stderr);
  const names = JSON.parse(r.stdout) as string[];
  for (const n of ['Producer', 'Consumer', 'Admin', 'WakeupError', 'KafkaClientError', 'ConfigError'])
    assert.ok(names.includes(n), `samsa/client exports ${n}`);
  // The hook saw the client being loaded, so an empty list below means something.
  assert.ok(r.loaded.includes('src/client/index.ts'), `loaded: ${r.loaded.join(', ')}`);
  assert.ok(r.loaded.includes('src/client/producer/producer.ts'));
  const forbidden = r.loaded.filter((f) => /^src\/(broker|storage|cli|testkit)\//.test(f));
  assert.deepEqual(forbidden, [], 'samsa/client must not load these');
});

test('the root exports everything samsa/client does (the same objects) and the broker; subpaths export theirs', async () => {
  const r = await runChild(`
    const root = await import('samsa');
    const client = await import('samsa/client');
    const broker = await import('samsa/broker');
    const testkit = await import('samsa/testkit');
    console.log(JSON.stringify({
      missing: Object.keys(client).filter((k) => root[k] !== client[k]),
      root: Object.keys(root),
      broker: Object.keys(broker),
      testkit: Object.keys(testkit),
      sameBrokerError: root.BrokerConfigError === broker.ConfigError,
      sameStart: root.startBroker === broker.startBroker,
    }));
  `);
  assert.equal(r.status, 0, r.stderr);
  const got = JSON.parse(r.stdout) as Record<string, unknown>;
  assert.deepEqual(got.missing, [], 'client exports the root lacks or exports differently');
  for (const n of ['startBroker', 'loadBrokerConfig', 'BrokerConfigError', 'Consumer', 'WakeupError'])
    assert.ok((got.root as string[]).includes(n), `samsa exports ${n}`);
  for (const n of ['startBroker', 'loadBrokerConfig', 'ConfigError'])
    assert.ok((got.broker as string[]).includes(n), `samsa/broker exports ${n}`);
  assert.ok((got.testkit as string[]).includes('startTestBroker'));
  assert.equal(got.sameBrokerError, true);
  assert.equal(got.sameStart, true);
});

test('every entry point names one module: its source, its build output and its types', () => {
  const pkg = JSON.parse(readFileSync(join(REPO_ROOT, 'package.json'), 'utf8')) as {
    exports: Record<string, string | Record<string, string>>;
    files: string[];
    types: string;
    main: string;
  };
  const entries = Object.entries(pkg.exports).filter(([k]) => k !== './package.json');
  assert.deepEqual(entries.map(([k]) => k).sort(), ['.', './broker', './client', './testkit']);
  for (const [subpath, target] of entries) {
    assert.equal(typeof target, 'object', `${subpath}: conditions`);
    const t = target as Record<string, string>;
    // Order matters: the first matching condition wins, "default" must be last.
    assert.deepEqual(Object.keys(t), ['samsa-source', 'types', 'default'], subpath);
    const src = t['samsa-source']!;
    assert.match(src, /^\.\/src\/.*\.ts$/, subpath);
    assert.ok(existsSync(join(REPO_ROOT, src)), `${subpath}: ${src} exists`);
    const base = src.slice('./src/'.length, -'.ts'.length);
    assert.equal(t.default, `./dist/src/${base}.js`, `${subpath}: build output of ${src}`);
    assert.equal(t.types, `./dist/src/${base}.d.ts`, `${subpath}: types of ${src}`);
    assert.ok(pkg.files.includes('dist/src'), 'dist/src is published');
  }
  const root = pkg.exports['.'] as Record<string, string>;
  assert.equal(pkg.types, root.types);
  assert.equal(pkg.main, root.default);
});
