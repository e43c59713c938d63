// `samsa console`: the web console on a port of its own, against any Kafka-compatible cluster
// (it talks to it only through the client: Admin, Consumer, Producer). Runs until SIGINT/SIGTERM.
//   samsa console [--bootstrap-server H:P] [--port N] [--host HOST] [--command-config FILE]
//                 [--read-only] [--auth-file FILE] [--refresh-ms N]
import type { ClientOptions } from '../../client/index.js';
import { readUsersFile, serveConsole } from '../../console/index.js';
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
  --refresh-ms N           how often lag is sampled for live updates and the history (default 10000)
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
    const refresh = values['refresh-ms'];
    if (refresh !== undefined && !/^\d+$/.test(refresh))
      throw new CommandUsageError(`--refresh-ms expects milliseconds, got ${JSON.stringify(refresh)}`);
    const users = values['auth-file'] !== undefined ? readUsersFile(values['auth-file']) : [];
    await ensureReachable(bootstrap, io);
    const client = { clientId: 'samsa-console', ...fromProps, bootstrapServers: bootstrap } as ClientOptions;
    const server = await serveConsole({
      client,
      readOnly: values['read-only'] ?? false,
      users,
      ...(refresh !== undefined ? { refreshMs: Math.max(250, Number(refresh)) } : {}),
      host: values.host ?? '127.0.0.1',
      port: port(values.port, 'port', 8080),
    });
    io.stdout.write(
      `samsa console for ${bootstrap} at ${server.url}${values['read-only'] ? ' (read-only)' : ''}${users.length ? ' (login required)' : ''}\n`,
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
