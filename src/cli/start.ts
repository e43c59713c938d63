// `samsa start`: runs one broker in this process until SIGINT/SIGTERM, then stops gracefully
// (answers in-flight requests, flushes, writes checkpoints). A second signal exits at once.
// Like kafka-server-start, a lone argument is the server.properties file.

import type { BrokerConfig } from '../broker/config/broker-config.js';
import type { LogLevel } from '../broker/logger.js';
import { CommandUsageError, parseCommand } from './commands/common.js';
import { configKeyReport } from './config-warnings.js';
import { consoleLogger } from './console-logger.js';
import { mountConsole, readConsoleSettings } from './start-console.js';

export const START_USAGE = `Usage: samsa start [server.properties] [options]

  --config FILE          Kafka-style server.properties
  --host HOST            address to listen on (default 127.0.0.1)
  --port N               port to listen on (default 9092; 0 = any free port)
  --data-dir DIR         log directory (log.dirs; default ./data)
  --node-id N            node.id (default 1)
  --zookeeper CONNECT    join a cluster: zookeeper.connect (host:port[,host:port...][/chroot])
  --override KEY=VALUE   any Kafka broker config; repeatable; wins over the file
  --log-level LEVEL      debug | info | warn | error (default info); debug logs every request
  --log-format FORMAT    text | json: one line per event on stderr (default: log.format, text)
`;

/** A mistake on `samsa start`'s command line. */
export class UsageError extends CommandUsageError {}

function parseIntFlag(name: string, v: string | undefined): number | undefined {
  if (v === undefined) return undefined;
  if (!/^\d+$/.test(v))
    throw new UsageError(`--${name} expects a non-negative integer, got ${JSON.stringify(v)}`);
  return Number(v);
}

function hostPort(host: string, port: number): string {
  return `${host.includes(':') ? `[${host}]` : host}:${port}`;
}

/** What the banner says: the address bound, and the one given to clients when it differs. */
export function startBanner(
  b: {
    nodeId: number;
    clusterId: string;
    host: string;
    port: number;
    listener: { host: string; port: number };
  },
  config: BrokerConfig,
): string {
  const bound = hostPort(b.listener.host, b.listener.port);
  const wildcard = b.listener.host === '0.0.0.0' || b.listener.host === '::' ? ' (all interfaces)' : '';
  const advertised = hostPort(b.host, b.port);
  const adv = advertised === bound ? '' : `, advertised to clients as ${advertised}`;
  return `samsa broker ${b.nodeId} listening on ${bound}${wildcard}${adv} (cluster ${b.clusterId}, data in ${config.logDirs.join(',')})\n`;
}

export async function runStart(argv: readonly string[]): Promise<void> {
  const { values, positionals } = parseCommand({
    args: [...argv],
    allowPositionals: true,
    options: {
      config: { type: 'string' },
      host: { type: 'string' },
      port: { type: 'string' },
      'data-dir': { type: 'string' },
      'node-id': { type: 'string' },
      zookeeper: { type: 'string' },
      override: { type: 'string', multiple: true },
      'log-level': { type: 'string' },
      'log-format': { type: 'string' },
      help: { type: 'boolean', short: 'h' },
    },
  });
  if (values.help) {
    process.stdout.write(START_USAGE);
    return;
  }
  if (positionals.length > 1 || (positionals.length === 1 && values.config !== undefined))
    throw new UsageError(
      `unexpected argument ${JSON.stringify(positionals.at(-1))} (one config file at most)`,
    );
  const configFile = values.config ?? positionals[0];
  const overrides: Record<string, string> = {};
  for (const o of values.override ?? []) {
    const eq = o.indexOf('=');
    if (eq <= 0) throw new UsageError(`--override expects KEY=VALUE, got ${JSON.stringify(o)}`);
    overrides[o.slice(0, eq).trim()] = o.slice(eq + 1);
  }
  if (values.zookeeper !== undefined) overrides['zookeeper.connect'] = values.zookeeper;
  const level = (values['log-level'] ?? 'info') as LogLevel;
  if (!['debug', 'info', 'warn', 'error'].includes(level))
    throw new UsageError(`unknown log level ${JSON.stringify(level)} (debug, info, warn or error)`);
  const formatFlag = values['log-format'];
  if (formatFlag !== undefined && formatFlag !== 'text' && formatFlag !== 'json')
    throw new UsageError(`unknown log format ${JSON.stringify(formatFlag)} (text or json)`);
  const port = parseIntFlag('port', values.port);
  if (port !== undefined && port > 65535) throw new UsageError(`--port must be at most 65535, got ${port}`);
  const nodeId = parseIntFlag('node-id', values['node-id']);
  const { loadBrokerConfig } = await import('../broker/config/broker-config.js');
  const config = loadBrokerConfig({
    ...(configFile !== undefined ? { configFile } : {}),
    ...(values.host !== undefined ? { host: values.host } : {}),
    ...(port !== undefined ? { port } : {}),
    ...(values['data-dir'] !== undefined ? { dataDir: values['data-dir'] } : {}),
    ...(nodeId !== undefined ? { nodeId } : {}),
    overrides,
  });
  const logger = consoleLogger(
    level,
    formatFlag ?? (config.props.get('log.format') === 'json' ? 'json' : 'text'),
  );
  const consoleSettings = readConsoleSettings(config.props);
  const report = configKeyReport([...config.props.keys()].filter((k) => !k.startsWith('console.')));
  for (const line of report.unknown) logger.log('warn', line);
  if (report.noEffect.length > 0)
    logger.log('info', `Kafka configs that have no effect in samsa: ${report.noEffect.join(', ')}`);
  const { startBroker } = await import('../broker/broker.js');
  const broker = await startBroker({ config, logger });
  let webConsole: Awaited<ReturnType<typeof mountConsole>> = null;
  let stopping = false;
  const stop = (signal: string): void => {
    if (stopping) {
      process.stderr.write(`${signal} again: exiting without a clean shutdown\n`);
      process.exit(1);
    }
    stopping = true;
    process.stdout.write(`${signal}: stopping broker ${broker.nodeId}\n`);
    (webConsole?.close() ?? Promise.resolve())
      .then(() => broker.close())
      .then(
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
  // Before anything is printed: whoever waits for the banner may signal at once.
  process.on('SIGINT', () => stop('SIGINT'));
  process.on('SIGTERM', () => stop('SIGTERM'));
  webConsole = await mountConsole(broker, consoleSettings, logger);
  process.stdout.write(startBanner(broker, config));
}
