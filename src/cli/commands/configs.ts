// `samsa configs`: kafka-configs with its flags and output. Topics and brokers go through
// DescribeConfigs / IncrementalAlterConfigs; users and clients (SCRAM credentials, quotas)
// through configs-users.ts. --describe shows what is set on the entity (its dynamic source),
// --all every value with its source; a sensitive value prints as null whatever the broker sent.
import type { Admin } from '../../client/admin/admin.js';
import type { ConfigDescription, ConfigEntry, ConfigResourceType } from '../../client/admin/configs.js';
import { KafkaResponseError } from '../../client/errors.js';
import { ADMIN_COMMAND_OPTIONS, openAdmin } from './admin-session.js';
import {
  CommandError,
  type CommandIO,
  CommandUsageError,
  parseCommand,
  processIO,
  runCommand,
} from './common.js';
import { configsToAdd, configsToDelete, type Entity, parseEntities } from './configs-args.js';
import { CONFIGS_USAGE } from './configs-usage.js';
import { alterUsersAndClients, describeUsersAndClients } from './configs-users.js';
import { toJson } from './groups-print.js';

const OPTIONS = {
  ...ADMIN_COMMAND_OPTIONS,
  describe: { type: 'boolean' },
  alter: { type: 'boolean' },
  all: { type: 'boolean' },
  'entity-type': { type: 'string', multiple: true },
  'entity-name': { type: 'string', multiple: true },
  'entity-default': { type: 'boolean' },
  topic: { type: 'string' },
  broker: { type: 'string' },
  'broker-defaults': { type: 'boolean' },
  user: { type: 'string' },
  'user-defaults': { type: 'boolean' },
  client: { type: 'string' },
  'client-defaults': { type: 'boolean' },
  ip: { type: 'string' },
  'ip-defaults': { type: 'boolean' },
  'add-config': { type: 'string' },
  'add-config-file': { type: 'string' },
  'delete-config': { type: 'string', multiple: true },
  output: { type: 'string' },
} as const;

export async function runConfigs(argv: readonly string[], io: CommandIO = processIO): Promise<number> {
  return runCommand(io, CONFIGS_USAGE, async () => {
    const { values: v } = parseCommand({ args: [...argv], options: OPTIONS });
    if (v.help) {
      io.stdout.write(CONFIGS_USAGE);
      return 0;
    }
    if (v.describe === v.alter) throw new CommandUsageError('give exactly one action: --describe or --alter');
    const alter = v.alter === true;
    const entities = parseEntities(argv, v, alter);
    const json = outputIsJson(v.output, alter);
    if (!alter && (v['add-config'] !== undefined || v['add-config-file'] !== undefined || v['delete-config']))
      throw new CommandUsageError('--add-config, --add-config-file and --delete-config go with --alter');
    if (alter && v.all) throw new CommandUsageError('--all goes with --describe');
    if (v['add-config'] !== undefined && v['add-config-file'] !== undefined)
      throw new CommandUsageError('give --add-config or --add-config-file, not both');
    const toAdd = alter ? configsToAdd(v['add-config'], v['add-config-file']) : {};
    const toDelete = configsToDelete(v['delete-config']);
    if (alter && Object.keys(toAdd).length === 0 && toDelete.length === 0)
      throw new CommandUsageError('--alter needs --add-config, --add-config-file or --delete-config');
    const first = entities[0]!;
    const quotaEntity = first.type === 'users' || first.type === 'clients' || first.type === 'ips';
    if (v.all && quotaEntity) throw new CommandUsageError('--all goes with topics and brokers');

    const { admin } = await openAdmin(v, io);
    try {
      if (quotaEntity) {
        if (alter) await alterUsersAndClients(admin, entities, toAdd, toDelete, io);
        else await describeUsersAndClients(admin, entities, json, io);
      } else if (alter) await alterResource(admin, first, toAdd, toDelete, io);
      else await describeResources(admin, first, v.all === true, json, io);
      return 0;
    } catch (e) {
      // The broker's words are the useful part; the error class name is not.
      if (e instanceof KafkaResponseError) throw new CommandError(e.message);
      throw e;
    } finally {
      await admin.close();
    }
  });
}

function outputIsJson(output: string | undefined, alter: boolean): boolean {
  if (output === undefined || output === 'text') return false;
  if (output !== 'json') throw new CommandUsageError(`--output is text or json, not "${output}"`);
  if (alter) throw new CommandUsageError('--output json goes with --describe');
  return true;
}

/** The source of a value set on this entity itself. */
function dynamicSource(e: Entity): ConfigEntry['source'] {
  if (e.type === 'topics') return 'DYNAMIC_TOPIC_CONFIG';
  return e.name === '' ? 'DYNAMIC_DEFAULT_BROKER_CONFIG' : 'DYNAMIC_BROKER_CONFIG';
}

