// `samsa groups`: kafka-consumer-groups with its flags and output, on the Admin client.
// The flags are checked first (Kafka's rules: one action, a group scope, one reset scenario, …),
// then one action runs: groups-describe.ts gathers, groups-print.ts prints, groups-reset.ts plans
// resets, groups-delete.ts deletes. Anything that fails makes the exit status 1.
import type { Admin } from '../../client/admin/admin.js';
import type { ClientOptions } from '../../client/config.js';
import { openAdmin } from './admin-session.js';
import { type CommandIO, CommandUsageError, parseCommand, processIO, runCommand } from './common.js';
import { deleteGroups, deleteOffsets } from './groups-delete.js';
import { collectOffsets, describeGroups, listConsumerGroups, memberRows } from './groups-describe.js';
import { resetTo } from './groups-options.js';
import {
  listText,
  membersText,
  offsetsText,
  resetPlanCsv,
  resetPlanText,
  stateText,
  toJson,
} from './groups-print.js';
import { planReset, type ResetScope, type ResetTo } from './groups-reset.js';
import { GROUPS_USAGE } from './groups-usage.js';
import { type PlannedOffset, parseTopicScope } from './reset-args.js';

const OPTIONS = {
  'bootstrap-server': { type: 'string' },
  'command-config': { type: 'string' },
  list: { type: 'boolean' },
  describe: { type: 'boolean' },
  delete: { type: 'boolean' },
  'reset-offsets': { type: 'boolean' },
  'delete-offsets': { type: 'boolean' },
  group: { type: 'string', multiple: true },
  'all-groups': { type: 'boolean' },
  topic: { type: 'string', multiple: true },
  'all-topics': { type: 'boolean' },
  members: { type: 'boolean' },
  offsets: { type: 'boolean' },
  state: { type: 'string' },
  type: { type: 'string' },
  verbose: { type: 'boolean' },
  'dry-run': { type: 'boolean' },
  execute: { type: 'boolean' },
  export: { type: 'boolean' },
  'to-earliest': { type: 'boolean' },
  'to-latest': { type: 'boolean' },
  'to-current': { type: 'boolean' },
  'to-offset': { type: 'string' },
  'shift-by': { type: 'string' },
  'to-datetime': { type: 'string' },
  'by-duration': { type: 'string' },
  'from-file': { type: 'string' },
  timeout: { type: 'string' },
  output: { type: 'string' },
  help: { type: 'boolean', short: 'h' },
} as const;

const ACTIONS = ['list', 'describe', 'delete', 'reset-offsets', 'delete-offsets'] as const;

/**
 * `--state` takes a value with --list (a filter) and none with --describe, `--type` an optional
 * one with --list: Kafka's optional arguments.
 */
function optionalValues(argv: readonly string[]): string[] {
  return argv.map((a, i) =>
    (a === '--state' || a === '--type') && (argv[i + 1] === undefined || argv[i + 1]!.startsWith('-'))
      ? `${a}=`
      : a,
  );
}

