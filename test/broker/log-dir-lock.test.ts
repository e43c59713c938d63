// One broker per data dir: a second broker on the same log dir refuses to start (in another
// process or in this one), the first keeps every acknowledged record, and the lock is released
// by a crash. A log dir whose meta.properties names another broker or cluster is refused.
import assert from 'node:assert/strict';
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { startBroker } from '../../src/broker/broker.js';
import { encodeRecordBatchSync } from '../../src/protocol/record-batch/index.js';
import {
  LogDirInUseError,
  LogManager,
  lockLogDir,
  MetaPropertiesMismatchError,
} from '../../src/storage/index.js';
import { startTestBroker } from '../../src/testkit/index.js';
import { spawnBroker } from '../interop/support/broker-process.js';
import { LOADER_FLAGS, moduleFile } from '../support/repo.js';
import { RawClient } from './support/raw-client.js';
import { createTopic, fetchAll, produce } from './support/wire.js';

const LOCK_MODULE = moduleFile('src/storage/log-dir-lock.ts');

const batch = (from: number, n: number) =>
  encodeRecordBatchSync(Array.from({ length: n }, (_, i) => ({ value: Buffer.from(`v${from + i}`) })));

async function tempDir(): Promise<string> {
  return mkdtemp(join(tmpdir(), 'samsa-lock-'));
}

test('a second broker process on the same data dir refuses to start; the first keeps every record', {
  timeout: 180_000,
}, async () => {
  const dir = await tempDir();
  const procs: ChildProcess[] = [];
  try {
    const args = ['--port', '0', '--data-dir', dir];
    const first = await spawnBroker(args);
    procs.push(first.child);
    const c = await RawClient.connect(first.port);
    assert.equal(await createTopic(c, 'locked', 1), 0);
    for (let i = 0; i < 20; i++)
      assert.equal((await produce(c, 'locked', 0, batch(i * 10, 10))).errorCode, 0);

    // The second broker: exits non-zero with one line naming the first one's pid.
    await assert.rejects(spawnBroker(args), (e: Error) => {
      assert.match(e.message, new RegExp(`in use by process ${first.child.pid}`));
      assert.doesNotMatch(e.message, /\n\s+at /, 'no stack trace');
      return true;
    });
    // The first is still serving and still writing.
    for (let i = 20; i < 40; i++)
      assert.equal((await produce(c, 'locked', 0, batch(i * 10, 10))).errorCode, 0);
    c.close();
    first.child.kill('SIGKILL');
    await first.exited;

    // A crash released the lock: a new broker starts on the dir with every acknowledged record.
    const again = await spawnBroker(args);
    procs.push(again.child);
    const c2 = await RawClient.connect(again.port);
    const got = await fetchAll(c2, 'locked', 0);
    assert.deepEqual(
      got.map((r) => r.value!.toString()),
      Array.from({ length: 400 }, (_, i) => `v${i}`),
    );
    c2.close();
    again.child.kill('SIGTERM');
    assert.equal(await again.exited, 0, again.output());
  } finally {
    for (const p of procs) if (p.exitCode === null && p.signalCode === null) p.kill('SIGKILL');
    await rm(dir, { recursive: true, force: true });
  }
});

test('in one process: a second broker or log manager on a locked dir is refused until the first closes', async () => {
  const dir = await tempDir();
  try {
    const b = await startTestBroker({ dataDir: dir });
    await assert.rejects(startTestBroker({ dataDir: dir }), LogDirInUseError);
    await assert.rejects(LogManager.open({ logDirs: [join(dir, 'other'), dir] }), LogDirInUseError);
    // The refused manager released the lock it took on the first dir.
    (await lockLogDir(join(dir, 'other'))).release();
    await b.stop();
    const again = await startTestBroker({ dataDir: dir });
    await again.stop();
    const mgr = await LogManager.open({ logDirs: [dir] });
    await assert.rejects(LogManager.open({ logDirs: [dir] }), LogDirInUseError);
    await mgr.close();
    await (await LogManager.open({ logDirs: [dir] })).close();
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});

test('the lock is held across processes and released when its holder is killed', {
  timeout: 60_000,
}, async () => {
  const dir = await tempDir();
  let holder: ChildProcess | null = null;
  try {
    holder = spawn(
      process.execPath,
      [
        ...LOADER_FLAGS,
        '-e',
        `import(${JSON.stringify(LOCK_MODULE)}).then(async (m) => { await m.lockLogDir(${JSON.stringify(dir)}); console.log('locked'); setInterval(() => {}, 1000); });`,
      ],
      { stdio: ['ignore', 'pipe', 'inherit'] },
    );
    await new Promise<void>((resolve, reject) => {
      holder!.stdout!.on('data', (d: Buffer) => d.toString().includes('locked') && resolve());
      holder!.on('exit', () => reject(new Error('lock holder exited')));
    });
    await assert.rejects(lockLogDir(dir), (e: unknown) => {
      assert.ok(e instanceof LogDirInUseError);
      assert.equal(e.holderPid, holder!.pid);
      return true;
    });
    assert.equal((await readFile(join(dir, '.lock'), 'utf8')).trim(), String(holder.pid));
    const gone = new Promise((r) => holder!.on('exit', r));
    holder.kill('SIGKILL');
    await gone;
    const lock = await lockLogDir(dir);
    await lock.release();
  } finally {
    holder?.kill('SIGKILL');
    await rm(dir, { recursive: true, force: true });
  }
});

test('meta.properties naming another node id or cluster id is refused, as Kafka does', async () => {
  const dir = await tempDir();
  try {
    const b = await startTestBroker({ dataDir: dir, nodeId: 1 });
    const clusterId = b.clusterId;
    await b.stop();
    const meta = await readFile(join(dir, 'meta.properties'), 'utf8');
    assert.match(meta, /broker\.id=1/);
    assert.match(meta, new RegExp(`cluster\\.id=${clusterId}`));
    await assert.rejects(
      startBroker({ host: '127.0.0.1', port: 0, dataDir: dir, nodeId: 2 }),
      (e: unknown) => e instanceof MetaPropertiesMismatchError && /node id 2 .* id 1/.test(e.message),
    );
    // The refusal released the lock: the right id starts.
    const ok = await startTestBroker({ dataDir: dir, nodeId: 1 });
    await ok.stop();
    await writeFile(
      join(dir, 'meta.properties'),
      meta.replace(/cluster\.id=.*/, 'cluster.id=someOtherCluster'),
    );
    await assert.rejects(
      startTestBroker({ dataDir: dir, nodeId: 1 }),
      (e: unknown) => e instanceof MetaPropertiesMismatchError && /another cluster/.test(e.message),
    );
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});
