// DescribeClientQuotas and AlterClientQuotas against the metadata store, following Kafka 3.9's
// ZooKeeper-mode ZkAdminManager: which entities a filter reads (exact and default matches read
// one znode, the others list every entity of the kind), its matching and `strict` rule, and the
// per-entity alteration checks with Kafka's INVALID_REQUEST messages. Values are also checked as
// Kafka's KRaft controller checks them (greater than 0, integral for LONG/INT keys): ZooKeeper
// mode would store a negative or NaN rate and then throttle nonsense. Alterations run one at a
// time on this broker, and each is the store's versioned read-modify-write of the entity's
// config map (`updateConfigs`): a user's SCRAM credentials share that map, and a SCRAM change
// made meanwhile (here or through another broker) is kept rather than overwritten.

import { lookup } from 'node:dns/promises';
import { isIP } from 'node:net';
import { ErrorCode } from '../../protocol/errors.js';
import type { MetadataStore } from '../metadata/store/metadata-store.js';
import type { ConfigEntity } from '../metadata/store/records.js';
import {
  CLIENT_ID,
  IP,
  type QuotaEntity,
  quotaEntityOf,
  quotaKeysFor,
  quotaValues,
  storedValue,
  storeEntity,
  USER,
} from './quota-entities.js';

/** A refusal with its Kafka error code (InvalidRequestException → INVALID_REQUEST …). */
export class QuotaRequestError extends Error {
  constructor(
    readonly errorCode: number,
    message: string,
  ) {
    super(message);
  }
}

const invalid = (message: string) => new QuotaRequestError(ErrorCode.INVALID_REQUEST, message);

export interface FilterComponent {
  readonly entityType: string;
  /** 0 exact, 1 default, 2 any (the protocol's MatchType). */
  readonly matchType: number;
  readonly match: string | null;
}

export interface DescribedQuotas {
  readonly entity: QuotaEntity;
  readonly values: Map<string, number>;
}

export interface EntityComponent {
  readonly entityType: string;
  readonly entityName: string | null;
}

export interface QuotaOp {
  readonly key: string;
  readonly value: number;
  readonly remove: boolean;
}

type Store = Pick<MetadataStore, 'configs' | 'updateConfigs' | 'configEntities'>;

/** A filter component as Kafka reads it: undefined = any entity of the type, else exact/default. */
interface Wanted {
  readonly component: boolean;
  /** undefined: any name; null: the default entity; a string: that name. */
  readonly name?: string | null;
}

export class QuotaAdmin {
  #queue: Promise<unknown> = Promise.resolve();

  constructor(private readonly store: Store) {}