export async function runGroups(argv: readonly string[], io: CommandIO = processIO): Promise<number> {
  return runCommand(io, GROUPS_USAGE, async () => {
    const { values: v } = parseCommand({ args: optionalValues(argv), options: OPTIONS }, ['group', 'topic']);
    if (v.help) {
      io.stdout.write(GROUPS_USAGE);
      return 0;
    }
    const actions = ACTIONS.filter((a) => v[a]);
    if (actions.length !== 1)
      throw new CommandUsageError(`give exactly one action: ${ACTIONS.map((a) => `--${a}`).join(', ')}`);
    const action = actions[0]!;
    const json = outputIsJson(v.output, action);
    const groups = v.group ?? [];
    if (action !== 'list' && action !== 'delete-offsets' && groups.length === 0 && !v['all-groups'])
      throw new CommandUsageError(`--${action} needs --group G (repeatable) or --all-groups`);
    if (groups.length > 0 && v['all-groups'])
      throw new CommandUsageError('give --group or --all-groups, not both');
    for (const flag of ['members', 'offsets', 'verbose'] as const)
      if (v[flag] && action !== 'describe') throw new CommandUsageError(`--${flag} goes with --describe`);
    if (v.state !== undefined && action !== 'describe' && action !== 'list')
      throw new CommandUsageError('--state goes with --describe or --list');
    if (v.type !== undefined && action !== 'list') throw new CommandUsageError('--type goes with --list');
    if ([v.members, v.offsets, v.state !== undefined].filter(Boolean).length > 1)
      throw new CommandUsageError('--describe takes at most one of --members, --offsets, --state');
    if (action === 'describe' && v.state) throw new CommandUsageError('--describe --state takes no value');
    const timeoutMs = positiveInt(v.timeout, '--timeout') ?? 5000;
    const to = action === 'reset-offsets' ? resetTo(v, groups) : null;
    if (action === 'reset-offsets') {
      if (v['dry-run'] && v.execute) throw new CommandUsageError('give --dry-run or --execute, not both');
    } else if (v['dry-run'] || v.execute || v.export)
      throw new CommandUsageError('--dry-run, --execute and --export go with --reset-offsets');
    const scope = action === 'reset-offsets' ? resetScope(v, to!) : null;
    if (action === 'delete' && v.topic)
      throw new CommandUsageError('--delete removes whole groups: use --delete-offsets --topic T');
    if (action === 'delete-offsets' && (groups.length !== 1 || !v.topic))
      throw new CommandUsageError(
        '--delete-offsets takes one --group G and --topic T[:PARTITIONS] (repeatable)',
      );
    if (action === 'reset-offsets' && !v['dry-run'] && !v.execute)
      io.stderr.write(
        'WARN: No action will be performed as the --execute option is missing. Add --execute to reset the offsets, or --dry-run to only show the plan without this warning.\n',
      );

    const { admin, clientOptions } = await openAdmin(v, io);
    try {
      const groupIds = async () =>
        v['all-groups'] ? (await listConsumerGroups(admin)).map((g) => g.groupId) : groups;
      switch (action) {
        case 'list': {
          const states = listFilter(v.state, STATES, '--state');
          const types = listFilter(v.type, TYPES, '--type');
          const listed = (await listConsumerGroups(admin)).filter(
            (g) =>
              (states === null || states.has(g.state.toLowerCase())) &&
              (types === null || types.has(g.type.toLowerCase())),
          );
          io.stdout.write(
            json
              ? toJson(listed.map((g) => ({ group: g.groupId, type: g.type, state: g.state })))
              : listText(listed, { type: v.type !== undefined, state: v.state !== undefined }),
          );
          return 0;
        }
        case 'describe':
          return await describe(
            admin,
            await groupIds(),
            {
              members: v.members,
              state: v.state !== undefined,
              verbose: v.verbose,
              json,
              timeoutMs,
              clientOptions,
            },
            io,
          );
        case 'reset-offsets':
          return await reset(
            admin,
            await groupIds(),
            scope,
            to!,
            { execute: v.execute === true, export: v.export === true, json, oneGroup: groups.length === 1 },
            io,
          );
        case 'delete':
          return await deleteGroups(admin, await groupIds(), io);
        case 'delete-offsets':
          return await deleteOffsets(admin, groups[0]!, (v.topic ?? []).map(parseTopicScope), io);
      }
    } finally {
      await admin.close();
    }
  });
}

function outputIsJson(output: string | undefined, action: (typeof ACTIONS)[number]): boolean {
  if (output === undefined || output === 'text') return false;
  if (output !== 'json') throw new CommandUsageError(`--output is text or json, not "${output}"`);
  if (action === 'delete' || action === 'delete-offsets')
    throw new CommandUsageError('--output json goes with --list, --describe and --reset-offsets');
  return true;
}

function positiveInt(text: string | undefined, flag: string): number | undefined {
  if (text === undefined) return undefined;
  const n = Number(text);
  if (!Number.isInteger(n) || n <= 0)
    throw new CommandUsageError(`${flag} must be a positive number of milliseconds`);
  return n;
}

/** The states of both protocols' groups (a consumer group is Assigning or Reconciling while it moves partitions). */
const STATES = [
  'PreparingRebalance',
  'CompletingRebalance',
  'Assigning',
  'Reconciling',
  'Stable',
  'Empty',
  'Dead',
];
const TYPES = ['Classic', 'Consumer'];

/** `--list --state stable,empty` or `--type consumer`: the values to show, lower case (null: all). */
function listFilter(text: string | undefined, valid: readonly string[], flag: string): Set<string> | null {
  if (text === undefined || text.trim() === '') return null;
  const values = text.split(',').map((s) => s.trim().toLowerCase());
  if (values.some((s) => !valid.some((x) => x.toLowerCase() === s)))
    throw new CommandUsageError(`${flag} "${text}": valid values are ${valid.join(', ')}`);
  return new Set(values);
}

function resetScope(
  v: { topic?: string[] | undefined; 'all-topics'?: boolean | undefined },
  to: ResetTo,
): ResetScope | null {
  if (v.topic && v['all-topics']) throw new CommandUsageError('give --topic or --all-topics, not both');
  if (v['all-topics']) return { allTopics: true };
  if (v.topic) return { topics: v.topic.map(parseTopicScope) };
  if (to.kind === 'file') return null;
  throw new CommandUsageError(
    '--reset-offsets needs a scope: --all-topics or --topic T[:PARTITIONS] (repeatable)',
  );
}

