// kafka-consumer-groups' text output, column for column (Kafka 3.9's widths: a column is as wide
// as its longest value and at least 15; each table starts with a blank line), plus the JSON
// that --output json prints instead. Kafka's "-" stands for a value it does not know; samsa
// also prints it for an empty ASSIGNMENT-STRATEGY so that every row has the same columns.
import type { GroupDescription, GroupListing } from '../../client/admin/groups.js';
import type { GroupOffsets, MemberRow } from './groups-describe.js';
import { formatAge } from './record-age.js';
import type { PlannedOffset } from './reset-args.js';

const MISSING = '-';

/** Java's %-Ns: left-aligned, padded to N (never cut). */
const pad = (s: string, n: number): string => s.padEnd(n);
const widest = (values: readonly string[], min = 15): number => Math.max(min, ...values.map((v) => v.length));
const text = (v: bigint | number | string | null): string => (v === null ? MISSING : String(v));

export function listText(groups: readonly GroupListing[], withState: boolean): string {
  if (!withState) return groups.map((g) => `${g.groupId}\n`).join('');
  const w = widest(groups.map((g) => g.groupId));
  return [['GROUP', 'STATE'], ...groups.map((g) => [g.groupId, g.state])]
    .map(([group, state]) => `${pad(group!, w)} ${state}\n`)
    .join('');
}

/** GROUP TOPIC PARTITION CURRENT-OFFSET LOG-END-OFFSET LAG CONSUMER-ID HOST CLIENT-ID, then LAG-TIME. */
export function offsetsText(g: GroupOffsets): string {
  const cells = g.rows.map((r) => [
    r.group,
    r.topic,
    String(r.partition),
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
    'CURRENT-OFFSET',
    'LOG-END-OFFSET',
    'LAG',
    'CONSUMER-ID',
    'HOST',
    'CLIENT-ID',
    'LAG-TIME',
  ];
  const col = (i: number) => widest(cells.map((c) => c[i]!));
  const widths = [col(0), col(1), 10, 15, 15, 15, col(6), col(7), col(8)];
  const line = (c: readonly string[]) => `${widths.map((w, i) => pad(c[i]!, w)).join(' ')} ${c[9]}\n`;
  return `\n${[header, ...cells].map(line).join('')}`;
}

/** GROUP CONSUMER-ID [GROUP-INSTANCE-ID] HOST CLIENT-ID #PARTITIONS [ASSIGNMENT]. */
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
  const line = (c: readonly string[], assignment: string) =>
    `${widths.map((w, i) => `${pad(c[i]!, w)} `).join('')}${verbose ? assignment : ''}\n`;
  return `\n${line(header, 'ASSIGNMENT')}${cells.map((c, i) => line(c, assignmentText(rows[i]!))).join('')}`;
}

/** `orders(0,2), payments(1)`: Kafka's ASSIGNMENT column. */
function assignmentText(r: MemberRow): string {
  if (r.partitions.length === 0) return MISSING;
  const byTopic = new Map<string, number[]>();
  for (const p of r.partitions) byTopic.set(p.topic, [...(byTopic.get(p.topic) ?? []), p.partition]);
  return [...byTopic]
    .map(([t, ps]) => `${t}(${ps.sort((a, b) => a - b).join(',')})`)
    .sort()
    .join(', ');
}

/** GROUP COORDINATOR (ID) ASSIGNMENT-STRATEGY STATE #MEMBERS. */
export function stateText(g: GroupDescription): string {
  const coordinator = `${g.coordinator.host}:${g.coordinator.port}  (${g.coordinator.nodeId})`;
  const w = Math.max(25, coordinator.length);
  const line = (c: readonly string[]) =>
    `${pad(c[0]!, w)} ${pad(c[1]!, 25)} ${pad(c[2]!, 20)} ${pad(c[3]!, 15)} ${c[4]}\n`;
  return `\n${line(['GROUP', 'COORDINATOR (ID)', 'ASSIGNMENT-STRATEGY', 'STATE', '#MEMBERS'])}${line([
    g.groupId,
    coordinator,
    g.protocol === '' ? MISSING : g.protocol,
    g.state,
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
