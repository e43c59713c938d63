// `samsa acls`: kafka-acls with its flags, checks and output (Kafka 3.9/4.x wording: "Adding ACLs
// for resource `ResourcePattern(...)`", "Current ACLs for resource ...", entries as
// `(principal=User:alice, host=*, operation=READ, permissionType=ALLOW)`). --remove asks for
// each resource unless --force; without a terminal to ask on, it refuses instead of guessing.
import { createInterface } from 'node:readline';
import { type AclBinding, type AclBindingFilter, ANY_ACL } from '../../client/admin/acls.js';
import type { Admin } from '../../client/admin/admin.js';
import { KafkaResponseError } from '../../client/errors.js';
import {
  type AclFlags,
  entryText,
  type Pattern,
  type PatternAcls,
  parsePrincipal,
  patternAcls,
  patternText,
  resourcePatterns,
} from './acls-args.js';
import { ADMIN_COMMAND_OPTIONS, openAdmin } from './admin-session.js';
import {
  CommandError,
  type CommandIO,
  CommandUsageError,
  parseCommand,
  processIO,
  runCommand,
} from './common.js';
import { toJson } from './groups-print.js';

export const ACLS_USAGE = `Usage: samsa acls (--add | --remove | --list) [resources] [principals] [options]

kafka-acls with its flags and output: add, remove and list ACLs (brokers with
authorizer.class.name set enforce them).

  --bootstrap-server HOST:PORT  broker to connect to (default 127.0.0.1:9092)
  --command-config FILE         admin client properties (Kafka's names: security.protocol, sasl.*, ssl.*)

Resources (repeatable; '*' means every resource of the type):
  --topic T | --group G | --cluster | --transactional-id ID | --delegation-token ID
  --resource-pattern-type literal|prefixed|match|any   literal (default) or prefixed names;
                                --list/--remove also take any (any pattern, this exact name) and
                                match (every ACL that applies to the name)
Entries:
  --allow-principal User:NAME   --deny-principal User:NAME   (repeatable; User:* is everyone)
  --allow-host HOST             --deny-host HOST             (default *)
  --operation OP                Read, Write, Create, Delete, Alter, Describe, ClusterAction,
                                DescribeConfigs, AlterConfigs, IdempotentWrite, All (default)
  --producer                    Write, Describe, Create on topics (and Write, Describe on
                                transactional ids); with --idempotent IdempotentWrite on the cluster
  --consumer                    Read, Describe on topics and Read on groups (needs --group)
Actions:
  --add
  --remove [--force]            asks before removing unless --force (refused without a terminal)
  --list [--principal User:NAME] [--output text|json]

Examples:
  samsa acls --add --allow-principal User:alice --operation Read --operation Describe --topic orders
  samsa acls --add --allow-principal User:bob --producer --topic orders --idempotent
  samsa acls --add --allow-principal User:carol --consumer --topic orders --group billing
  samsa acls --add --deny-principal User:mallory --deny-host 10.0.0.9 --operation All --topic '*'
  samsa acls --add --allow-principal User:etl --operation Write --topic raw- --resource-pattern-type prefixed
  samsa acls --list --topic orders --resource-pattern-type match
  samsa acls --remove --allow-principal User:alice --operation Read --topic orders --force
`;

const OPTIONS = {
  ...ADMIN_COMMAND_OPTIONS,
  add: { type: 'boolean' },
  remove: { type: 'boolean' },
  list: { type: 'boolean' },
  topic: { type: 'string', multiple: true },
  group: { type: 'string', multiple: true },
  cluster: { type: 'boolean' },
  'transactional-id': { type: 'string', multiple: true },
  'delegation-token': { type: 'string', multiple: true },
  'resource-pattern-type': { type: 'string' },
  operation: { type: 'string', multiple: true },
  'allow-principal': { type: 'string', multiple: true },
  'deny-principal': { type: 'string', multiple: true },
  'allow-host': { type: 'string', multiple: true },
  'deny-host': { type: 'string', multiple: true },
  principal: { type: 'string', multiple: true },
  producer: { type: 'boolean' },
  consumer: { type: 'boolean' },
  idempotent: { type: 'boolean' },
  force: { type: 'boolean' },
  output: { type: 'string' },
} as const;

const ENTRY_FLAGS = ['allow-principal', 'deny-principal', 'allow-host', 'deny-host'] as const;

