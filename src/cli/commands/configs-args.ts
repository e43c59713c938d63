// What `samsa configs` reads from its command line, with kafka-configs' rules: which entities
// (--entity-type/--entity-name/--entity-default pairs in command-line order, or the --topic,
// --broker, --user, … shortcuts), the `k=v,k2=[a,b]` syntax of --add-config, and SCRAM
// credentials (`[iterations=N,]password=P`). Error messages never repeat a password.
import {
  isScramMechanism,
  SCRAM_MAX_ITERATIONS,
  SCRAM_MIN_ITERATIONS,
  type ScramMechanism,
} from '../../net/sasl/scram-crypto.js';
import { readPropertiesFile } from '../client-props.js';
import { CommandUsageError } from './common.js';

export type EntityType = 'topics' | 'brokers' | 'users' | 'clients' | 'ips';

export interface Entity {
  readonly type: EntityType;
  /** '' = the default entity (cluster-wide broker default, default user/client); null = all. */
  readonly name: string | null;
}

const ENTITY_TYPES: readonly EntityType[] = ['topics', 'brokers', 'users', 'clients', 'ips'];
/** Kafka's other entity types, which samsa does not have. */
const OTHER_KAFKA_TYPES = ['broker-loggers', 'client-metrics', 'groups'];

/** The quota keys of users and clients (Kafka's QuotaConfig). */
export const QUOTA_KEYS = [
  'producer_byte_rate',
  'consumer_byte_rate',
  'request_percentage',
  'controller_mutation_rate',
];

/** The quota key of IP addresses. */
export const IP_QUOTA_KEYS = ['connection_creation_rate'];

const SHORTCUTS: readonly { flag: string; type: EntityType; isDefault: boolean }[] = [
  { flag: 'topic', type: 'topics', isDefault: false },
  { flag: 'broker', type: 'brokers', isDefault: false },
  { flag: 'broker-defaults', type: 'brokers', isDefault: true },
  { flag: 'user', type: 'users', isDefault: false },
  { flag: 'user-defaults', type: 'users', isDefault: true },
  { flag: 'client', type: 'clients', isDefault: false },
  { flag: 'client-defaults', type: 'clients', isDefault: true },
  { flag: 'ip', type: 'ips', isDefault: false },
  { flag: 'ip-defaults', type: 'ips', isDefault: true },
];

function entityType(text: string): { type: EntityType; isDefault: boolean } {
  if (text === 'brokers-default') return { type: 'brokers', isDefault: true };
  if ((ENTITY_TYPES as readonly string[]).includes(text))
    return { type: text as EntityType, isDefault: false };
  if (OTHER_KAFKA_TYPES.includes(text))
    throw new CommandUsageError(
      `entity type ${text} is not supported by samsa; use topics, brokers, brokers-default, users, clients or ips`,
    );
  throw new CommandUsageError(
    `invalid entity type "${text}": use topics, brokers, brokers-default, users, clients or ips`,
  );
}

/** `--entity-name X`, `--entity-name=X` and `--entity-default` in command-line order. */
function entityNamesInOrder(argv: readonly string[]): string[] {
  const names: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]!;
    if (a === '--entity-default') names.push('');
    else if (a === '--entity-name' && i + 1 < argv.length) names.push(argv[++i]!);
    else if (a.startsWith('--entity-name=')) names.push(a.slice('--entity-name='.length));
  }
  return names;
}

export interface EntityFlags {
  'entity-type'?: string[] | undefined;
  'entity-name'?: string[] | undefined;
  'entity-default'?: boolean | undefined;
  [shortcut: string]: unknown;
}

/** The entities named on the command line (one, or a user with a client), checked as Kafka does. */
export function parseEntities(argv: readonly string[], v: EntityFlags, alter: boolean): Entity[] {
  const generic = (v['entity-type'] ?? []).map(entityType);
  const shortcuts = SHORTCUTS.filter((s) => v[s.flag] !== undefined && v[s.flag] !== false);
  if (generic.length > 0 && shortcuts.length > 0)
    throw new CommandUsageError(
      '--entity-type/--entity-name/--entity-default do not go with --topic, --broker, --user, --client and their -defaults',
    );
  if (generic.length === 0 && shortcuts.length === 0)
    throw new CommandUsageError(
      'name an entity: --entity-type topics|brokers|brokers-default|users|clients (or --topic, --broker, --user, --client)',
    );
  let entities: Entity[];
  if (shortcuts.length > 0) {
    entities = shortcuts.map((s) => ({ type: s.type, name: s.isDefault ? '' : String(v[s.flag]) }));
  } else {
    const names = entityNamesInOrder(argv);
    const plain = generic.filter((g) => !g.isDefault).length;
    if (names.length > plain)
      throw new CommandUsageError('more --entity-name/--entity-default than --entity-type');
    let next = 0;
    entities = generic.map((g) => ({ type: g.type, name: g.isDefault ? '' : (names[next++] ?? null) }));
  }
  const types = entities.map((e) => e.type);
  if (new Set(types).size !== types.length)
    throw new CommandUsageError(`entity type ${types.find((t, i) => types.indexOf(t) !== i)} given twice`);
  if (entities.length > 1 && !(entities.length === 2 && types.includes('users') && types.includes('clients')))
    throw new CommandUsageError('only users and clients may be given together');
  for (const e of entities) {
    if (e.type === 'topics' && e.name === '')
      throw new CommandUsageError('topics have no default entity: name the topic');
    if (e.type === 'brokers' && e.name !== null && e.name !== '' && !/^\d+$/.test(e.name))
      throw new CommandUsageError(`the entity name for brokers must be a broker id, got "${e.name}"`);
    if (alter && e.name === null)
      throw new CommandUsageError(
        e.type === 'topics'
          ? '--alter needs the topic: --entity-name T or --topic T'
          : `--alter needs an entity name or --entity-default for ${e.type}`,
      );
  }
  return entities;
}

