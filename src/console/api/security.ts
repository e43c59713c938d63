// Security views: ACLs (DescribeAcls / CreateAcls / DeleteAcls) and client quotas
// (DescribeClientQuotas / AlterClientQuotas), through the Admin client. A cluster without an
// authorizer answers the ACL APIs with SECURITY_DISABLED: the list says so instead of failing.
import {
  ACL_OPERATIONS,
  ACL_RESOURCE_TYPES,
  type AclBinding,
  type AclOperation,
  type AclPatternType,
  type AclPermissionType,
  type AclResourceType,
  ANY_ACL,
} from '../../client/admin/acls.js';
import { type Admin, KafkaResponseError, type QuotaEntityComponent } from '../../client/index.js';
import { ApiError } from '../http-util.js';

const flat = (b: AclBinding) => ({
  resourceType: b.pattern.resourceType,
  name: b.pattern.name,
  patternType: b.pattern.patternType,
  principal: b.entry.principal,
  host: b.entry.host,
  operation: b.entry.operation,
  permissionType: b.entry.permissionType,
});

/** What a form can choose (UNKNOWN, ANY and MATCH are for filters, not bindings). */
export const ACL_CHOICES = {
  resourceTypes: ACL_RESOURCE_TYPES.filter((t) => t !== 'UNKNOWN' && t !== 'ANY'),
  patternTypes: ['LITERAL', 'PREFIXED'] as AclPatternType[],
  operations: ACL_OPERATIONS.filter((o) => o !== 'UNKNOWN' && o !== 'ANY'),
  permissionTypes: ['ALLOW', 'DENY'] as AclPermissionType[],
};

export async function listAcls(admin: Admin) {
  try {
    const acls = (await admin.describeAcls(ANY_ACL)).map(flat);
    acls.sort(
      (a, b) =>
        a.resourceType.localeCompare(b.resourceType) ||
        a.name.localeCompare(b.name) ||
        a.principal.localeCompare(b.principal) ||
        a.operation.localeCompare(b.operation),
    );
    return { enabled: true, acls, choices: ACL_CHOICES };
  } catch (e) {
    if (e instanceof KafkaResponseError && e.code === 'SECURITY_DISABLED')
      return { enabled: false, error: e.code, message: e.message, acls: [], choices: ACL_CHOICES };
    throw e;
  }
}

function oneOf<T extends string>(v: unknown, list: readonly T[], what: string): T {
  if (typeof v !== 'string' || !(list as readonly string[]).includes(v))
    throw new ApiError(400, `${what} must be one of ${list.join(', ')}`);
  return v as T;
}

function text(v: unknown, what: string, dflt?: string): string {
  if ((v === undefined || v === '') && dflt !== undefined) return dflt;
  if (typeof v !== 'string' || v === '') throw new ApiError(400, `${what} must be a non-empty string`);
  return v;
}

/** One binding from `{resourceType, name, patternType, principal, host, operation, permissionType}`. */
export function aclBinding(body: Record<string, unknown>): AclBinding {
  const principal = text(body.principal, 'principal');
  if (!/^[^:]+:.+$/.test(principal)) throw new ApiError(400, 'principal is TYPE:NAME, e.g. User:alice');
  const resourceType = oneOf<AclResourceType>(body.resourceType, ACL_CHOICES.resourceTypes, 'resourceType');
  return {
    pattern: {
      resourceType,
      name: text(body.name, 'name', resourceType === 'CLUSTER' ? 'kafka-cluster' : undefined),
      patternType: oneOf<AclPatternType>(
        body.patternType ?? 'LITERAL',
        ACL_CHOICES.patternTypes,
        'patternType',
      ),
    },
    entry: {
      principal,
      host: text(body.host, 'host', '*'),
      operation: oneOf<AclOperation>(body.operation, ACL_CHOICES.operations, 'operation'),
      permissionType: oneOf<AclPermissionType>(
        body.permissionType ?? 'ALLOW',
        ACL_CHOICES.permissionTypes,
        'permissionType',
      ),
    },
  };
}

export async function addAcl(admin: Admin, body: Record<string, unknown>) {
  const b = aclBinding(body);
  await admin.createAcls([b]);
  return { created: flat(b) };
}

/** Deletes exactly the binding sent (a filter with every field set matches only that one). */
export async function removeAcl(admin: Admin, body: Record<string, unknown>) {
  const b = aclBinding(body);
  const [deleted] = await admin.deleteAcls([{ pattern: b.pattern, entry: b.entry }]);
  return { deleted: (deleted ?? []).map(flat) };
}

// Quotas ----------------------------------------------------------------------------------------

export const QUOTA_KEYS = [
  'producer_byte_rate',
  'consumer_byte_rate',
  'request_percentage',
  'controller_mutation_rate',
  'connection_creation_rate',
] as const;
const ENTITY_TYPES = ['user', 'client-id', 'ip'] as const;

export async function listQuotas(admin: Admin) {
  const entries = await admin.describeClientQuotas({ components: [], strict: false });
  const label = (e: QuotaEntityComponent[]) =>
    e.map((c) => `${c.entityType}=${c.name ?? '<default>'}`).join(',');
  return {
    keys: QUOTA_KEYS,
    entityTypes: ENTITY_TYPES,
    quotas: entries
      .map((e) => ({ entity: e.entity, label: label(e.entity), values: e.values }))
      .sort((a, b) => a.label.localeCompare(b.label)),
  };
}

/**
 * `{ entity: [{entityType, name}], values: { key: number | null } }`: sets each key, removes
 * those given null (name null = the default entity).
 */
export async function alterQuota(admin: Admin, body: Record<string, unknown>) {
  if (!Array.isArray(body.entity) || body.entity.length === 0)
    throw new ApiError(400, 'entity must be a non-empty list of {entityType, name}');
  const entity = body.entity.map((c: unknown, i): QuotaEntityComponent => {
    const o = (c ?? {}) as Record<string, unknown>;
    const entityType = oneOf(o.entityType, ENTITY_TYPES, `entity[${i}].entityType`);
    if (o.name !== null && (typeof o.name !== 'string' || o.name === ''))
      throw new ApiError(400, `entity[${i}].name must be a name, or null for the default`);
    return { entityType, name: o.name as string | null };
  });
  const values = body.values;
  if (values === null || typeof values !== 'object' || Array.isArray(values))
    throw new ApiError(400, 'values must be an object of key: number (or null to remove)');
  const ops = Object.entries(values as Record<string, unknown>).map(([key, v]) => {
    if (v !== null && (typeof v !== 'number' || !Number.isFinite(v) || v < 0))
      throw new ApiError(400, `${key} must be a number ≥ 0, or null to remove it`);
    return { key, value: v as number | null };
  });
  if (ops.length === 0) throw new ApiError(400, 'nothing to change');
  await admin.alterClientQuotas([{ entity, ops }]);
  return { entity, changed: ops.length };
}
