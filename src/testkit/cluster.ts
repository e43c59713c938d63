// "A real Kafka cluster inside your test run": a ZooKeeper (the testkit's, or one you pass) and
// N brokers, each in its own process (so a test can kill -9, SIGSTOP/SIGCONT and restart it for
// real) or in this process (cheaper, for tests that only stop brokers cleanly). Each cluster lives
// in its own ZooKeeper chroot, so many clusters can share one ZooKeeper server.

import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import type { Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { type BrokerHandle, startBroker } from '../broker/broker.js';
import type { Logger } from '../broker/logger.js';
import { scaledLimit } from './timeout-scale.js';
import { startTestZooKeeper, type TestZooKeeper } from './zookeeper.js';

export interface TestClusterOptions {
  /** Number of brokers, node ids 1..n. Default 3. */
  brokers?: number;
  /** 'process' (default): one child process per broker; 'in-process': brokers in this process. */
  mode?: 'process' | 'in-process';
  /** Share a running ZooKeeper (each cluster takes a fresh chroot); default: start one, stopped by close(). */
  zookeeper?: TestZooKeeper;
  /** Broker configs for every broker (Kafka names). */
  overrides?: Readonly<Record<string, string | number | boolean>>;
  /**
   * Listeners after the first (PLAINTEXT, the one `bootstrap()` names), e.g.
   * `INTERNAL://127.0.0.1:0`; their protocols, `inter.broker.listener.name` and `ssl.*` go in
   * `overrides` (`listener.security.protocol.map` must then name PLAINTEXT too).
   */
  extraListeners?: string;
  /** `zookeeper.session.timeout.ms` (default 6000: broker loss is noticed in seconds, yet a loaded machine keeps its sessions). */
  sessionTimeoutMs?: number;
  /** Racks by node id (`broker.rack`). */
  racks?: Readonly<Record<number, string>>;
  /** In-process mode only. */
  logger?: Logger;
  /**
   * Start → ready limit per broker (default 120 s × SAMSA_TEST_TIMEOUT_SCALE: a loaded machine is
   * slow, a hang still fails).
   */
  startTimeoutMs?: number;
}

export interface TestClusterBroker {
  readonly nodeId: number;
  readonly dataDir: string;
  /** `host:port` while running, null when stopped. */
  readonly bootstrap: string | null;
  readonly port: number | null;
  readonly running: boolean;
  /** Process mode: the child's pid while running. */
  readonly pid: number | null;
  /** Process mode: everything the broker printed (for failure messages). */
  output(): string;
}

export interface TestCluster {
  /** `zookeeper.connect` of this cluster (with its chroot). */
  readonly zookeeperConnect: string;
  readonly zookeeper: TestZooKeeper;
  /** Every running broker, comma-separated. */
  bootstrap(): string;
  broker(nodeId: number): TestClusterBroker;
  readonly nodeIds: readonly number[];
  /** Graceful stop (controlled shutdown); data kept for restart(). */
  stop(nodeId: number): Promise<void>;
  /** Process mode: SIGKILL (a crash). */
  kill(nodeId: number): Promise<void>;
  /** Process mode: SIGSTOP / SIGCONT (a frozen broker: its ZooKeeper session expires). */
  pause(nodeId: number): void;
  resume(nodeId: number): void;
  /** Starts a stopped or killed broker again on its data. */
  restart(nodeId: number): Promise<void>;
  /** Stops every broker, deletes the data (and the ZooKeeper the cluster started). */
  close(): Promise<void>;
}

/**
 * What a broker process runs: `broker-standby` next to this module, compiled (`dist`) or the
 * TypeScript source (run through tsx). It loads the broker, then waits for its command line.
 */
const STANDBY = ['./broker-standby.js', './broker-standby.ts']
  .map((rel) => fileURLToPath(new URL(rel, import.meta.url)))
  .find((path) => existsSync(path))!;

/** The loader flags of this process (e.g. `--import tsx`), so a child runs the same sources; never `--test`. */
function loaderArgs(): string[] {
  const out: string[] = [];
  const argv = process.execArgv;
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]!;
    if (/^--(import|require|loader|experimental-loader|conditions)=/.test(a)) out.push(a);
    else if (
      /^(--import|--require|-r|--loader|--experimental-loader|--conditions|-C)$/.test(a) &&
      i + 1 < argv.length
    )
      out.push(a, argv[++i]!);
  }
  return out;
}

