// `samsa start`: runs one broker in this process until SIGINT/SIGTERM, then stops gracefully
// (answers in-flight requests, flushes, writes checkpoints). A second signal exits at once.

import { parseArgs } from 'node:util';
import { startBroker } from '../broker/broker.js';
import { loadBrokerConfig } from '../broker/config/broker-config.js';
import type { LogLevel } from '../broker/logger.js';
import { consoleLogger } from './console-logger.js';

export const START_USAGE = `Usage: samsa start [options]

  --config FILE          Kafka-style server.properties
  --host HOST            address to listen on (default 127.0.0.1)
  --port N               port to listen on (default 9092; 0 = any free port)
  --data-dir DIR         log directory (log.dirs; default ./data)
  --node-id N            node.id (default 1)
  --override KEY=VALUE   any Kafka broker config; repeatable; wins over the file
  --log-level LEVEL      debug | info | warn | error (default info)
`;

export class UsageError extends Error {}

function parseIntFlag(name: string, v: string | undefined): number | undefined {
  if (v === undefined) return undefined;
  if (!/^\d+$/.test(v))
    throw new UsageError(`--${name} expects a non-negative integer, got ${JSON.stringify(v)}`);
  return Number(v);
}

export async function runStart(argv: readonly string[]): Promise<void> {
  const { values } = parseArgs({
    args: [...argv],
    strict: true,
    allowPositionals: false,
    options: {
      config: { type: 'string' },
      host: { type: 'string' },
      port: { type: 'string' },
      'data-dir': { type: 'string' },
      'node-id': { type: 'string' },
      override: { type: 'string', multiple: true },
      'log-level': { type: 'string' },
      help: { type: 'boolean', short: 'h' },
    },
  });
  if (values.help) {
    process.stdout.write(START_USAGE);
    return;
  }
  const overrides: Record<string, string> = {};
  for (const o of values.override ?? []) {
    const eq = o.indexOf('=');
    if (eq <= 0) throw new UsageError(`--override expects KEY=VALUE, got ${JSON.stringify(o)}`);
    overrides[o.slice(0, eq).trim()] = o.slice(eq + 1);
  }
  const level = (values['log-level'] ?? 'info') as LogLevel;
  if (!['debug', 'info', 'warn', 'error'].includes(level)) throw new UsageError(`unknown log level ${level}`);
  const port = parseIntFlag('port', values.port);
  const nodeId = parseIntFlag('node-id', values['node-id']);
  const config = loadBrokerConfig({
    ...(values.config !== undefined ? { configFile: values.config } : {}),
    ...(values.host !== undefined ? { host: values.host } : {}),
    ...(port !== undefined ? { port } : {}),
    ...(values['data-dir'] !== undefined ? { dataDir: values['data-dir'] } : {}),
    ...(nodeId !== undefined ? { nodeId } : {}),
    overrides,
  });
  const broker = await startBroker({ config, logger: consoleLogger(level) });
  process.stdout.write(
    `samsa broker ${broker.nodeId} listening on ${broker.bootstrap} (cluster ${broker.clusterId}, data in ${config.logDirs.join(',')})\n`,
  );
  let stopping = false;
  const stop = (signal: string): void => {
    if (stopping) {
      process.stderr.write(`${signal} again: exiting without a clean shutdown\n`);
      process.exit(1);
    }
    stopping = true;
    process.stdout.write(`${signal}: stopping broker ${broker.nodeId}\n`);
    broker.close().then(
      () => {
        process.stdout.write('stopped\n');
        process.exit(0);
      },
      (e: unknown) => {
        process.stderr.write(`shutdown failed: ${String(e)}\n`);
        process.exit(1);
      },
    );
  };
  process.on('SIGINT', () => stop('SIGINT'));
  process.on('SIGTERM', () => stop('SIGTERM'));
}