  /** Throws QuotaRequestError for a filter Kafka refuses. */
  async describe(components: readonly FilterComponent[], strict: boolean): Promise<DescribedQuotas[]> {
    const wanted = new Map<string, Wanted>();
    for (const c of components) {
      const type = c.entityType;
      if (type === '') throw invalid('Unexpected empty filter component entity type');
      if (type !== USER && type !== CLIENT_ID && type !== IP)
        throw new QuotaRequestError(
          ErrorCode.UNSUPPORTED_VERSION,
          `Custom entity type '${type}' not supported`,
        );
      if (wanted.has(type))
        throw invalid(`Duplicate ${type === CLIENT_ID ? 'client' : type} filter component entity type`);
      wanted.set(type, filterComponent(c));
    }
    const none: Wanted = { component: false };
    const user = wanted.get(USER) ?? none;
    const client = wanted.get(CLIENT_ID) ?? none;
    const ip = wanted.get(IP);
    if ((user.component || client.component) && ip !== undefined)
      throw invalid(
        'Invalid entity filter component combination, IP filter component should not be used with user or clientId filter component.',
      );
    const out: DescribedQuotas[] = [];
    if (ip === undefined) out.push(...(await this.#describeUserClient(user, client, strict)));
    if (!user.component && !client.component) out.push(...(await this.#describeIps(ip, strict)));
    return out;
  }

  async #describeUserClient(user: Wanted, client: Wanted, strict: boolean): Promise<DescribedQuotas[]> {
    const exact = (w: Wanted) => w.component && w.name !== undefined;
    const excluded = (w: Wanted) => strict && !w.component;
    const entities: QuotaEntity[] = [];
    if (exact(user) && excluded(client)) entities.push({ user: user.name as string | null });
    else if (!excluded(user) && !exact(client)) entities.push(...(await this.#all('users')));
    if (excluded(user) && exact(client)) entities.push({ clientId: client.name as string | null });
    else if (!exact(user) && !excluded(client)) entities.push(...(await this.#all('clients')));
    if (exact(user) && exact(client))
      entities.push({ user: user.name as string | null, clientId: client.name as string | null });
    else if (!excluded(user) && !excluded(client)) entities.push(...(await this.#all('user-clients')));
    const matches = (w: Wanted, name: string | null | undefined) =>
      w.component
        ? w.name === undefined
          ? name !== undefined
          : name === w.name
        : name === undefined || !strict;
    const out: DescribedQuotas[] = [];
    for (const entity of entities) {
      if (!matches(user, entity.user) || !matches(client, entity.clientId)) continue;
      const values = quotaValues(entity, await this.store.configs(storeEntity(entity)));
      if (values.size > 0) out.push({ entity, values });
    }
    return out;
  }

  async #describeIps(ip: Wanted | undefined, strict: boolean): Promise<DescribedQuotas[]> {
    let entities: QuotaEntity[];
    if (ip?.name !== undefined) entities = [{ ip: ip.name }];
    else if (ip !== undefined || !strict) entities = await this.#all('ips');
    else return [];
    const out: DescribedQuotas[] = [];
    for (const entity of entities) {
      const values = quotaValues(entity, await this.store.configs(storeEntity(entity)));
      if (values.size > 0) out.push({ entity, values });
    }
    return out;
  }

  async #all(type: ConfigEntity['type']): Promise<QuotaEntity[]> {
    const names = await this.store.configEntities(type);
    return names.flatMap((name) => {
      const e = quotaEntityOf({ type, name } as ConfigEntity);
      return e === null ? [] : [e];
    });
  }

  /** Each entry's outcome, in order: errorCode 0 or Kafka's error and message. */
  alter(
    entries: readonly { entity: readonly EntityComponent[]; ops: readonly QuotaOp[] }[],
    validateOnly: boolean,
  ): Promise<{ errorCode: number; errorMessage: string | null }[]> {
    const run = this.#queue.then(async () => {
      const results: { errorCode: number; errorMessage: string | null }[] = [];
      for (const entry of entries) {
        try {
          await this.#alterEntity(entry.entity, entry.ops, validateOnly);
          results.push({ errorCode: 0, errorMessage: null });
        } catch (e) {
          if (e instanceof QuotaRequestError)
            results.push({ errorCode: e.errorCode, errorMessage: e.message });
          else
            results.push({ errorCode: ErrorCode.UNKNOWN_SERVER_ERROR, errorMessage: (e as Error).message });
        }
      }
      return results;
    });
    this.#queue = run.catch(() => {});
    return run;
  }

  async #alterEntity(components: readonly EntityComponent[], ops: readonly QuotaOp[], validateOnly: boolean) {
    const entity = await parseEntity(components);
    const keys = quotaKeysFor(entity);
    const where = storeEntity(entity);
    const apply = (configs: Record<string, string>): Record<string, string> => {
      for (const op of ops) {
        if (op.remove) delete configs[op.key];
        else configs[op.key] = checkedValue(keys, op);
      }
      return configs;
    };
    // Validation alone reads nothing: every check depends on the request only.
    if (validateOnly) apply({});
    else await this.store.updateConfigs(where, apply);
  }
}

/** An op's value as stored, after Kafka's (and KRaft's) checks; throws QuotaRequestError. */
function checkedValue(keys: ReturnType<typeof quotaKeysFor>, op: QuotaOp): string {
  const type = keys.get(op.key);
  if (type === undefined) throw invalid(`Invalid configuration key ${op.key}`);
  const v = op.value;
  if (Number.isNaN(v)) throw invalid(`Quota ${op.key} must be a number`);
  if (!(v > 0)) throw invalid(`Quota ${op.key} must be greater than 0`);
  if (type !== 'DOUBLE') {
    const max = type === 'INT' ? 0x7fffffff : Number.MAX_SAFE_INTEGER;
    if (v > max)
      throw invalid(`Proposed value for ${op.key} is too large for ${type === 'INT' ? 'an' : 'a'} ${type}.`);
    if (Math.abs(v % 1) > 1e-6) throw invalid(`${op.key} cannot be a fractional value.`);
  } else if (!Number.isFinite(v)) throw invalid(`Quota ${op.key} must be finite`);
  return storedValue(type, v);
}

function filterComponent(c: FilterComponent): Wanted {
  switch (c.matchType) {
    case 0:
      if (c.match === null) throw invalid('Unexpected null match for exact match type');
      return { component: true, name: c.match };
    case 1:
      return { component: true, name: null };
    case 2:
      return { component: true };
    default:
      throw new QuotaRequestError(ErrorCode.UNKNOWN_SERVER_ERROR, `Unexpected match type: ${c.matchType}`);
  }
}

/** Kafka's entity checks, in its order; an IP must be an address or a name that resolves. */
async function parseEntity(components: readonly EntityComponent[]): Promise<QuotaEntity> {
  if (components.length === 0) throw invalid('Invalid empty client quota entity');
  const byType = new Map<string, string | null>();
  for (const { entityType, entityName } of components) {
    if (byType.has(entityType))
      throw invalid(`Invalid client quota entity, duplicate entity entry ${entityType}`);
    if (entityType !== USER && entityType !== CLIENT_ID && entityType !== IP)
      throw invalid(`Unhandled client quota entity type: ${entityType}`);
    if (entityName === '') throw invalid(`Empty ${entityType} not supported`);
    byType.set(entityType, entityName);
  }
  if (byType.has(IP)) {
    if (byType.size > 1)
      throw invalid(
        'Invalid quota entity combination, IP entity should not be used with user/client ID entity.',
      );
    const ip = byType.get(IP) as string | null;
    if (ip !== null && !(await resolvable(ip))) throw invalid(`${ip} is not a valid IP or resolvable host.`);
    return { ip };
  }
  return {
    ...(byType.has(USER) ? { user: byType.get(USER) as string | null } : {}),
    ...(byType.has(CLIENT_ID) ? { clientId: byType.get(CLIENT_ID) as string | null } : {}),
  };
}

async function resolvable(host: string): Promise<boolean> {
  if (isIP(host) !== 0) return true;
  try {
    await lookup(host);
    return true;
  } catch {
    return false;
  }
}