/** Splits at commas outside brackets: `a=1,b=[x,y]` → `a=1`, `b=[x,y]`. */
function splitOutsideBrackets(text: string, sep: string): string[] {
  const parts: string[] = [];
  let depth = 0;
  let start = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (c === '[') depth++;
    else if (c === ']') depth = Math.max(0, depth - 1);
    else if (c === sep && depth === 0) {
      parts.push(text.slice(start, i));
      start = i + 1;
    }
  }
  parts.push(text.slice(start));
  return parts;
}

/**
 * `--add-config k=v,k2=[a,b]` as kafka-configs reads it: commas inside brackets belong to the
 * value, the brackets go, an empty value is allowed (`ssl.endpoint.identification.algorithm=`).
 */
export function parseAddConfig(text: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const pair of splitOutsideBrackets(text, ',')) {
    const [key, ...rest] = splitOutsideBrackets(pair, '=');
    // Kafka's split: exactly one '=' outside brackets (a value with '=' needs brackets).
    if (rest.length !== 1 || key!.trim() === '')
      throw new CommandUsageError(
        `--add-config: "${safeForError(pair)}" is not key=value (group values that contain commas or '=' in [ ])`,
      );
    out[key!.trim()] = rest[0]!.replace(/[[\]]/g, '').trim();
  }
  return out;
}

/** A malformed pair is echoed in errors unless it may hold a credential. */
function safeForError(pair: string): string {
  return /password|SCRAM/i.test(pair) ? `${pair.split('=')[0]}=…` : pair;
}

/** The configs to set: --add-config-file first, then --add-config over it. */
export function configsToAdd(
  addConfig: string | undefined,
  addConfigFile: string | undefined,
): Record<string, string> {
  const fromFile = addConfigFile ? readPropertiesFile(addConfigFile, '--add-config-file') : {};
  const out = { ...fromFile, ...(addConfig === undefined ? {} : parseAddConfig(addConfig)) };
  for (const key of Object.keys(out))
    if (!/^[$a-zA-Z0-9._-]*$/.test(key))
      throw new CommandUsageError(`invalid character in config key "${key}"`);
  return out;
}

/** `--delete-config a,b --delete-config c` → [a, b, c]. */
export function configsToDelete(words: readonly string[] | undefined): string[] {
  return (words ?? [])
    .flatMap((w) => w.split(','))
    .map((k) => k.trim())
    .filter((k) => k !== '');
}

export interface ScramUpsert {
  readonly mechanism: ScramMechanism;
  readonly iterations: number;
  readonly password: string;
}

/** `SCRAM-SHA-256=[iterations=8192,password=secret]` (brackets already gone). */
export function parseScramCredential(mechanism: string, value: string): ScramUpsert {
  if (!isScramMechanism(mechanism)) throw new CommandUsageError(`unknown SCRAM mechanism ${mechanism}`);
  const m = /^(?:iterations=(-?\d*),)?password=(.*)$/s.exec(value);
  if (!m)
    throw new CommandUsageError(
      `invalid credential property ${mechanism}: use ${mechanism}=[iterations=N,password=PASSWORD]`,
    );
  const iterations = m[1] === undefined || m[1] === '' || m[1] === '-1' ? SCRAM_MIN_ITERATIONS : Number(m[1]);
  if (iterations < SCRAM_MIN_ITERATIONS || iterations > SCRAM_MAX_ITERATIONS)
    throw new CommandUsageError(
      `iterations ${iterations} for ${mechanism} is outside ${SCRAM_MIN_ITERATIONS}-${SCRAM_MAX_ITERATIONS}`,
    );
  if (m[2] === '') throw new CommandUsageError(`${mechanism}: the password is empty`);
  return { mechanism, iterations, password: m[2]! };
}

export { isScramMechanism };
