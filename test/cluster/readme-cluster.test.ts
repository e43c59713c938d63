// The README's cluster blocks, run as written: a ZooKeeper and three brokers started by the first
// block (in the background, as shown), then the second block's commands against them. Only the
// ports and the /tmp data dirs are swapped for free ones, so a machine running Kafka still passes.
import assert from 'node:assert/strict';
import { type ChildProcess, spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { waitForZooKeeper } from '../../src/broker/metadata/zookeeper/zk-server.js';
import { extractBlocks } from '../docs/doc-blocks.js';
import { nodeArgs, repoFile } from '../support/repo.js';
import { scaled, TestTimeoutError } from '../support/timeouts.js';
import { viewOf } from './support.js';

const ROOT = repoFile('./');

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const port = (s.address() as { port: number }).port;
      s.close(() => resolve(port));
    });
  });
}

function run(
  script: string,
  cwd: string,
): { child: ChildProcess; output: () => string; done: Promise<number | string> } {
  const child = spawn('bash', ['-e', '-o', 'pipefail', '-c', script], {
    cwd,
    detached: true,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  child.stdout!.on('data', (d: Buffer) => {
    out += d.toString();
  });
  child.stderr!.on('data', (d: Buffer) => {
    out += d.toString();
  });
  const done = new Promise<number | string>((resolve) =>
    child.on('close', (code, sig) => resolve(code ?? sig ?? -1)),
  );
  return { child, output: () => out, done };
}

test('README: a three-broker cluster from its own commands', { timeout: scaled(600_000) }, async () => {
  const blocks = extractBlocks(readFileSync(join(ROOT, 'README.md'), 'utf8'), 'README.md').filter((b) =>
    b.notRun?.includes('readme-cluster.test.ts'),
  );
  assert.equal(blocks.length, 2, 'the README has its two cluster blocks');
  const dir = await mkdtemp(join(tmpdir(), 'samsa-readme-cluster-'));
  const ports = new Map<string, number>();
  for (const p of ['2181', '9092', '9093', '9094']) ports.set(p, await freePort());
  const rewrite = (code: string) =>
    code
      .replace(/\bnpx samsa\b/g, `node ${nodeArgs('src/cli/main.ts').join(' ')}`)
      .replace(/\b(2181|9092|9093|9094)\b/g, (p) => String(ports.get(p)))
      .replace(/\/tmp\/(samsa-[a-z0-9-]+)/g, (_, name: string) => join(dir, name));
  // As if each line ran in its own terminal once the previous server was up: ZooKeeper first
  // (a broker gives up after zookeeper.connection.timeout.ms), then the brokers. Background jobs of
  // a non-interactive bash live as long as they run; `wait` keeps bash there.
  const lines = rewrite(blocks[0]!.code)
    .split('\n')
    .filter((l) => l.trim() !== '');
  assert.match(lines[0]!, /zookeeper/);
  const zookeeper = run(`${lines[0]}\nwait\n`, ROOT);
  const servers = { zookeeper, brokers: null as ReturnType<typeof run> | null };
  try {
    await waitForZooKeeper('127.0.0.1', ports.get('2181')!, { timeoutMs: scaled(120_000) });
    servers.brokers = run(`${lines.slice(1).join('\n')}\nwait\n`, ROOT);
    const output = () => `${zookeeper.output()}\n${servers.brokers?.output() ?? ''}`;
    const deadline = Date.now() + scaled(120_000);
    const brokerPorts = ['9092', '9093', '9094'].map((p) => ports.get(p)!);
    for (;;) {
      const views = await Promise.all(brokerPorts.map((p) => viewOf(p).catch(() => null)));
      if (views.every((v) => v !== null && v.brokers.length === 3)) break;
      if (Date.now() > deadline)
        throw new TestTimeoutError('three brokers up', scaled(120_000), output().slice(-4000));
      await new Promise((r) => setTimeout(r, 300));
    }
    const cmds = run(rewrite(blocks[1]!.code), ROOT);
    assert.equal(await cmds.done, 0, cmds.output());
    const out = cmds.output();
    assert.match(out, /Topic: payments\tTopicId: \S+\tPartitionCount: 6\tReplicationFactor: 3\t/);
    assert.match(out, /min\.insync\.replicas=2/);
    const partitionLines = out.split('\n').filter((l) => /\tPartition: \d+\tLeader: \d+/.test(l));
    assert.equal(partitionLines.length, 6, out);
    for (const l of partitionLines) {
      const replicas = /Replicas: ([\d,]+)/.exec(l)![1]!.split(',');
      assert.equal(new Set(replicas).size, 3);
    }
  } finally {
    // Brokers first (each tries a controlled shutdown), then ZooKeeper.
    for (const job of [servers.brokers, zookeeper]) {
      if (job === null) continue;
      try {
        process.kill(-job.child.pid!, 'SIGTERM');
      } catch {
        // gone
      }
      const stopped = await Promise.race([
        job.done,
        new Promise((r) => setTimeout(() => r('slow'), scaled(60_000))),
      ]);
      if (stopped === 'slow') {
        try {
          process.kill(-job.child.pid!, 'SIGKILL');
        } catch {
          // gone
        }
      }
    }
    await rm(dir, { recursive: true, force: true });
  }
});