/** States Kafka's tool warns about: a classic rebalance, or a consumer group moving partitions. */
const REBALANCING = new Set(['PreparingRebalance', 'CompletingRebalance', 'Assigning', 'Reconciling']);

interface DescribeOptions {
  members: boolean | undefined;
  state: boolean;
  verbose: boolean | undefined;
  json: boolean;
  timeoutMs: number;
  clientOptions: ClientOptions;
}

async function describe(
  admin: Admin,
  ids: readonly string[],
  o: DescribeOptions,
  io: CommandIO,
): Promise<number> {
  const described = await describeGroups(admin, ids);
  const missing = described.filter((g) => g.state === 'Dead').map((g) => g.groupId);
  const live = described.filter((g) => g.state !== 'Dead');
  const note = (line: string) => {
    if (!o.json) io.stderr.write(`${line}\n`);
  };
  const stateNote = (g: { groupId: string; state: string }) => {
    if (g.state === 'Empty') note(`Consumer group '${g.groupId}' has no active members.`);
    if (REBALANCING.has(g.state)) note(`Warning: Consumer group '${g.groupId}' is rebalancing.`);
  };
  if (o.members) {
    const rows = live.map((g) => ({ g, rows: memberRows(g) }));
    if (o.json)
      io.stdout.write(
        toJson(rows.map(({ g, rows }) => ({ group: g.groupId, state: g.state, members: rows }))),
      );
    for (const { g, rows: r } of o.json ? [] : rows) {
      stateNote(g);
      if (r.length > 0) io.stdout.write(membersText(r, o.verbose === true));
    }
  } else if (o.state) {
    if (o.json)
      io.stdout.write(
        toJson(
          live.map((g) => ({
            group: g.groupId,
            type: g.type,
            coordinator: g.coordinator,
            assignmentStrategy: g.protocol,
            state: g.state,
            groupEpoch: g.groupEpoch,
            targetAssignmentEpoch: g.targetAssignmentEpoch,
            members: g.members.length,
          })),
        ),
      );
    else
      for (const g of live) {
        stateNote(g);
        io.stdout.write(stateText(g, o.verbose === true));
      }
  } else {
    const offsets = await collectOffsets(admin, live, {
      clientOptions: o.clientOptions,
      budgetMs: o.timeoutMs,
    });
    if (o.json)
      io.stdout.write(
        toJson(
          offsets.map((g) => ({
            group: g.group,
            state: g.state,
            partitions: g.rows.map(({ group: _, ...r }) => r),
          })),
        ),
      );
    else
      for (const g of offsets) {
        stateNote({ groupId: g.group, state: g.state });
        if (g.rows.length > 0) io.stdout.write(offsetsText(g, o.verbose === true));
      }
  }
  for (const g of missing)
    io.stderr.write(`samsa: consumer group '${g}' does not exist (samsa groups --list shows the groups)\n`);
  return missing.length > 0 ? 1 : 0;
}

interface ResetOptions {
  execute: boolean;
  export: boolean;
  json: boolean;
  oneGroup: boolean;
}

async function reset(
  admin: Admin,
  ids: readonly string[],
  scope: ResetScope | null,
  to: ResetTo,
  o: ResetOptions,
  io: CommandIO,
): Promise<number> {
  const plan: PlannedOffset[] = [];
  let refused = 0;
  for (const g of await describeGroups(admin, ids)) {
    // Kafka's rule: only a group without members can have its offsets set (a member would
    // overwrite them with its next commit). A group that does not exist yet may be seeded.
    if (g.state !== 'Empty' && g.state !== 'Dead') {
      io.stderr.write(
        `samsa: Assignments can only be reset if the group '${g.groupId}' is inactive, but the current state is ${g.state}. (stop its consumers first)\n`,
      );
      refused++;
      continue;
    }
    const planned = await planReset(admin, g.groupId, scope, to, (l) => io.stderr.write(`${l}\n`));
    if (o.execute && planned.length > 0)
      await admin.alterConsumerGroupOffsets(
        g.groupId,
        planned.map(({ topic, partition, offset }) => ({ topic, partition, offset })),
      );
    plan.push(...planned);
  }
  if (o.json) io.stdout.write(toJson(plan));
  else if (o.export) io.stdout.write(resetPlanCsv(plan, o.oneGroup));
  else io.stdout.write(resetPlanText(plan));
  return refused > 0 ? 1 : 0;
}
