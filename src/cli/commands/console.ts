// `samsa console`: the web console on a port of its own, against any Kafka-compatible cluster
// (it talks to it only through the client: Admin, Consumer, Producer). Runs until SIGINT/SIGTERM.
//   samsa console [--bootstrap-server H:P] [--port N] [--host HOST] [--command-config FILE]
//                 [--read-only] [--auth-file FILE | --sasl-login MECHS [--session-timeout-ms N]]
//                 [--refresh-ms N] [--idle-refresh-ms N] [--throughput-window-ms N]
import type { ClientOptions } from '../../client/index.js';
import {
  ConsoleConfigError,
  parseSaslMechanisms,
  readUsersFile,
  type SaslLoginOptions,
  serveConsole,
} from '../../console/index.js';
import { clientOptionsFrom, readPropertiesFile } from '../client-props.js';
import { ensureReachable } from '../reach.js';
import { DEFAULT_BOOTSTRAP } from './admin-session.js';
import { type CommandIO, CommandUsageError, parseCommand, processIO, runCommand } from './common.js';

export const CONSOLE_USAGE = `Usage: samsa console [options]

Serves the web console (cluster, topics, messages, consumer groups, ACLs, quotas) for a Kafka
cluster.

  --bootstrap-server H:P   the cluster (default: bootstrap.servers of --command-config, else ${DEFAULT_BOOTSTRAP})
  --command-config FILE    client properties (security, timeouts), as Kafka's tools
  --port N                 HTTP port (default 8080; 0 = any free port)
  --host HOST              address to listen on (default 127.0.0.1)
  --read-only              refuse every write (the UI hides write actions, the API answers 403)
  --auth-file FILE         require a login: one user:password per line
  --sasl-login MECHS       log users in with their own Kafka credentials (e.g. SCRAM-SHA-256,PLAIN):
                           checked against the cluster, whose ACLs then apply to each user; the
                           bootstrap server must be a SASL listener (for SASL_SSL, give the TLS
                           settings with security.protocol=SSL in --command-config)
  --session-timeout-ms N   a login lasts this long (default 28800000, 8 h)
  --refresh-ms N           how often the cluster is sampled (lag, throughput) while a page is open (default 10000)
  --idle-refresh-ms N      how often while no page is open (default 60000; 0 = not at all)
  --throughput-window-ms N the window throughput rates average over (default 60000)
`;

function port(v: string | undefined, name: string, dflt: number): number {
  if (v === undefined) return dflt;
  if (!/^\d+$/.test(v) || Number(v) > 65535)
    throw new CommandUsageError(`--${name} expects a port number, got ${JSON.stringify(v)}`);
  return Number(v);
}

/** Resolves once the console listens (-1: keep the process running); 1 on failure. */
export async function runConsole(argv: readonly string[], io: CommandIO = processIO): Promise<number> {
  return runCommand(io, CONSOLE_USAGE, async () => {
    const { values } = parseCommand({
      args: [...argv],
      options: {
        'bootstrap-server': { type: 'string' },
        'command-config': { type: 'string' },
        port: { type: 'string' },
        host: { type: 'string' },
        'read-only': { type: 'boolean' },
        'auth-file': { type: 'string' },
        'refresh-ms': { type: 'string' },
        'idle-refresh-ms': { type: 'string' },
        'throughput-window-ms': { type: 'string' },
        'sasl-login': { type: 'string' },
        'session-timeout-ms': { type: 'string' },
        help: { type: 'boolean', short: 'h' },
      },
    });
    if (values.help) {
      io.stdout.write(CONSOLE_USAGE);
      return 0;
    }
    const file = values['command-config'];
    const props = file ? readPropertiesFile(file, '--command-config') : {};
    const fromProps = clientOptionsFrom('admin', props, (l) => io.stderr.write(`${l}\n`));
    const bootstrap =
      values['bootstrap-server'] ?? (fromProps.bootstrapServers as string | undefined) ?? DEFAULT_BOOTSTRAP;
    const ms = (name: string, min: number): number | undefined => {
      const v = (values as Record<string, string | boolean | undefined>)[name];
      if (v === undefined) return undefined;
      if (typeof v !== 'string' || !/^\d+$/.test(v))
        throw new CommandUsageError(`--${name} expects milliseconds, got ${JSON.stringify(v)}`);
      return Math.max(min, Number(v));
    };
    const refreshMs = ms('refresh-ms', 250);
    const idleRefreshMs = ms('idle-refresh-ms', 0);
    const throughputWindowMs = ms('throughput-window-ms', 1000);
    const sessionTimeoutMs = ms('session-timeout-ms', 1000);
    const users = values['auth-file'] !== undefined ? readUsersFile(values['auth-file']) : [];
    let saslLogin: SaslLoginOptions | undefined;
    if (values['sasl-login'] !== undefined) {
      if (users.length > 0) throw new CommandUsageError('--sasl-login and --auth-file exclude each other');
      try {
        saslLogin = { mechanisms: parseSaslMechanisms(values['sasl-login'], '--sasl-login') };
      } catch (e) {
        if (e instanceof ConsoleConfigError) throw new CommandUsageError(e.message);
        throw e;
      }
      if (sessionTimeoutMs !== undefined) saslLogin = { ...saslLogin, sessionTimeoutMs };
    } else if (sessionTimeoutMs !== undefined)
      throw new CommandUsageError('--session-timeout-ms goes with --sasl-login');
    await ensureReachable(bootstrap, io);
    const client = { clientId: 'samsa-console', ...fromProps, bootstrapServers: bootstrap } as ClientOptions;
    const server = await serveConsole({
      client,
      readOnly: values['read-only'] ?? false,
      users,
      ...(saslLogin ? { saslLogin } : {}),
      ...(refreshMs !== undefined ? { refreshMs } : {}),
      ...(idleRefreshMs !== undefined ? { idleRefreshMs } : {}),
      ...(throughputWindowMs !== undefined ? { throughputWindowMs } : {}),
      host: values.host ?? '127.0.0.1',
      port: port(values.port, 'port', 8080),
    });
    io.stdout.write(
      `samsa console for ${bootstrap} at ${server.url}${values['read-only'] ? ' (read-only)' : ''}${users.length ? ' (login required)' : ''}${saslLogin ? ` (log in with SASL ${saslLogin.mechanisms.join(', ')})` : ''}\n`,
    );
    const stop = () => {
      server.close().then(
        () => process.exit(0),
        () => process.exit(1),
      );
    };
    process.once('SIGINT', stop);
    process.once('SIGTERM', stop);
    return -1;
  });
}
