// Kafka's ACL model (org.apache.kafka.common.acl / .resource): the protocol codes of operations,
// resource types, pattern types and permission types, their names in ZooKeeper's JSON, what a
// binding and a filter are, and the rules that decide whether a filter matches a binding.
// Everything here is pure; the index and the decision live in acl-cache.ts and authorizer.ts.

/** AclOperation codes (CreateAcls/DescribeAcls/DeleteAcls and authorized-operation bit fields). */
export const AclOp = {
  UNKNOWN: 0,
  ANY: 1,
  ALL: 2,
  READ: 3,
  WRITE: 4,
  CREATE: 5,
  DELETE: 6,
  ALTER: 7,
  DESCRIBE: 8,
  CLUSTER_ACTION: 9,
  DESCRIBE_CONFIGS: 10,
  ALTER_CONFIGS: 11,
  IDEMPOTENT_WRITE: 12,
  CREATE_TOKENS: 13,
  DESCRIBE_TOKENS: 14,
} as const;

/** ResourceType codes. */
export const ResType = {
  UNKNOWN: 0,
  ANY: 1,
  TOPIC: 2,
  GROUP: 3,
  CLUSTER: 4,
  TRANSACTIONAL_ID: 5,
  DELEGATION_TOKEN: 6,
  USER: 7,
} as const;

/** PatternType codes; ANY and MATCH exist only in filters. */
export const PatternCode = { UNKNOWN: 0, ANY: 1, MATCH: 2, LITERAL: 3, PREFIXED: 4 } as const;

/** AclPermissionType codes. */
export const Permission = { UNKNOWN: 0, ANY: 1, DENY: 2, ALLOW: 3 } as const;

/** The only name of the CLUSTER resource. */
export const CLUSTER_NAME = 'kafka-cluster';
/** A LITERAL pattern with this name matches every resource of its type. */
export const WILDCARD_RESOURCE = '*';
export const WILDCARD_PRINCIPAL = 'User:*';
export const WILDCARD_HOST = '*';

const OP_NAMES = [
  'Unknown',
  'Any',
  'All',
  'Read',
  'Write',
  'Create',
  'Delete',
  'Alter',
  'Describe',
  'ClusterAction',
  'DescribeConfigs',
  'AlterConfigs',
  'IdempotentWrite',
  'CreateTokens',
  'DescribeTokens',
];
const RESOURCE_NAMES = [
  'Unknown',
  'Any',
  'Topic',
  'Group',
  'Cluster',
  'TransactionalId',
  'DelegationToken',
  'User',
];
const PERMISSION_NAMES = ['Unknown', 'Any', 'Deny', 'Allow'];
const PATTERN_NAMES = ['UNKNOWN', 'ANY', 'MATCH', 'LITERAL', 'PREFIXED'];

/** Kafka's `fromString`: case-insensitive, `CLUSTER_ACTION` and `ClusterAction` alike; -1 if unknown. */
function codeOf(names: readonly string[], text: string): number {
  const wanted = text.replace(/_/g, '').toLowerCase();
  return names.findIndex((n) => n.toLowerCase() === wanted);
}

export const operationName = (code: number): string => OP_NAMES[code] ?? 'Unknown';
export const resourceTypeName = (code: number): string => RESOURCE_NAMES[code] ?? 'Unknown';
export const permissionName = (code: number): string => PERMISSION_NAMES[code] ?? 'Unknown';
export const patternName = (code: number): string => PATTERN_NAMES[code] ?? 'UNKNOWN';
export const operationCode = (name: string): number => codeOf(OP_NAMES, name);
export const resourceTypeCode = (name: string): number => codeOf(RESOURCE_NAMES, name);
export const permissionCode = (name: string): number => codeOf(PERMISSION_NAMES, name);
export const patternCode = (name: string): number => codeOf(PATTERN_NAMES, name);

/** Codes the protocol defines (anything else reads as UNKNOWN, as Kafka's `fromCode`). */
export const isKnownOperation = (c: number): boolean => c > AclOp.UNKNOWN && c <= AclOp.DESCRIBE_TOKENS;
export const isKnownResourceType = (c: number): boolean => c > ResType.UNKNOWN && c <= ResType.USER;
export const isKnownPattern = (c: number): boolean => c > PatternCode.UNKNOWN && c <= PatternCode.PREFIXED;
export const isKnownPermission = (c: number): boolean => c > Permission.UNKNOWN && c <= Permission.ALLOW;

/** A resource pattern as bindings hold it: a concrete type, LITERAL or PREFIXED. */
export interface ResourcePattern {
  readonly resourceType: number;
  readonly patternType: number;
  readonly name: string;
}

/** One access control entry (Kafka's AccessControlEntry). */
export interface AclEntry {
  readonly principal: string;
  readonly host: string;
  readonly operation: number;
  readonly permission: number;
}

export interface AclBinding {
  readonly pattern: ResourcePattern;
  readonly entry: AclEntry;
}

/** DescribeAcls / DeleteAcls filters: null strings and ANY codes match everything. */
export interface AclBindingFilter {
  readonly resourceType: number;
  readonly name: string | null;
  readonly patternType: number;
  readonly principal: string | null;
  readonly host: string | null;
  readonly operation: number;
  readonly permission: number;
}

