// What `samsa acls` builds from kafka-acls' flags: resource patterns (--topic, --group,
// --cluster, --transactional-id, --delegation-token with --resource-pattern-type), the entries
// (principals × hosts × operations, ALLOW and DENY), the --producer/--consumer role sets, the
// operations each resource type accepts — and Kafka's text forms of patterns and entries.
import {
  ACL_OPERATIONS,
  type AccessControlEntry,
  type AclOperation,
  type AclPatternType,
  type AclResourceType,
  CLUSTER_RESOURCE_NAME,
  type ResourcePattern,
} from '../../client/admin/acls.js';
import { CommandUsageError } from './common.js';

/** Operations each resource type takes besides ALL (Kafka's AclEntry.supportedOperations). */
const SUPPORTED: Partial<Record<AclResourceType, readonly AclOperation[]>> = {
  TOPIC: ['READ', 'WRITE', 'CREATE', 'DESCRIBE', 'DELETE', 'ALTER', 'DESCRIBE_CONFIGS', 'ALTER_CONFIGS'],
  GROUP: ['READ', 'DESCRIBE', 'DELETE'],
  CLUSTER: [
    'CREATE',
    'CLUSTER_ACTION',
    'DESCRIBE_CONFIGS',
    'ALTER_CONFIGS',
    'IDEMPOTENT_WRITE',
    'ALTER',
    'DESCRIBE',
  ],
  TRANSACTIONAL_ID: ['DESCRIBE', 'WRITE'],
  DELEGATION_TOKEN: ['DESCRIBE'],
};

/** `Read`, `READ`, `describe-configs`, `DescribeConfigs` → the operation. */
export function parseOperation(text: string): AclOperation {
  const norm = (s: string) => s.replace(/[-_]/g, '').toLowerCase();
  const op = ACL_OPERATIONS.find((o) => o !== 'UNKNOWN' && o !== 'ANY' && norm(o) === norm(text.trim()));
  if (op === undefined)
    throw new CommandUsageError(
      `unknown operation "${text}": use ${ACL_OPERATIONS.slice(2).map(pascal).join(', ')}`,
    );
  return op;
}

/** READ → Read, DESCRIBE_CONFIGS → DescribeConfigs (how kafka-acls names them). */
function pascal(op: string): string {
  return op
    .toLowerCase()
    .split('_')
    .map((w) => w[0]!.toUpperCase() + w.slice(1))
    .join('');
}

export function parsePatternType(text: string | undefined): AclPatternType {
  const t = (text ?? 'literal').toUpperCase();
  if (t === 'LITERAL' || t === 'PREFIXED' || t === 'MATCH' || t === 'ANY') return t;
  throw new CommandUsageError(
    `unknown --resource-pattern-type "${text}": use literal, prefixed, match or any`,
  );
}

/** `User:alice` (Kafka's principalType:name). */
export function parsePrincipal(text: string): string {
  const t = text.trim();
  const i = t.indexOf(':');
  if (i <= 0 || i === t.length - 1)
    throw new CommandUsageError(`principal "${text}" is not Type:name (e.g. User:alice, User:*)`);
  return t;
}

export interface AclFlags {
  topic?: string[] | undefined;
  group?: string[] | undefined;
  cluster?: boolean | undefined;
  'transactional-id'?: string[] | undefined;
  'delegation-token'?: string[] | undefined;
  'resource-pattern-type'?: string | undefined;
  operation?: string[] | undefined;
  'allow-principal'?: string[] | undefined;
  'deny-principal'?: string[] | undefined;
  'allow-host'?: string[] | undefined;
  'deny-host'?: string[] | undefined;
  producer?: boolean | undefined;
  consumer?: boolean | undefined;
  idempotent?: boolean | undefined;
}

/** A pattern or a pattern filter (MATCH/ANY): same fields. */
export type Pattern = ResourcePattern;

const CLUSTER: Pattern = { resourceType: 'CLUSTER', name: CLUSTER_RESOURCE_NAME, patternType: 'LITERAL' };

