// A real ZooKeeper for tests: the Debian package's server as a child process on a free loopback
// port, with 1 s sessions allowed and no fsync. Start one per test file and give each test its own
// chroot (`chroot()`, ~40 ms) instead of its own server (4–12 s on a loaded machine); start a
// dedicated one only where a test kills ZooKeeper itself.

import type { ChildProcess } from 'node:child_process';
import { closeSync, openSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { mkdtemp, readFile } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ZkClient } from '../broker/metadata/zookeeper/zk-client.js';
import { isZkError } from '../broker/metadata/zookeeper/zk-errors.js';
import {
  assertZooKeeperInstalled,
  spawnZooKeeper,
  TEST_SETTINGS,
  waitForZooKeeper,
  writeZooKeeperConfig,
} from '../broker/metadata/zookeeper/zk-server.js';
import { scaledLimit } from './timeout-scale.js';

export interface TestZooKeeperOptions {
  /** Reuse a data directory (kept on stop); default: a fresh temp dir, deleted on stop. */
  dataDir?: string;
  /** Default: a free port. */
  port?: number;
  /** Spawn → ready limit. Default 60 s × SAMSA_TEST_TIMEOUT_SCALE. */
  readyTimeoutMs?: number;
}

export interface TestZooKeeper {
  /** `127.0.0.1:PORT` (no chroot). */
  readonly connectString: string;
  readonly host: string;
  readonly port: number;
  /** Pid of the running java process (changes on restart). */
  readonly pid: number;
  readonly dataDir: string;
  /** The server's log (stdout + stderr). */
  readonly logFile: string;
  /** Creates a fresh chroot znode and returns `127.0.0.1:PORT/<chroot>`. */
  chroot(prefix?: string): Promise<string>;
  /** SIGTERM and wait; deletes the data dir if this testkit created it. */
  stop(): Promise<void>;
  /** SIGKILL and wait (a crash); data kept, so restart() brings the same state back. */
  kill(): Promise<void>;
  /** Starts again on the same port and data after kill(). */
  restart(): Promise<void>;
}

const HOST = '127.0.0.1';
/** Marks our servers so a later run can recognise orphans of a test process that was killed. */
const OWNER_PROPERTY = 'samsa.testkit.owner';

const live = new Map<number, ChildProcess>();
const tempDirs = new Set<string>();
let exitHookInstalled = false;

function installExitHook(): void {
  if (exitHookInstalled) return;
  exitHookInstalled = true;
  // 'exit' handlers must be synchronous: kill by pid, remove temp dirs.
  process.on('exit', () => {
    for (const pid of live.keys()) {
      try {
        process.kill(pid, 'SIGKILL');
      } catch {
        // already gone
      }
    }
    for (const dir of tempDirs) rmSync(dir, { recursive: true, force: true });
  });
}

/** Kills servers started by test processes that died without stopping them (Linux /proc only). */
function reapOrphans(): void {
  let pids: string[];
  try {
    pids = readdirSync('/proc').filter((d) => /^\d+$/.test(d));
  } catch {
    return;
  }
  for (const pid of pids) {
    let cmd: string;
    try {
      cmd = readFileSync(`/proc/${pid}/cmdline`, 'utf8');
    } catch {
      continue;
    }
    const m = new RegExp(`-D${OWNER_PROPERTY.replace(/\./g, '\\.')}=(\\d+)\\0`).exec(cmd);
    if (!m || !cmd.includes('QuorumPeerMain')) continue;
    try {
      process.kill(Number(m[1]), 0);
      continue; // its owner is alive: not ours to touch
    } catch {
      // owner gone
    }
    try {
      process.kill(Number(pid), 'SIGKILL');
    } catch {
      // raced with its own exit
    }
  }
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.once('error', reject);
    srv.listen(0, HOST, () => {
      const { port } = srv.address() as { port: number };
      srv.close(() => resolve(port));
    });
  });
}

function exited(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((r) => child.once('exit', () => r()));
}

async function tail(file: string, lines = 25): Promise<string> {
  try {
    return (await readFile(file, 'utf8')).split('\n').slice(-lines).join('\n');
  } catch {
    return '(no log)';
  }
}

async function spawnAndWait(
  dataDir: string,
  port: number,
  logFile: string,
  readyTimeoutMs: number,
): Promise<ChildProcess> {
  const configPath = await writeZooKeeperConfig(dataDir, port, TEST_SETTINGS);
  const fd = openSync(logFile, 'a');
  let child: ChildProcess;
  try {
    child = spawnZooKeeper(
      configPath,
      { heapMb: 256, fastStartup: true, systemProperties: { [OWNER_PROPERTY]: String(process.pid) } },
      ['ignore', fd, fd],
    );
  } finally {
    closeSync(fd); // the child has its own copy
  }
  let spawnError: Error | null = null;
  child.once('error', (e) => {
    spawnError = e;
  });
  if (child.pid !== undefined) live.set(child.pid, child);
  child.once('exit', () => {
    if (child.pid !== undefined) live.delete(child.pid);
  });
  try {
    await waitForZooKeeper(HOST, port, {
      timeoutMs: readyTimeoutMs,
      failure: () => {
        if (spawnError) return new Error(`cannot run java for ZooKeeper: ${(spawnError as Error).message}`);
        if (child.exitCode !== null || child.signalCode !== null)
          return new Error(`ZooKeeper exited (${child.exitCode ?? child.signalCode}) before it was ready`);
        return null;
      },
    });
  } catch (e) {
    child.kill('SIGKILL');
    await exited(child);
    throw new Error(`${(e as Error).message}\n--- ${logFile} ---\n${await tail(logFile)}`);
  }
  return child;
}

