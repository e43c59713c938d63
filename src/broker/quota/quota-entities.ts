// Client-quota entities as the protocol names them (`user`, `client-id`, `ip`; a null name is the
// default entity) and as the metadata store keeps them (Kafka's ZooKeeper layout: /config/users/<u>,
// /config/clients/<c>, /config/users/<u>/clients/<c>, /config/ips/<ip>, `<default>` for defaults),
// with the quota keys each kind of entity takes and their Kafka types (QuotaConfigs).

import type { ConfigEntity } from '../metadata/store/records.js';
import {
  DEFAULT_ENTITY,
  parseUserClientEntityName,
  userClientEntityName,
} from '../metadata/store/zk-user-names.js';

export const PRODUCER_BYTE_RATE = 'producer_byte_rate';
export const CONSUMER_BYTE_RATE = 'consumer_byte_rate';
export const REQUEST_PERCENTAGE = 'request_percentage';
/** Accepted, stored and described; Samsa does not enforce it (no controller mutation quota). */
export const CONTROLLER_MUTATION_RATE = 'controller_mutation_rate';
/** An IP entity's key; accepted, stored and described, not enforced. */
export const CONNECTION_CREATION_RATE = 'connection_creation_rate';

export type QuotaValueType = 'LONG' | 'DOUBLE' | 'INT';

/** QuotaConfigs.userAndClientQuotaConfigs(): the keys of user and client-id entities. */
export const USER_CLIENT_QUOTA_KEYS: ReadonlyMap<string, QuotaValueType> = new Map([
  [PRODUCER_BYTE_RATE, 'LONG'],
  [CONSUMER_BYTE_RATE, 'LONG'],
  [REQUEST_PERCENTAGE, 'DOUBLE'],
  [CONTROLLER_MUTATION_RATE, 'DOUBLE'],
]);

/** QuotaConfigs.ipConfigs(). */
export const IP_QUOTA_KEYS: ReadonlyMap<string, QuotaValueType> = new Map([
  [CONNECTION_CREATION_RATE, 'INT'],
]);

export const USER = 'user';
export const CLIENT_ID = 'client-id';
export const IP = 'ip';

/**
 * A parsed quota entity: `undefined` = the component is absent, `null` = its default entity.
 * At least one component is present; `ip` never with the others.
 */
export interface QuotaEntity {
  readonly user?: string | null;
  readonly clientId?: string | null;
  readonly ip?: string | null;
}

const stored = (name: string | null): string => name ?? DEFAULT_ENTITY;
const described = (name: string): string | null => (name === DEFAULT_ENTITY ? null : name);

/** The store entity holding a quota entity's configs. */
export function storeEntity(e: QuotaEntity): ConfigEntity {
  if (e.ip !== undefined) return { type: 'ips', name: stored(e.ip) };
  if (e.user !== undefined && e.clientId !== undefined)
    return { type: 'user-clients', name: userClientEntityName(stored(e.user), stored(e.clientId)) };
  if (e.user !== undefined) return { type: 'users', name: stored(e.user) };
  return { type: 'clients', name: stored(e.clientId ?? null) };
}

/** The quota entity a store entity is; null for a store entity that is none (topics, brokers). */
export function quotaEntityOf(entity: ConfigEntity): QuotaEntity | null {
  switch (entity.type) {
    case 'users':
      return { user: described(entity.name) };
    case 'clients':
      return { clientId: described(entity.name) };
    case 'ips':
      return { ip: described(entity.name) };
    case 'user-clients': {
      const p = parseUserClientEntityName(entity.name);
      return p === null ? null : { user: described(p.user), clientId: described(p.clientId) };
    }
    default:
      return null;
  }
}

/** The protocol's entity list (user first, then client-id), as responses carry it. */
export function entityComponents(e: QuotaEntity): { entityType: string; entityName: string | null }[] {
  const out: { entityType: string; entityName: string | null }[] = [];
  if (e.user !== undefined) out.push({ entityType: USER, entityName: e.user });
  if (e.clientId !== undefined) out.push({ entityType: CLIENT_ID, entityName: e.clientId });
  if (e.ip !== undefined) out.push({ entityType: IP, entityName: e.ip });
  return out;
}

/** The quota keys of an entity's kind. */
export function quotaKeysFor(e: QuotaEntity): ReadonlyMap<string, QuotaValueType> {
  return e.ip !== undefined ? IP_QUOTA_KEYS : USER_CLIENT_QUOTA_KEYS;
}

/** The quota values of a stored config map (a user's SCRAM credentials are left out). */
export function quotaValues(e: QuotaEntity, configs: Readonly<Record<string, string>>): Map<string, number> {
  const keys = quotaKeysFor(e);
  const out = new Map<string, number>();
  for (const [k, v] of Object.entries(configs)) {
    if (!keys.has(k)) continue;
    const n = Number(v);
    if (v.trim() !== '' && !Number.isNaN(n)) out.set(k, n);
  }
  return out;
}

/** How Kafka writes a value: a LONG/INT as an integer, a DOUBLE as Java's Double.toString would. */
export function storedValue(type: QuotaValueType, value: number): string {
  if (type !== 'DOUBLE') return String(Math.round(value));
  return Number.isInteger(value) && Math.abs(value) < 1e7 ? `${value}.0` : String(value);
}