/** Kafka's ResourcePatternFilter.matches. */
export function patternMatches(f: AclBindingFilter, p: ResourcePattern): boolean {
  if (f.resourceType !== ResType.ANY && f.resourceType !== p.resourceType) return false;
  const anyOrMatch = f.patternType === PatternCode.ANY || f.patternType === PatternCode.MATCH;
  if (!anyOrMatch && f.patternType !== p.patternType) return false;
  if (f.name === null) return true;
  if (f.patternType === PatternCode.ANY || f.patternType === p.patternType) return f.name === p.name;
  // MATCH: every pattern that would apply to a resource named `f.name`.
  if (p.patternType === PatternCode.LITERAL) return f.name === p.name || p.name === WILDCARD_RESOURCE;
  return f.name.startsWith(p.name);
}

/** Kafka's AccessControlEntryFilter.matches. */
export function entryMatches(f: AclBindingFilter, e: AclEntry): boolean {
  return (
    (f.principal === null || f.principal === e.principal) &&
    (f.host === null || f.host === e.host) &&
    (f.operation === AclOp.ANY || f.operation === e.operation) &&
    (f.permission === Permission.ANY || f.permission === e.permission)
  );
}

/** Why a binding cannot be created (Kafka's InvalidRequestException messages), or null. */
export function invalidBindingReason(b: AclBinding): string | null {
  const { pattern: p, entry: e } = b;
  if (!isKnownResourceType(p.resourceType) || p.resourceType === ResType.ANY)
    return `Invalid resourceType ${resourceTypeName(p.resourceType).toUpperCase()}`;
  if (p.patternType !== PatternCode.LITERAL && p.patternType !== PatternCode.PREFIXED)
    return `Invalid patternType ${patternName(p.patternType)}`;
  if (!isKnownOperation(e.operation) || e.operation === AclOp.ANY)
    return `Invalid operation ${operationName(e.operation).toUpperCase()}`;
  if (e.permission !== Permission.ALLOW && e.permission !== Permission.DENY)
    return `Invalid permissionType ${permissionName(e.permission).toUpperCase()}`;
  if (p.resourceType === ResType.CLUSTER && p.name !== CLUSTER_NAME)
    return `The only valid name for the CLUSTER resource is ${CLUSTER_NAME}`;
  if (p.name === '') return 'Invalid empty resource name';
  if (!e.principal.includes(':'))
    return `Could not parse principal from \`${e.principal}\` (no colon is present separating the principal type from the principal name)`;
  return null;
}

/** Operations that make sense on each resource type (Kafka's AclEntry.supportedOperations). */
export const SUPPORTED_OPERATIONS: ReadonlyMap<number, readonly number[]> = new Map([
  [
    ResType.TOPIC,
    [
      AclOp.READ,
      AclOp.WRITE,
      AclOp.CREATE,
      AclOp.DESCRIBE,
      AclOp.DELETE,
      AclOp.ALTER,
      AclOp.DESCRIBE_CONFIGS,
      AclOp.ALTER_CONFIGS,
    ],
  ],
  [ResType.GROUP, [AclOp.READ, AclOp.DESCRIBE, AclOp.DELETE, AclOp.DESCRIBE_CONFIGS, AclOp.ALTER_CONFIGS]],
  [
    ResType.CLUSTER,
    [
      AclOp.CREATE,
      AclOp.CLUSTER_ACTION,
      AclOp.DESCRIBE_CONFIGS,
      AclOp.ALTER_CONFIGS,
      AclOp.IDEMPOTENT_WRITE,
      AclOp.ALTER,
      AclOp.DESCRIBE,
    ],
  ],
  [ResType.TRANSACTIONAL_ID, [AclOp.DESCRIBE, AclOp.WRITE]],
  [ResType.DELEGATION_TOKEN, [AclOp.DESCRIBE]],
  [ResType.USER, [AclOp.CREATE_TOKENS, AclOp.DESCRIBE_TOKENS]],
]);

/**
 * Whether an ACL's operation grants `op`. ALL grants everything; for ALLOW entries READ, WRITE,
 * DELETE and ALTER also grant DESCRIBE, and ALTER_CONFIGS grants DESCRIBE_CONFIGS. A DENY entry
 * denies only its own operation (or everything, for ALL): denying READ does not deny DESCRIBE.
 */
export function operationApplies(aclOp: number, permission: number, op: number): boolean {
  if (aclOp === AclOp.ALL || aclOp === op) return true;
  if (permission !== Permission.ALLOW) return false;
  if (op === AclOp.DESCRIBE)
    return aclOp === AclOp.READ || aclOp === AclOp.WRITE || aclOp === AclOp.DELETE || aclOp === AclOp.ALTER;
  return op === AclOp.DESCRIBE_CONFIGS && aclOp === AclOp.ALTER_CONFIGS;
}

/** `Topic:LITERAL:name`-style key, unique per resource pattern. */
export function patternKey(p: ResourcePattern): string {
  return `${p.resourceType}:${p.patternType}:${p.name}`;
}