/** The resource patterns the flags name (none: every resource, for --list). */
export function resourcePatterns(v: AclFlags): Pattern[] {
  const patternType = parsePatternType(v['resource-pattern-type']);
  const of = (resourceType: AclResourceType, names: readonly string[] | undefined) =>
    (names ?? []).map((name) => ({ resourceType, name: name.trim(), patternType }));
  return [
    ...of('TOPIC', v.topic),
    // Kafka's rule: the cluster has one literal name, so only a literal pattern names it.
    ...(patternType === 'LITERAL' && (v.cluster || v.idempotent) ? [CLUSTER] : []),
    ...of('GROUP', v.group),
    ...of('TRANSACTIONAL_ID', v['transactional-id']),
    ...of('DELEGATION_TOKEN', v['delegation-token']),
  ];
}

/** principals × hosts × operations, ALLOW then DENY (a principal without hosts gets '*'). */
function entries(v: AclFlags, operations: readonly AclOperation[]): AccessControlEntry[] {
  const out: AccessControlEntry[] = [];
  for (const [permissionType, principals, hosts] of [
    ['ALLOW', v['allow-principal'], v['allow-host']],
    ['DENY', v['deny-principal'], v['deny-host']],
  ] as const) {
    if (!principals?.length) continue;
    for (const principal of principals.map(parsePrincipal))
      for (const host of hosts?.length ? hosts.map((h) => h.trim()) : ['*'])
        for (const operation of operations) out.push({ principal, host, operation, permissionType });
  }
  return out;
}

export interface PatternAcls {
  pattern: Pattern;
  entries: AccessControlEntry[];
}

/** Each resource pattern with the entries to add or remove on it (Kafka's getResourceFilterToAcls). */
export function patternAcls(v: AclFlags): PatternAcls[] {
  const patterns = resourcePatterns(v);
  if (patterns.length === 0)
    throw new CommandUsageError(
      'name at least one resource: --topic T, --group G, --cluster, --transactional-id ID or --delegation-token ID',
    );
  const byKey = new Map<string, PatternAcls>();
  const add = (pattern: Pattern, list: readonly AccessControlEntry[]) => {
    const k = patternText(pattern);
    const cur = byKey.get(k) ?? { pattern, entries: [] };
    for (const e of list) if (!cur.entries.some((x) => entryText(x) === entryText(e))) cur.entries.push(e);
    byKey.set(k, cur);
  };
  if (!v.producer && !v.consumer) {
    const ops = (v.operation?.length ? v.operation : ['All']).map(parseOperation);
    for (const p of patterns) add(p, entries(v, ops));
  }
  if (v.producer) {
    for (const p of patterns) {
      if (p.resourceType === 'TOPIC') add(p, entries(v, ['WRITE', 'DESCRIBE', 'CREATE']));
      if (p.resourceType === 'TRANSACTIONAL_ID') add(p, entries(v, ['WRITE', 'DESCRIBE']));
    }
    if (v.idempotent) add(CLUSTER, entries(v, ['IDEMPOTENT_WRITE']));
  }
  if (v.consumer)
    for (const p of patterns) {
      if (p.resourceType === 'TOPIC') add(p, entries(v, ['READ', 'DESCRIBE']));
      if (p.resourceType === 'GROUP') add(p, entries(v, ['READ']));
    }
  for (const { pattern, entries: list } of byKey.values()) {
    const supported = SUPPORTED[pattern.resourceType] ?? [];
    if (list.some((e) => e.operation !== 'ALL' && !supported.includes(e.operation)))
      throw new CommandUsageError(
        `ResourceType ${pattern.resourceType} only supports operations ${['ALL', ...supported].map(pascal).join(', ')}`,
      );
  }
  return [...byKey.values()];
}

/** Kafka's ResourcePattern.toString. */
export function patternText(p: Pattern): string {
  return `ResourcePattern(resourceType=${p.resourceType}, name=${p.name}, patternType=${p.patternType})`;
}

/** Kafka's AccessControlEntry.toString. */
export function entryText(e: AccessControlEntry): string {
  return `(principal=${e.principal}, host=${e.host}, operation=${e.operation}, permissionType=${e.permissionType})`;
}
