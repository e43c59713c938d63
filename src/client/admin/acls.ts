// ACL administration (KIP-140, prefixed patterns KIP-290): CreateAcls, DescribeAcls, DeleteAcls,
// sent to any broker (each broker writes the shared store). Kafka's model and names: a binding
// is a resource pattern (type, name, LITERAL or PREFIXED) plus an entry (principal, host,
// operation, ALLOW or DENY); filters add ANY (and MATCH for patterns) and null names.
import { createAclsApi } from '../../protocol/messages/generated/create-acls.js';
import { deleteAclsApi } from '../../protocol/messages/generated/delete-acls.js';
import { describeAclsApi } from '../../protocol/messages/generated/describe-acls.js';
import { KafkaResponseError } from '../errors.js';
import type { AdminContext } from './context.js';

// The wire codes are the positions in these lists (Kafka's enums).
export const ACL_RESOURCE_TYPES = [
  'UNKNOWN',
  'ANY',
  'TOPIC',
  'GROUP',
  'CLUSTER',
  'TRANSACTIONAL_ID',
  'DELEGATION_TOKEN',
  'USER',
] as const;
export const ACL_PATTERN_TYPES = ['UNKNOWN', 'ANY', 'MATCH', 'LITERAL', 'PREFIXED'] as const;
export const ACL_OPERATIONS = [
  'UNKNOWN',
  'ANY',
  'ALL',
  'READ',
  'WRITE',
  'CREATE',
  'DELETE',
  'ALTER',
  'DESCRIBE',
  'CLUSTER_ACTION',
  'DESCRIBE_CONFIGS',
  'ALTER_CONFIGS',
  'IDEMPOTENT_WRITE',
  'CREATE_TOKENS',
  'DESCRIBE_TOKENS',
] as const;
export const ACL_PERMISSION_TYPES = ['UNKNOWN', 'ANY', 'DENY', 'ALLOW'] as const;

export type AclResourceType = (typeof ACL_RESOURCE_TYPES)[number];
export type AclPatternType = (typeof ACL_PATTERN_TYPES)[number];
export type AclOperation = (typeof ACL_OPERATIONS)[number];
export type AclPermissionType = (typeof ACL_PERMISSION_TYPES)[number];

/** The one resource name of CLUSTER ACLs. */
export const CLUSTER_RESOURCE_NAME = 'kafka-cluster';

export interface ResourcePattern {
  readonly resourceType: AclResourceType;
  /** A name, a prefix (PREFIXED) or '*' (every resource of the type, LITERAL only). */
  readonly name: string;
  readonly patternType: AclPatternType;
}

export interface AccessControlEntry {
  /** `User:alice`, `User:*`. */
  readonly principal: string;
  /** An IP address or '*'. */
  readonly host: string;
  readonly operation: AclOperation;
  readonly permissionType: AclPermissionType;
}

export interface AclBinding {
  readonly pattern: ResourcePattern;
  readonly entry: AccessControlEntry;
}

/** Like a binding, with ANY types and null (any) names; patternType MATCH also matches the
 * LITERAL '*' and the PREFIXED patterns that cover the name. */
export interface AclBindingFilter {
  readonly pattern: {
    readonly resourceType: AclResourceType;
    readonly name: string | null;
    readonly patternType: AclPatternType;
  };
  readonly entry: {
    readonly principal: string | null;
    readonly host: string | null;
    readonly operation: AclOperation;
    readonly permissionType: AclPermissionType;
  };
}

/** Every ACL. */
export const ANY_ACL: AclBindingFilter = {
  pattern: { resourceType: 'ANY', name: null, patternType: 'ANY' },
  entry: { principal: null, host: null, operation: 'ANY', permissionType: 'ANY' },
};

function code<T extends string>(list: readonly T[], value: T): number {
  const i = list.indexOf(value);
  return Math.max(0, i);
}

