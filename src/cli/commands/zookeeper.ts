// `samsa zookeeper`: what Kafka's zookeeper-server-start.sh is. Runs the ZooKeeper server of the
// Debian `zookeeper` package in the foreground as a child process, with a generated standalone
// config (production settings: fsync on), forwards SIGINT/SIGTERM to it and exits with its status.
//   samsa zookeeper [--port 2181] [--data-dir DIR]

import { constants } from 'node:os';
import { resolve } from 'node:path';
import { parseArgs } from 'node:util';
import {
  assertZooKeeperInstalled,
  PRODUCTION_SETTINGS,
  spawnZooKeeper,
  writeZooKeeperConfig,
  ZooKeeperNotInstalledError,
} from '../../broker/metadata/zookeeper/zk-server.js';

export const ZOOKEEPER_USAGE = `Usage: samsa zookeeper [options]

Runs a standalone ZooKeeper server in the foreground (as Kafka's zookeeper-server-start.sh),
for brokers started with zookeeper.connect=HOST:PORT. Needs the Debian package "zookeeper".

  --port N          client port (default 2181)
  --data-dir DIR    snapshots and transaction logs (default ./zookeeper-data)
  -h, --help        this text
`;

export interface ZooKeeperCommandIO {
  stdout: { write(s: string): unknown };
  stderr: { write(s: string): unknown };
}

const processIO: ZooKeeperCommandIO = { stdout: process.stdout, stderr: process.stderr };

export async function runZooKeeper(
  argv: readonly string[],
  io: ZooKeeperCommandIO = processIO,
): Promise<number> {
  let values: { port?: string | undefined; 'data-dir'?: string | undefined; help?: boolean | undefined };
  try {
    ({ values } = parseArgs({
      args: [...argv],
      strict: true,
      allowPositionals: false,
      options: {
        port: { type: 'string' },
        'data-dir': { type: 'string' },
        help: { type: 'boolean', short: 'h' },
      },
    }));
  } catch (e) {
    io.stderr.write(`samsa zookeeper: ${(e as Error).message}\n\n${ZOOKEEPER_USAGE}`);
    return 1;
  }
  if (values.help) {
    io.stdout.write(ZOOKEEPER_USAGE);
    return 0;
  }
  const port = values.port === undefined ? 2181 : Number(values.port);
  if (!/^\d+$/.test(values.port ?? '2181') || port < 1 || port > 65535) {
    io.stderr.write(`samsa zookeeper: --port expects 1..65535, got ${JSON.stringify(values.port)}\n`);
    return 1;
  }
  try {
    assertZooKeeperInstalled();
  } catch (e) {
    if (!(e instanceof ZooKeeperNotInstalledError)) throw e;
    io.stderr.write(`samsa zookeeper: ${e.message}\n`);
    return 1;
  }
  const dataDir = resolve(values['data-dir'] ?? 'zookeeper-data');
  const configPath = await writeZooKeeperConfig(dataDir, port, PRODUCTION_SETTINGS);
  io.stderr.write(`samsa zookeeper: port ${port}, data ${dataDir}, config ${configPath}\n`);
  const child = spawnZooKeeper(configPath, { heapMb: 512 }, 'inherit');
  // A terminal's Ctrl-C reaches java too (same process group); forwarding covers `kill <our pid>`.
  const forward = (signal: NodeJS.Signals): void => {
    if (child.exitCode === null && child.signalCode === null) child.kill(signal);
  };
  const onInt = (): void => forward('SIGINT');
  const onTerm = (): void => forward('SIGTERM');
  process.on('SIGINT', onInt);
  process.on('SIGTERM', onTerm);
  try {
    return await new Promise<number>((done) => {
      child.once('error', (e: NodeJS.ErrnoException) => {
        io.stderr.write(
          e.code === 'ENOENT'
            ? 'samsa zookeeper: cannot run "java": install a Java runtime (the Debian package "zookeeper" pulls one in)\n'
            : `samsa zookeeper: cannot start ZooKeeper: ${e.message}\n`,
        );
        done(1);
      });
      child.once('exit', (code, signal) => {
        done(code ?? (signal ? 128 + (constants.signals[signal] ?? 0) : 1));
      });
    });
  } finally {
    process.off('SIGINT', onInt);
    process.off('SIGTERM', onTerm);
  }
}