export async function runAcls(argv: readonly string[], io: CommandIO = processIO): Promise<number> {
  return runCommand(io, ACLS_USAGE, async () => {
    const { values: v } = parseCommand({ args: [...argv], options: OPTIONS });
    if (v.help) {
      io.stdout.write(ACLS_USAGE);
      return 0;
    }
    checkFlags(v);
    const json = v.output === 'json';
    // Everything the flags say is checked before the first request.
    const pattern = v['resource-pattern-type']?.toLowerCase();
    const planned = v.list ? null : patternAcls(v);
    if (v.add) {
      if (pattern === 'match' || pattern === 'any')
        throw new CommandUsageError(
          `--resource-pattern-type ${pattern} is for --list and --remove; add literal or prefixed ACLs`,
        );
      if (planned!.some((p) => p.entries.length === 0))
        throw new CommandUsageError('--add needs --allow-principal or --deny-principal');
    }
    const listPrincipals = (v.principal ?? []).map(parsePrincipal);
    const interactive = (io.stdin as { isTTY?: boolean }).isTTY === true;
    if (v.remove && !v.force && !interactive)
      throw new CommandUsageError('--remove asks for confirmation and stdin is not a terminal: add --force');

    const { admin } = await openAdmin(v, io);
    try {
      if (v.add) await addAcls(admin, planned!, io);
      else if (v.remove) await removeAcls(admin, planned!, v.force === true, io);
      else await listAcls(admin, resourcePatterns(v), listPrincipals, json, io);
      return 0;
    } catch (e) {
      if (e instanceof KafkaResponseError) throw new CommandError(explain(e));
      throw e;
    } finally {
      await admin.close();
    }
  });
}

function explain(e: KafkaResponseError): string {
  if (e.code === 'SECURITY_DISABLED')
    return `${e.message} (the broker has no authorizer: set authorizer.class.name=kafka.security.authorizer.AclAuthorizer)`;
  if (e.code === 'CLUSTER_AUTHORIZATION_FAILED')
    return `${e.message} (ACLs are managed by a principal with ALTER/DESCRIBE on the cluster, or a super user)`;
  return e.message;
}

/** kafka-acls' rules for which flags go together. */
function checkFlags(v: AclFlags & Record<string, unknown>): void {
  const actions = (['add', 'remove', 'list'] as const).filter((a) => v[a]);
  if (actions.length !== 1) throw new CommandUsageError('give exactly one action: --add, --remove or --list');
  if (v.output !== undefined && v.output !== 'text' && v.output !== 'json')
    throw new CommandUsageError(`--output is text or json, not "${String(v.output)}"`);
  if (v.output === 'json' && !v.list) throw new CommandUsageError('--output json goes with --list');
  if (v.list) {
    const bad = [...ENTRY_FLAGS, 'producer', 'consumer'].find((f) => v[f] !== undefined);
    if (bad) throw new CommandUsageError(`--${bad} does not go with --list (filter with --principal)`);
  }
  if (v.principal && !v.list) throw new CommandUsageError('--principal goes with --list');
  if (v.force && !v.remove) throw new CommandUsageError('--force goes with --remove');
  for (const role of ['producer', 'consumer'] as const)
    if (v[role]) {
      const bad = ['operation', 'deny-principal', 'deny-host'].find((f) => v[f] !== undefined);
      if (bad)
        throw new CommandUsageError(`--${bad} does not go with --${role} (the role sets the operations)`);
    }
  if (v.producer && !v.topic) throw new CommandUsageError('--producer needs --topic');
  if (v.idempotent && !v.producer) throw new CommandUsageError('--idempotent goes with --producer');
  if (v.consumer && (!v.topic || !v.group || (!v.producer && (v.cluster || v['transactional-id']))))
    throw new CommandUsageError(
      '--consumer needs --topic and --group, and takes no --cluster or --transactional-id',
    );
}

const NL = '\n';

