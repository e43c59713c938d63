// kafka-consumer-groups' text output, column for column (Kafka 4's widths: a column is as wide
// as its longest value and at least 15; each table starts with a blank line), plus the JSON
// that --output json prints instead. Kafka's "-" stands for a value it does not know (a classic
// group's epochs, an empty assignment, an empty ASSIGNMENT-STRATEGY).
import type { GroupDescription, GroupListing } from '../../client/admin/groups.js';
import type { GroupOffsets, MemberRow } from './groups-describe.js';
import { formatAge } from './record-age.js';
import type { PlannedOffset } from './reset-args.js';

const MISSING = '-';

/** Java's %-Ns: left-aligned, padded to N (never cut). */
const pad = (s: string, n: number): string => s.padEnd(n);
const widest = (values: readonly string[], min = 15): number => Math.max(min, ...values.map((v) => v.length));
const text = (v: bigint | number | string | null): string => (v === null ? MISSING : String(v));

/** Kafka's GroupType names: "Classic", "Consumer". */
const typeName = (t: string): string => t.charAt(0).toUpperCase() + t.slice(1);

/** --list: names only; with --type and/or --state, Kafka's GROUP [TYPE] [STATE] table. */
export function listText(
  groups: readonly GroupListing[],
  columns: { type: boolean; state: boolean },
): string {
  if (!columns.type && !columns.state) return groups.map((g) => `${g.groupId}\n`).join('');
  const w = widest(groups.map((g) => g.groupId)) + 10;
  const line = (group: string, type: string, state: string) =>
    `${pad(group, w)}${columns.type ? ` ${pad(type, 20)}` : ''}${columns.state ? ` ${pad(state, 20)}` : ''}\n`;
  return (
    line('GROUP', 'TYPE', 'STATE') + groups.map((g) => line(g.groupId, typeName(g.type), g.state)).join('')
  );
}

const FIXED_OFFSET_WIDTHS: Readonly<Record<string, number>> = {
  PARTITION: 10,
  'LEADER-EPOCH': 15,
  'CURRENT-OFFSET': 15,
  'LOG-END-OFFSET': 15,
  LAG: 15,
};

/**
 * GROUP TOPIC PARTITION [LEADER-EPOCH] CURRENT-OFFSET LOG-END-OFFSET LAG CONSUMER-ID HOST
 * CLIENT-ID, then LAG-TIME (ours). --verbose adds LEADER-EPOCH, the committed offset's.
 */
export function offsetsText(g: GroupOffsets, verbose = false): string {
  const cells = g.rows.map((r) => [
    r.group,
    r.topic,
    String(r.partition),
    ...(verbose ? [text(r.leaderEpoch)] : []),
    text(r.currentOffset),
    text(r.logEndOffset),
    text(r.lag),
    text(r.consumerId),
    text(r.host),
    text(r.clientId),
    r.lagMs === null ? MISSING : formatAge(r.lagMs),
  ]);
  const header = [
    'GROUP',
    'TOPIC',
    'PARTITION',
    ...(verbose ? ['LEADER-EPOCH'] : []),
    'CURRENT-OFFSET',
    'LOG-END-OFFSET',
    'LAG',
    'CONSUMER-ID',
    'HOST',
    'CLIENT-ID',
    'LAG-TIME',
  ];
  const last = header.length - 1; // LAG-TIME, unpadded
  const widths = header
    .slice(0, last)
    .map((h, i) => FIXED_OFFSET_WIDTHS[h] ?? widest(cells.map((c) => c[i]!)));
  const line = (c: readonly string[]) => `${widths.map((w, i) => pad(c[i]!, w)).join(' ')} ${c[last]}\n`;
  return `\n${[header, ...cells].map(line).join('')}`;
}

/**
 * GROUP CONSUMER-ID [GROUP-INSTANCE-ID] HOST CLIENT-ID #PARTITIONS; --verbose adds Kafka 4's
 * CURRENT-EPOCH CURRENT-ASSIGNMENT TARGET-EPOCH TARGET-ASSIGNMENT, and UPGRADED when the group
 * has members of both protocols (an online migration).
 */