/**
 * A broker process that loads the broker and waits for its command line (`broker-standby.ts`).
 * An idle one keeps neither this process alive nor itself (`holdOpen(false)`): when this process
 * ends, its stdin closes and it exits.
 */
function spawnStandby(): ChildProcess {
  const child = spawn(process.execPath, [...loaderArgs(), STANDBY], { stdio: ['pipe', 'pipe', 'pipe'] });
  child.stdin!.on('error', () => {}); // gone before it read its command line: its exit says why
  return child;
}

function holdOpen(child: ChildProcess, hold: boolean): void {
  const pipes = [child.stdin, child.stdout, child.stderr] as unknown as (Socket | null)[];
  for (const h of [child, ...pipes]) {
    if (hold) h?.ref();
    else h?.unref();
  }
}

interface Member {
  nodeId: number;
  dataDir: string;
  port: number | null;
  child: ChildProcess | null;
  exited: Promise<void> | null;
  handle: BrokerHandle | null;
  out: string;
}

export async function startTestCluster(options: TestClusterOptions = {}): Promise<TestCluster> {
  const n = options.brokers ?? 3;
  const mode = options.mode ?? 'process';
  const ownZk = options.zookeeper === undefined;
  // A broker process spends most of its start loading modules: the first ones load while
  // ZooKeeper starts. Later, a broker that was killed or stopped is likely to be restarted once
  // its session expired: from the first kill or stop on, one standby loads meanwhile, and a
  // restart only recovers and registers.
  const standbys = mode === 'process' ? Array.from({ length: n }, spawnStandby) : [];
  const dropStandbys = () => {
    for (const c of standbys.splice(0)) c.kill('SIGKILL');
  };
  const zookeeper =
    options.zookeeper ??
    (await startTestZooKeeper().catch((e: unknown) => {
      dropStandbys();
      throw e;
    }));
  let zookeeperConnect: string;
  try {
    zookeeperConnect = await zookeeper.chroot('cluster');
  } catch (e) {
    dropStandbys();
    if (ownZk) await zookeeper.stop();
    throw e;
  }
  const sessionTimeoutMs = options.sessionTimeoutMs ?? 6000;
  const startTimeoutMs = options.startTimeoutMs ?? scaledLimit(120_000);
  const members = new Map<number, Member>();
  for (let id = 1; id <= n; id++) {
    members.set(id, {
      nodeId: id,
      dataDir: await mkdtemp(join(tmpdir(), `samsa-cluster-${id}-`)),
      port: null,
      child: null,
      exited: null,
      handle: null,
      out: '',
    });
  }
  const configFor = (m: Member): Record<string, string> => {
    const c: Record<string, string> = {
      'zookeeper.connect': zookeeperConnect,
      'zookeeper.session.timeout.ms': String(sessionTimeoutMs),
      // A restart reuses its port so clients' bootstrap lists stay valid.
      listeners: [
        `PLAINTEXT://127.0.0.1:${m.port ?? 0}`,
        ...(options.extraListeners ? [options.extraListeners] : []),
      ].join(','),
      'controlled.shutdown.retry.backoff.ms': '500',
    };
    const rack = options.racks?.[m.nodeId];
    if (rack !== undefined) c['broker.rack'] = rack;
    for (const [k, v] of Object.entries(options.overrides ?? {})) c[k] = String(v);
    return c;
  };

  const start = async (m: Member): Promise<void> => {
    if (mode === 'in-process') {
      m.handle = await startBroker({
        dataDir: m.dataDir,
        nodeId: m.nodeId,
        overrides: configFor(m),
        ...(options.logger ? { logger: options.logger } : {}),
      });
      m.port = m.handle.port;
      return;
    }
    const args = ['start', '--data-dir', m.dataDir, '--node-id', String(m.nodeId)];
    for (const [k, v] of Object.entries(configFor(m))) args.push('--override', `${k}=${v}`);
    const child = takeStandby();
    child.stdin!.end(`${JSON.stringify(args)}\n`);
    m.child = child;
    m.out = '';
    const append = (d: Buffer) => {
      m.out = (m.out + d.toString()).slice(-200_000);
    };
    child.stdout!.on('data', append);
    child.stderr!.on('data', append);
    m.exited = new Promise((resolve) => child.once('exit', () => resolve()));
    const deadline = Date.now() + startTimeoutMs;
    for (;;) {
      const found = /listening on [^\s:]+:(\d+)/.exec(m.out);
      if (found) {
        m.port = Number(found[1]);
        return;
      }
      const exited = child.exitCode !== null || child.signalCode !== null;
      if (exited || Date.now() > deadline) {
        child.kill('SIGKILL');
        const why = exited
          ? `exited (${child.exitCode ?? child.signalCode}) before it listened`
          : `timed out after ${startTimeoutMs} ms waiting for it to listen`;
        throw new Error(`broker ${m.nodeId} did not start: ${why}:\n${m.out.slice(-4000)}`);
      }
      await new Promise((r) => setTimeout(r, 50));
    }
  };

  const takeStandby = (): ChildProcess => {
    const live = (c: ChildProcess) => c.exitCode === null && c.signalCode === null;
    const child = standbys.shift();
    if (child !== undefined && live(child)) {
      holdOpen(child, true);
      return child;
    }
    return spawnStandby();
  };
  const prepareStandby = (): void => {
    if (mode !== 'process' || closing || standbys.length > 0) return;
    const child = spawnStandby();
    holdOpen(child, false);
    standbys.push(child);
  };
  let closing = false;

  const stopMember = async (m: Member, signal: NodeJS.Signals): Promise<void> => {
    if (m.handle !== null) {
      const h = m.handle;
      m.handle = null;
      await h.close();
      return;
    }
    const child = m.child;
    if (child === null) return;
    if (child.exitCode === null && child.signalCode === null) {
      if (signal === 'SIGKILL') child.kill('SIGCONT');
      child.kill(signal);
    }
    await m.exited;
    m.child = null;
  };

  try {
    // Brokers start together, as an operator's would; each waits for the controller's word.
    await Promise.all([...members.values()].map(start));
  } catch (e) {
    await Promise.all([...members.values()].map((m) => stopMember(m, 'SIGKILL').catch(() => {})));
    if (ownZk) await zookeeper.stop();
    throw e;
  }

  const member = (id: number): Member => {
    const m = members.get(id);
    if (m === undefined) throw new Error(`no broker ${id} in this cluster`);
    return m;
  };
  const running = (m: Member) =>
    m.handle !== null || (m.child !== null && m.child.exitCode === null && m.child.signalCode === null);
  const needProcess = (m: Member, what: string): ChildProcess => {
    if (m.child === null) throw new Error(`${what} needs a running broker process (mode 'process')`);
    return m.child;
  };

  return {
    zookeeperConnect,
    zookeeper,
    nodeIds: [...members.keys()],
    bootstrap: () =>
      [...members.values()]
        .filter(running)
        .map((m) => `127.0.0.1:${m.port}`)
        .join(','),
    broker(id) {
      const m = member(id);
      return {
        nodeId: m.nodeId,
        dataDir: m.dataDir,
        get bootstrap() {
          return running(m) ? `127.0.0.1:${m.port}` : null;
        },
        get port() {
          return running(m) ? m.port : null;
        },
        get running() {
          return running(m);
        },
        get pid() {
          return m.child?.pid ?? null;
        },
        output: () => m.out,
      };
    },
    stop: (id) => {
      prepareStandby();
      return stopMember(member(id), 'SIGTERM');
    },
    kill: (id) => {
      needProcess(member(id), 'kill');
      prepareStandby();
      return stopMember(member(id), 'SIGKILL');
    },
    pause: (id) => void needProcess(member(id), 'pause').kill('SIGSTOP'),
    resume: (id) => void needProcess(member(id), 'resume').kill('SIGCONT'),
    async restart(id) {
      const m = member(id);
      if (running(m)) throw new Error(`broker ${id} is running`);
      await start(m);
      // A test that restarts once mostly does again: the next standby loads meanwhile (on a
      // loaded machine, the seconds between a kill and its restart are not always enough).
      prepareStandby();
    },
    async close() {
      closing = true;
      dropStandbys();
      await Promise.all([...members.values()].map((m) => stopMember(m, 'SIGKILL').catch(() => {})));
      await Promise.all([...members.values()].map((m) => rm(m.dataDir, { recursive: true, force: true })));
      if (ownZk) await zookeeper.stop();
    },
  };
}