async function addAcls(admin: Admin, planned: readonly PatternAcls[], io: CommandIO): Promise<void> {
  for (const { pattern, entries } of planned) {
    const existing = new Set(
      (await admin.describeAcls(filterOf(pattern)))
        .filter((b) => samePattern(b.pattern, pattern))
        .map((b) => entryText(b.entry)),
    );
    const fresh = entries.filter((e) => {
      if (!existing.has(entryText(e))) return true;
      io.stdout.write(`Acl (pattern=${patternText(pattern)}, entry=${entryText(e)}) already exists.${NL}`);
      return false;
    });
    if (fresh.length === 0) continue;
    io.stdout.write(
      `Adding ACLs for resource \`${patternText(pattern)}\`: ${NL} ${fresh.map((e) => `\t${entryText(e)}`).join(NL)}${NL}${NL}`,
    );
    await admin.createAcls(fresh.map((entry) => ({ pattern, entry })));
  }
}

async function removeAcls(
  admin: Admin,
  planned: readonly PatternAcls[],
  force: boolean,
  io: CommandIO,
): Promise<void> {
  for (const { pattern, entries } of planned) {
    const question =
      entries.length === 0
        ? `Are you sure you want to delete all ACLs for resource filter \`${patternText(pattern)}\`? (y/n)`
        : `Are you sure you want to remove ACLs: ${NL} ${entries.map((e) => `\t${entryText(e)}`).join(NL)}${NL} from resource filter \`${patternText(pattern)}\`? (y/n)`;
    if (!force && !(await confirm(question, io))) continue;
    const filters: AclBindingFilter[] =
      entries.length === 0 ? [filterOf(pattern)] : entries.map((entry) => ({ pattern, entry }));
    await admin.deleteAcls(filters);
  }
}

async function confirm(question: string, io: CommandIO): Promise<boolean> {
  io.stdout.write(`${question}${NL}`);
  const rl = createInterface({ input: io.stdin });
  try {
    const answer = await new Promise<string>((resolve) => {
      rl.once('line', resolve);
      rl.once('close', () => resolve(''));
    });
    return answer.trim().toLowerCase() === 'y';
  } finally {
    rl.close();
  }
}

function filterOf(p: Pattern): AclBindingFilter {
  return { pattern: p, entry: ANY_ACL.entry };
}

function samePattern(a: Pattern, b: Pattern): boolean {
  return a.resourceType === b.resourceType && a.name === b.name && a.patternType === b.patternType;
}

async function listAcls(
  admin: Admin,
  patterns: readonly Pattern[],
  principals: readonly string[],
  json: boolean,
  io: CommandIO,
): Promise<void> {
  const bindings: AclBinding[] = [];
  for (const f of patterns.length === 0 ? [ANY_ACL] : patterns.map(filterOf))
    bindings.push(...(await admin.describeAcls(f)));
  const groups = byPattern(bindings);
  if (json) {
    const wanted = (e: AclBinding['entry']) => principals.length === 0 || principals.includes(e.principal);
    io.stdout.write(
      toJson(
        groups
          .map(({ pattern, entries }) => ({ ...pattern, acls: entries.filter(wanted) }))
          .filter((g) => g.acls.length > 0),
      ),
    );
    return;
  }
  const print = (list: readonly { pattern: Pattern; entries: AclBinding['entry'][] }[]) => {
    for (const { pattern, entries } of list)
      io.stdout.write(
        `Current ACLs for resource \`${patternText(pattern)}\`:${NL}${entries.map((e) => `\t${entryText(e)}`).join(NL)}${NL}${NL}`,
      );
  };
  if (principals.length === 0) print(groups);
  for (const principal of principals) {
    io.stdout.write(`ACLs for principal \`${principal}\`${NL}`);
    print(
      groups
        .map((g) => ({ pattern: g.pattern, entries: g.entries.filter((e) => e.principal === principal) }))
        .filter((g) => g.entries.length > 0),
    );
  }
}

/** Bindings grouped by resource pattern, each once, in a stable order. */
function byPattern(bindings: readonly AclBinding[]): { pattern: Pattern; entries: AclBinding['entry'][] }[] {
  const map = new Map<string, { pattern: Pattern; entries: AclBinding['entry'][] }>();
  for (const b of bindings) {
    const k = patternText(b.pattern);
    const g = map.get(k) ?? { pattern: b.pattern, entries: [] };
    if (!g.entries.some((e) => entryText(e) === entryText(b.entry))) g.entries.push(b.entry);
    map.set(k, g);
  }
  const sorted = [...map.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([, g]) => g);
  for (const g of sorted) g.entries.sort((a, b) => (entryText(a) < entryText(b) ? -1 : 1));
  return sorted;
}
