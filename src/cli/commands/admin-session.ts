// What an admin command does before its first request: read --command-config (Kafka's client
// properties), pick the bootstrap server (--bootstrap-server, else bootstrap.servers from the
// file, else the local default), check that it answers, and build the Admin client.
import { Admin } from '../../client/admin/admin.js';
import type { ClientOptions } from '../../client/config.js';
import { clientOptionsFrom, readPropertiesFile } from '../client-props.js';
import { ensureReachable } from '../reach.js';
import type { CommandIO } from './common.js';

export const DEFAULT_BOOTSTRAP = '127.0.0.1:9092';

/** The flags every admin command takes, as Kafka's tools: where to connect, how, and --help. */
export const ADMIN_COMMAND_OPTIONS = {
  'bootstrap-server': { type: 'string' },
  'command-config': { type: 'string' },
  help: { type: 'boolean', short: 'h' },
} as const;

export interface AdminSession {
  admin: Admin;
  /** The options the admin client was built with, for another client of the same command. */
  clientOptions: ClientOptions;
}

export async function openAdmin(
  values: { 'bootstrap-server'?: string | undefined; 'command-config'?: string | undefined },
  io: CommandIO,
): Promise<AdminSession> {
  const file = values['command-config'];
  const props = file ? readPropertiesFile(file, '--command-config') : {};
  const fromProps = clientOptionsFrom('admin', props, (l) => io.stderr.write(`${l}\n`));
  const bootstrap =
    values['bootstrap-server'] ?? (fromProps.bootstrapServers as string | undefined) ?? DEFAULT_BOOTSTRAP;
  await ensureReachable(bootstrap, io);
  const clientOptions = { clientId: 'samsa-cli', ...fromProps, bootstrapServers: bootstrap } as ClientOptions;
  return { admin: new Admin(clientOptions), clientOptions };
}
