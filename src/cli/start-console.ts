// `samsa start` serves the web console on the broker's `http.listener` (next to /metrics and
// /health), connected to the broker itself through the client, like any other client: the
// console never touches broker internals. `console.*` keys of server.properties configure it
// (console.enable, console.read.only, console.auth.user/password/file,
// console.auth.sasl.mechanisms, console.auth.session.timeout.ms, console.refresh.ms,
// console.idle.refresh.ms, console.throughput.window.ms). With a SASL login the console connects
// to a SASL_PLAINTEXT listener as each logged-in user; otherwise to a PLAINTEXT one as itself.
import type { BrokerHandle } from '../broker/broker.js';
import type { Logger } from '../broker/logger.js';
import { type ConsoleSettings, consoleSettingsFrom } from '../console/options.js';
import { CommandUsageError } from './commands/common.js';

export function readConsoleSettings(props: ReadonlyMap<string, string>): ConsoleSettings {
  try {
    return consoleSettingsFrom(props);
  } catch (e) {
    throw new CommandUsageError((e as Error).message);
  }
}

/** Mounts the console at `/` of http.listener (when set and console.enable is not false). */
export async function mountConsole(
  broker: BrokerHandle,
  settings: ConsoleSettings,
  logger: Logger,
): Promise<{ close(): Promise<void> } | null> {
  if (broker.mountHttp === null || broker.http === null || !settings.enabled) return null;
  // The console is a client: it connects to a plaintext listener of this broker (a SASL_PLAINTEXT
  // one when users log in with their SASL credentials) when there is one.
  const protocol = settings.saslLogin ? 'SASL_PLAINTEXT' : 'PLAINTEXT';
  const plain = broker.endpoints.find((e) => e.securityProtocol === protocol);
  if (plain === undefined) {
    logger.log(
      'warn',
      `web console not started: it needs a ${protocol} listener on this broker (or run samsa console)`,
    );
    return null;
  }
  const { createConsole } = await import('../console/index.js');
  const bootstrap = `${plain.host.includes(':') ? `[${plain.host}]` : plain.host}:${plain.port}`;
  const handle = createConsole({
    client: { bootstrapServers: bootstrap, clientId: 'samsa-console' },
    readOnly: settings.readOnly,
    users: settings.users,
    ...(settings.saslLogin ? { saslLogin: settings.saslLogin } : {}),
    ...(settings.refreshMs !== undefined ? { refreshMs: settings.refreshMs } : {}),
    ...(settings.idleRefreshMs !== undefined ? { idleRefreshMs: settings.idleRefreshMs } : {}),
    ...(settings.throughputWindowMs !== undefined ? { throughputWindowMs: settings.throughputWindowMs } : {}),
  });
  broker.mountHttp('/', handle.handler);
  const h = broker.http.host;
  const shown = h === '0.0.0.0' || h === '::' ? '127.0.0.1' : h.includes(':') ? `[${h}]` : h;
  process.stdout.write(
    `samsa console at http://${shown}:${broker.http.port}/${settings.readOnly ? ' (read-only)' : ''}${settings.users.length || settings.saslLogin ? ' (login required)' : ''}\n`,
  );
  return handle;
}