function resourceType(e: Entity): ConfigResourceType {
  return e.type === 'topics' ? 'topic' : 'broker';
}

/** "topic orders", "broker 0", "the broker default" — for messages. */
function entityText(e: Entity): string {
  return e.name === '' ? 'the broker default' : `${e.type.slice(0, -1)} ${e.name}`;
}

/** Fails with one line when the named topic or broker does not exist (Kafka only says so). */
async function checkExists(admin: Admin, e: Entity): Promise<void> {
  if (e.name === null || e.name === '') return;
  if (e.type === 'topics') {
    const topics = await admin.listTopics({ includeInternal: true });
    if (!topics.includes(e.name))
      throw new CommandError(`topic '${e.name}' does not exist (samsa topics --list shows the topics)`);
  } else {
    const { brokers } = await admin.describeCluster();
    if (!brokers.some((b) => String(b.nodeId) === e.name))
      throw new CommandError(
        `broker ${e.name} does not exist (brokers: ${brokers.map((b) => b.nodeId).join(', ')}; samsa cluster lists them)`,
      );
  }
}

async function entityConfigs(
  admin: Admin,
  e: Entity & { name: string },
  all: boolean,
): Promise<ConfigEntry[]> {
  const [d] = await admin.describeConfigs([{ type: resourceType(e), name: e.name }], {
    includeSynonyms: true,
  });
  const source = dynamicSource(e);
  return (d as ConfigDescription).entries
    .filter((c) => all || c.source === source)
    .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
}

/** `name=value`, with null for anything sensitive (never the broker's value). */
function shown(name: string, value: string | null, sensitive: boolean): string {
  return `${name}=${sensitive ? 'null' : String(value)}`;
}

/** Kafka's line: `  k=v sensitive=false synonyms={DYNAMIC_TOPIC_CONFIG:k=v, DEFAULT_CONFIG:log.k=v}`. */
export function configLine(c: ConfigEntry): string {
  const synonyms = c.synonyms.map((s) => `${s.source}:${shown(s.name, s.value, c.isSensitive)}`).join(', ');
  return `  ${shown(c.name, c.value, c.isSensitive)} sensitive=${c.isSensitive} synonyms={${synonyms}}\n`;
}

function configJson(c: ConfigEntry) {
  return {
    name: c.name,
    value: c.isSensitive ? null : c.value,
    source: c.source,
    sensitive: c.isSensitive,
    readOnly: c.readOnly,
    synonyms: c.synonyms.map((s) => ({
      name: s.name,
      value: c.isSensitive ? null : s.value,
      source: s.source,
    })),
  };
}

async function describeResources(
  admin: Admin,
  entity: Entity,
  all: boolean,
  json: boolean,
  io: CommandIO,
): Promise<void> {
  await checkExists(admin, entity);
  let names: string[];
  if (entity.name !== null) names = [entity.name];
  else if (entity.type === 'topics') names = (await admin.listTopics({ includeInternal: true })).sort();
  else names = [...(await admin.describeCluster()).brokers.map((b) => String(b.nodeId)), ''];
  const out: unknown[] = [];
  for (const name of names) {
    const e = { type: entity.type, name };
    const configs = await entityConfigs(admin, e, all);
    if (json) {
      out.push({
        entityType: e.type,
        entityName: name === '' ? null : name,
        configs: configs.map(configJson),
      });
      continue;
    }
    io.stdout.write(
      name === ''
        ? 'Default configs for brokers in the cluster are:\n'
        : `${all ? 'All' : 'Dynamic'} configs for ${e.type.slice(0, -1)} ${name} are:\n`,
    );
    for (const c of configs) io.stdout.write(configLine(c));
  }
  if (json) io.stdout.write(toJson(out));
}

async function alterResource(
  admin: Admin,
  entity: Entity,
  toAdd: Record<string, string>,
  toDelete: readonly string[],
  io: CommandIO,
): Promise<void> {
  await checkExists(admin, entity);
  const e = { type: entity.type, name: entity.name! };
  const current = new Set((await entityConfigs(admin, e, false)).map((c) => c.name));
  const missing = toDelete.filter((k) => !current.has(k));
  if (missing.length > 0)
    throw new CommandError(
      `Invalid config(s): ${missing.join(',')} (not set on ${entityText(e)}; samsa configs --describe lists what is)`,
    );
  await admin.incrementalAlterConfigs([
    {
      type: resourceType(e),
      name: e.name,
      ops: [
        ...toDelete.map((key) => ({ key, op: 'delete' as const })),
        ...Object.entries(toAdd).map(([key, value]) => ({ key, op: 'set' as const, value })),
      ],
    },
  ]);
  io.stdout.write(
    e.name === ''
      ? 'Completed updating default config for brokers in the cluster.\n'
      : `Completed updating config for ${entityText(e)}.\n`,
  );
}