export function membersText(rows: readonly MemberRow[], verbose: boolean): string {
  const withInstance = rows.some((r) => r.groupInstanceId !== null && r.groupInstanceId !== '');
  const cells = rows.map((r) => [
    r.group,
    r.consumerId,
    ...(withInstance ? [r.groupInstanceId ?? ''] : []),
    r.host,
    r.clientId,
    String(r.partitions.length),
  ]);
  const header = [
    'GROUP',
    'CONSUMER-ID',
    ...(withInstance ? ['GROUP-INSTANCE-ID'] : []),
    'HOST',
    'CLIENT-ID',
    '#PARTITIONS',
  ];
  const widths = header.map((h, i) =>
    h === '#PARTITIONS'
      ? 15
      : widest(
          cells.map((c) => c[i]!),
          h === 'GROUP-INSTANCE-ID' ? 17 : 15,
        ),
  );
  const details = rows.map((r) => [
    text(r.currentEpoch),
    assignmentText(r.partitions),
    text(r.targetEpoch),
    assignmentText(r.targetPartitions ?? []),
    r.upgraded === null ? MISSING : String(r.upgraded),
  ]);
  const migrating = rows.some((r) => r.upgraded === true) && rows.some((r) => r.upgraded === false);
  const current = widest(
    details.map((d) => d[1]!),
    20,
  );
  const target = widest(
    details.map((d) => d[3]!),
    20,
  );
  const detail = (d: readonly string[]) =>
    `${pad(d[0]!, 15)} ${pad(d[1]!, current)} ${pad(d[2]!, 15)} ${pad(d[3]!, target)}${migrating ? ` ${d[4]}` : ''}`;
  const line = (c: readonly string[], d: readonly string[]) =>
    `${widths.map((w, i) => `${pad(c[i]!, w)} `).join('')}${verbose ? detail(d) : ''}\n`;
  const head = ['CURRENT-EPOCH', 'CURRENT-ASSIGNMENT', 'TARGET-EPOCH', 'TARGET-ASSIGNMENT', 'UPGRADED'];
  return `\n${line(header, head)}${cells.map((c, i) => line(c, details[i]!)).join('')}`;
}

/** `orders:0,2;payments:1`: Kafka 4's assignment columns (topics sorted, then partitions). */
function assignmentText(partitions: readonly { topic: string; partition: number }[]): string {
  if (partitions.length === 0) return MISSING;
  const byTopic = new Map<string, number[]>();
  for (const p of partitions) byTopic.set(p.topic, [...(byTopic.get(p.topic) ?? []), p.partition]);
  return [...byTopic]
    .map(([t, ps]) => `${t}:${ps.sort((a, b) => a - b).join(',')}`)
    .sort()
    .join(';');
}

/** GROUP COORDINATOR (ID) ASSIGNMENT-STRATEGY STATE [GROUP-EPOCH TARGET-ASSIGNMENT-EPOCH] #MEMBERS. */
export function stateText(g: GroupDescription, verbose = false): string {
  const coordinator = `${g.coordinator.host}:${g.coordinator.port}  (${g.coordinator.nodeId})`;
  const wg = Math.max(15, g.groupId.length);
  const wc = Math.max(25, coordinator.length);
  const line = (c: readonly string[]) =>
    `${pad(c[0]!, wg)} ${pad(c[1]!, wc)} ${pad(c[2]!, 20)} ${pad(c[3]!, 20)} ${
      verbose ? `${pad(c[4]!, 15)} ${pad(c[5]!, 25)} ` : ''
    }${c[6]}\n`;
  return `\n${line([
    'GROUP',
    'COORDINATOR (ID)',
    'ASSIGNMENT-STRATEGY',
    'STATE',
    'GROUP-EPOCH',
    'TARGET-ASSIGNMENT-EPOCH',
    '#MEMBERS',
  ])}${line([
    g.groupId,
    coordinator,
    g.protocol === '' ? MISSING : g.protocol,
    g.state,
    text(g.groupEpoch),
    text(g.targetAssignmentEpoch),
    String(g.members.length),
  ])}`;
}

/** GROUP TOPIC PARTITION NEW-OFFSET: the plan of --reset-offsets. */
export function resetPlanText(plan: readonly PlannedOffset[]): string {
  if (plan.length === 0) return '';
  const wg = widest(plan.map((p) => p.group));
  const wt = widest(plan.map((p) => p.topic));
  const line = (c: readonly string[]) => `${pad(c[0]!, wg)} ${pad(c[1]!, wt)} ${pad(c[2]!, 10)} ${c[3]}\n`;
  return `\n${[
    ['GROUP', 'TOPIC', 'PARTITION', 'NEW-OFFSET'],
    ...plan.map((p) => [p.group, p.topic, String(p.partition), String(p.offset)]),
  ]
    .map(line)
    .join('')}`;
}

/** --export: the CSV --from-file reads back (without the group column when one group was asked). */
export function resetPlanCsv(plan: readonly PlannedOffset[], oneGroup: boolean): string {
  return plan.map((p) => `${oneGroup ? '' : `${p.group},`}${p.topic},${p.partition},${p.offset}\n`).join('');
}

/** JSON for scripts: offsets as numbers (exact below 2^53, which every real offset is). */
export function toJson(value: unknown): string {
  return `${JSON.stringify(value, (_k, v: unknown) => (typeof v === 'bigint' ? jsonNumber(v) : v), 2)}\n`;
}

function jsonNumber(v: bigint): number | string {
  return v <= BigInt(Number.MAX_SAFE_INTEGER) && v >= BigInt(Number.MIN_SAFE_INTEGER)
    ? Number(v)
    : v.toString();
}