function binding(w: {
  resourceType: number;
  resourceName: string;
  patternType: number;
  principal: string;
  host: string;
  operation: number;
  permissionType: number;
}): AclBinding {
  return {
    pattern: {
      resourceType: ACL_RESOURCE_TYPES[w.resourceType] ?? 'UNKNOWN',
      name: w.resourceName,
      patternType: ACL_PATTERN_TYPES[w.patternType] ?? 'UNKNOWN',
    },
    entry: {
      principal: w.principal,
      host: w.host,
      operation: ACL_OPERATIONS[w.operation] ?? 'UNKNOWN',
      permissionType: ACL_PERMISSION_TYPES[w.permissionType] ?? 'UNKNOWN',
    },
  };
}

/** v0 knows LITERAL patterns only: anything else needs v1. */
function versionFor(patterns: readonly { patternType: AclPatternType }[]): { minVersion: number } {
  return { minVersion: patterns.every((p) => p.patternType === 'LITERAL') ? 0 : 1 };
}

function filterWire(f: AclBindingFilter) {
  return {
    resourceTypeFilter: code(ACL_RESOURCE_TYPES, f.pattern.resourceType),
    resourceNameFilter: f.pattern.name,
    patternTypeFilter: code(ACL_PATTERN_TYPES, f.pattern.patternType),
    principalFilter: f.entry.principal,
    hostFilter: f.entry.host,
    operation: code(ACL_OPERATIONS, f.entry.operation),
    permissionType: code(ACL_PERMISSION_TYPES, f.entry.permissionType),
  };
}

export async function createAcls(ctx: AdminContext, bindings: readonly AclBinding[]): Promise<void> {
  if (bindings.length === 0) return;
  const res = await ctx.retry(async () =>
    (await ctx.pool.any()).request(
      createAclsApi,
      {
        creations: bindings.map((b) => ({
          resourceType: code(ACL_RESOURCE_TYPES, b.pattern.resourceType),
          resourceName: b.pattern.name,
          resourcePatternType: code(ACL_PATTERN_TYPES, b.pattern.patternType),
          principal: b.entry.principal,
          host: b.entry.host,
          operation: code(ACL_OPERATIONS, b.entry.operation),
          permissionType: code(ACL_PERMISSION_TYPES, b.entry.permissionType),
        })),
      },
      versionFor(bindings.map((b) => b.pattern)),
    ),
  );
  const failed = res.results.find((r) => r.errorCode !== 0);
  if (failed) throw new KafkaResponseError(failed.errorCode, 'CreateAcls', failed.errorMessage);
}

export async function describeAcls(ctx: AdminContext, filter: AclBindingFilter): Promise<AclBinding[]> {
  const res = await ctx.retry(async () =>
    (await ctx.pool.any()).request(describeAclsApi, filterWire(filter), versionFor([filter.pattern])),
  );
  if (res.errorCode !== 0) throw new KafkaResponseError(res.errorCode, 'DescribeAcls', res.errorMessage);
  return res.resources.flatMap((r) =>
    r.acls.map((a) =>
      binding({
        ...a,
        resourceType: r.resourceType,
        resourceName: r.resourceName,
        patternType: r.patternType,
      }),
    ),
  );
}

/** Deletes every ACL each filter matches; the bindings deleted, one list per filter. */
export async function deleteAcls(
  ctx: AdminContext,
  filters: readonly AclBindingFilter[],
): Promise<AclBinding[][]> {
  if (filters.length === 0) return [];
  const res = await ctx.retry(async () =>
    (await ctx.pool.any()).request(
      deleteAclsApi,
      { filters: filters.map(filterWire) },
      versionFor(filters.map((f) => f.pattern)),
    ),
  );
  return res.filterResults.map((r) => {
    if (r.errorCode !== 0) throw new KafkaResponseError(r.errorCode, 'DeleteAcls', r.errorMessage);
    const failed = r.matchingAcls.find((m) => m.errorCode !== 0);
    if (failed) throw new KafkaResponseError(failed.errorCode, 'DeleteAcls', failed.errorMessage);
    return r.matchingAcls.map(binding);
  });
}