export async function startTestZooKeeper(options: TestZooKeeperOptions = {}): Promise<TestZooKeeper> {
  assertZooKeeperInstalled();
  installExitHook();
  reapOrphans();
  const ownDir = options.dataDir === undefined;
  const dataDir = options.dataDir ?? (await mkdtemp(join(tmpdir(), 'samsa-zk-')));
  if (ownDir) tempDirs.add(dataDir);
  const logFile = join(dataDir, 'zookeeper.log');
  const readyTimeoutMs = options.readyTimeoutMs ?? scaledLimit(60_000);
  let port = options.port ?? (await freePort());
  let child: ChildProcess | undefined;
  // A free port can be taken between our probe and java's bind: try another one then.
  for (let attempt = 1; !child; attempt++) {
    try {
      child = await spawnAndWait(dataDir, port, logFile, readyTimeoutMs);
    } catch (e) {
      if (options.port !== undefined || attempt >= 3 || !/exited/.test((e as Error).message)) {
        if (ownDir) {
          rmSync(dataDir, { recursive: true, force: true });
          tempDirs.delete(dataDir);
        }
        throw e;
      }
      port = await freePort();
    }
  }
  let current: ChildProcess = child;
  let admin: ZkClient | null = null;
  let chroots = 0;
  const connectString = `${HOST}:${port}`;
  const terminate = async (signal: NodeJS.Signals): Promise<void> => {
    if (current.exitCode !== null || current.signalCode !== null) return;
    current.kill(signal);
    const timer = setTimeout(() => current.kill('SIGKILL'), 15_000);
    await exited(current);
    clearTimeout(timer);
  };
  return {
    connectString,
    host: HOST,
    get port() {
      return port;
    },
    get pid() {
      return current.pid ?? -1;
    },
    dataDir,
    logFile,
    async chroot(prefix = 't') {
      admin ??= await ZkClient.connect(connectString, {
        sessionTimeoutMs: 10_000,
        connectionTimeoutMs: 30_000,
      });
      const name = `/${prefix}-${process.pid}-${++chroots}-${Math.random().toString(36).slice(2, 8)}`;
      try {
        await admin.create(name);
      } catch (e) {
        if (!isZkError(e, 'NODE_EXISTS')) throw e;
      }
      return connectString + name;
    },
    async stop() {
      const a = admin;
      admin = null;
      if (a) await a.close();
      await terminate('SIGTERM');
      if (ownDir) {
        rmSync(dataDir, { recursive: true, force: true });
        tempDirs.delete(dataDir);
      }
    },
    async kill() {
      await terminate('SIGKILL');
    },
    async restart() {
      await terminate('SIGTERM');
      current = await spawnAndWait(dataDir, port, logFile, readyTimeoutMs);
    },
  };
}

/**
 * Expires `client`'s current session from the outside, as ZooKeeper's own tests do: join the
 * session from a second connection with its id and password, then close that connection, which
 * closes the session. The client learns it on its next reconnection (its read timeout forces one
 * within 2/3 of the session timeout). Retries, since the client reconnecting at the same moment
 * can take the session back before the close lands. Resolves once the client emitted 'expired'.
 */
export async function expireZkSession(client: ZkClient, timeoutMs = scaledLimit(60_000)): Promise<void> {
  const victim = client.sessionId;
  let expired = false;
  const onExpired = (id: bigint): void => {
    if (id === victim) expired = true;
  };
  client.on('expired', onExpired);
  try {
    const deadline = Date.now() + timeoutMs;
    while (!expired && client.sessionIds.at(-1) === victim) {
      if (Date.now() > deadline)
        throw new Error(
          `timed out after ${timeoutMs} ms waiting for session 0x${victim.toString(16)} to expire`,
        );
      const creds = client.sessionCredentials();
      try {
        const intruder = await ZkClient.connect(client.connectString, {
          session: creds,
          renewExpiredSession: false,
          connectionTimeoutMs: 10_000,
        });
        await intruder.close();
      } catch (e) {
        if (!isZkError(e, 'SESSION_EXPIRED', 'CONNECT_TIMEOUT')) throw e;
      }
      const until = Date.now() + Math.max(3000, client.negotiatedSessionTimeoutMs * 2);
      while (!expired && Date.now() < until) await new Promise((r) => setTimeout(r, 25));
    }
  } finally {
    client.off('expired', onExpired);
  }
}
