// The ZooKeeper server plumbing shared by `samsa zookeeper` and the testkit: config generation,
// the java command line, the not-installed error, connect strings; and `samsa zookeeper` end to
// end (this file's one ZooKeeper is the one the command runs).

import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { parseConnectString } from '../../../src/broker/metadata/zookeeper/zk-connect-string.js';
import {
  assertZooKeeperInstalled,
  PRODUCTION_SETTINGS,
  probeZooKeeper,
  renderZooKeeperConfig,
  TEST_SETTINGS,
  waitForZooKeeper,
  ZooKeeperNotInstalledError,
  zooKeeperJavaArgs,
} from '../../../src/broker/metadata/zookeeper/zk-server.js';
import { runZooKeeper, ZOOKEEPER_USAGE } from '../../../src/cli/commands/zookeeper.js';
import { LOADER_FLAGS, moduleFile } from '../../support/repo.js';
import { LIVENESS_MS, waitFor } from './helpers.js';

function lines(cfg: string): Map<string, string> {
  return new Map(
    cfg
      .split('\n')
      .filter((l) => l && !l.startsWith('#'))
      .map((l) => [l.slice(0, l.indexOf('=')), l.slice(l.indexOf('=') + 1)]),
  );
}

test('test config: 1 s sessions allowed, loopback, no fsync, no admin server, 4lw srvr', () => {
  const cfg = lines(renderZooKeeperConfig('/tmp/zk-data', 2199, TEST_SETTINGS));
  assert.equal(cfg.get('tickTime'), '500');
  assert.equal(cfg.get('minSessionTimeout'), '1000');
  assert.equal(cfg.get('maxSessionTimeout'), '30000');
  assert.equal(cfg.get('clientPort'), '2199');
  assert.equal(cfg.get('clientPortAddress'), '127.0.0.1');
  assert.equal(cfg.get('dataDir'), '/tmp/zk-data');
  assert.equal(cfg.get('admin.enableServer'), 'false');
  assert.equal(cfg.get('forceSync'), 'no');
  assert.match(cfg.get('4lw.commands.whitelist') ?? '', /(^|,)srvr(,|$)/);
});

test('production config keeps fsync on and binds all interfaces', () => {
  const cfg = lines(renderZooKeeperConfig('/var/lib/zk', 2181, PRODUCTION_SETTINGS));
  assert.equal(cfg.has('forceSync'), false);
  assert.equal(cfg.has('clientPortAddress'), false);
  assert.equal(cfg.get('tickTime'), '2000');
  assert.equal(cfg.get('admin.enableServer'), 'false');
  assert.equal(cfg.get('maxClientCnxns'), '0');
  assert.throws(() => renderZooKeeperConfig('/x', 0, PRODUCTION_SETTINGS), /invalid ZooKeeper port/);
  assert.throws(() => renderZooKeeperConfig('/x\nforceSync=no', 2181, PRODUCTION_SETTINGS), /line break/);
});

test('java command line: QuorumPeerMain from the Debian jars', () => {
  const args = zooKeeperJavaArgs('/d/zoo.cfg', {
    heapMb: 256,
    fastStartup: true,
    systemProperties: { a: 'b' },
  });
  assert.deepEqual(args.slice(-4), [
    '-cp',
    '/usr/share/java/zookeeper.jar:/usr/share/java/slf4j-simple.jar',
    'org.apache.zookeeper.server.quorum.QuorumPeerMain',
    '/d/zoo.cfg',
  ]);
  assert.ok(args.includes('-Xmx256m') && args.includes('-XX:TieredStopAtLevel=1') && args.includes('-Da=b'));
  assert.ok(zooKeeperJavaArgs('/c').includes('-Xms512m'));
});

test('a missing installation names the Debian package', () => {
  assert.throws(
    () => assertZooKeeperInstalled('/nonexistent/zookeeper.jar'),
    (e: unknown) => e instanceof ZooKeeperNotInstalledError && /Debian package "zookeeper"/.test(e.message),
  );
});

test('connect strings: hosts, default port, chroot', () => {
  assert.deepEqual(parseConnectString('a:1,b/kafka/x'), {
    servers: [
      { host: 'a', port: 1 },
      { host: 'b', port: 2181 },
    ],
    hosts: 'a:1,b',
    chroot: '/kafka/x',
  });
  assert.equal(parseConnectString('a:1/').chroot, null);
  for (const bad of ['', '/chroot', 'a:1,,b', 'a:x', 'a:0', '[::1]:2181', 'a/b/', 'a/b//c', 'a/./b'])
    assert.throws(() => parseConnectString(bad), /invalid ZooKeeper connect string/, bad);
});

function capture(): {
  io: { stdout: { write(s: string): void }; stderr: { write(s: string): void } };
  out: string[];
  err: string[];
} {
  const out: string[] = [];
  const err: string[] = [];
  return { io: { stdout: { write: (s) => out.push(s) }, stderr: { write: (s) => err.push(s) } }, out, err };
}

test('samsa zookeeper --help and bad flags', async () => {
  const h = capture();
  assert.equal(await runZooKeeper(['--help'], h.io), 0);
  assert.equal(h.out.join(''), ZOOKEEPER_USAGE);
  const bad = capture();
  assert.equal(await runZooKeeper(['--bogus'], bad.io), 1);
  assert.match(bad.err.join(''), /bogus/);
  const port = capture();
  assert.equal(await runZooKeeper(['--port', '70000'], port.io), 1);
  assert.match(port.err.join(''), /--port expects 1\.\.65535/);
});

test('samsa zookeeper runs ZooKeeper in the foreground and stops with it on SIGTERM', async () => {
  const port = await new Promise<number>((resolve) => {
    const s = createServer().listen(0, '127.0.0.1', () => {
      const p = (s.address() as { port: number }).port;
      s.close(() => resolve(p));
    });
  });
  const dataDir = await mkdtemp(join(tmpdir(), 'samsa-zk-cli-'));
  const cli = moduleFile('src/cli/commands/zookeeper.ts');
  const script = `
    const { runZooKeeper } = await import(${JSON.stringify(cli)});
    process.exitCode = await runZooKeeper(['--port', '${port}', '--data-dir', ${JSON.stringify(dataDir)}]);
  `;
  const child = spawn(process.execPath, [...LOADER_FLAGS, '--input-type=module', '-e', script], {
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let stderr = '';
  child.stderr.on('data', (d: Buffer) => {
    stderr += d.toString();
  });
  const exit = waitFor<number | null>(
    'the command to exit',
    (cb) => child.once('exit', (code) => cb(code)),
    () => true,
    120_000,
  );
  try {
    assert.equal(await waitForZooKeeper('127.0.0.1', port, { timeoutMs: 60_000 }), 'standalone');
    const cfg = lines(await readFile(join(dataDir, 'zoo.cfg'), 'utf8'));
    assert.equal(cfg.get('clientPort'), String(port));
    assert.equal(cfg.has('forceSync'), false, 'production settings');
    assert.match(stderr, new RegExp(`port ${port}`));
    child.kill('SIGTERM');
    assert.equal(await exit, 143, `exit status of java after SIGTERM (stderr: ${stderr.slice(-500)})`);
    assert.equal(await probeZooKeeper('127.0.0.1', port, 2000), null, 'the server is gone');
  } finally {
    if (child.exitCode === null) {
      child.kill('SIGTERM');
      await Promise.race([exit.catch(() => null), new Promise((r) => setTimeout(r, LIVENESS_MS))]);
    }
    await rm(dataDir, { recursive: true, force: true });
  }
});
