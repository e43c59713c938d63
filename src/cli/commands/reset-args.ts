// The values `samsa groups --reset-offsets` takes, read as kafka-consumer-groups reads them:
// --to-datetime (ISO 8601 local date-time, UTC unless a zone is given), --by-duration (Java's
// Duration text, PnDTnHnMnS), --topic t[:p,p] and the --from-file CSV plan. Each mistake is a
// usage error that shows the expected form.
import type { TopicPartition } from '../../client/admin/context.js';
import { CommandUsageError } from './common.js';

const DATETIME =
  /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2}):(\d{2})(?:\.(\d{1,3}))?(Z|[+-]\d{2}(?::?\d{2})?)?$/;

const DATETIME_HELP =
  'use yyyy-MM-ddTHH:mm:ss.SSS (UTC) or with a zone, e.g. 2024-05-01T12:00:00.000 or 2024-05-01T14:00:00.000+02:00';

/** Milliseconds since the epoch of a --to-datetime value; Kafka takes a time without zone as UTC. */
export function parseDateTime(text: string): number {
  const m = DATETIME.exec(text.trim());
  const bad = () => new CommandUsageError(`--to-datetime "${text}" is not a date-time: ${DATETIME_HELP}`);
  if (m === null) throw bad();
  const [year, month, day, hour, minute, second] = m.slice(1, 7).map(Number) as [
    number,
    number,
    number,
    number,
    number,
    number,
  ];
  const ms = Number((m[7] ?? '0').padEnd(3, '0'));
  const local = Date.UTC(year, month - 1, day, hour, minute, second, ms);
  // Strict like Kafka's non-lenient parser: 2024-02-30 or 25:00 are mistakes, not roll-overs.
  const d = new Date(local);
  if (
    d.getUTCFullYear() !== year ||
    d.getUTCMonth() !== month - 1 ||
    d.getUTCDate() !== day ||
    d.getUTCHours() !== hour ||
    d.getUTCMinutes() !== minute ||
    d.getUTCSeconds() !== second
  )
    throw bad();
  return local - zoneOffsetMs(m[8]);
}

function zoneOffsetMs(zone: string | undefined): number {
  if (zone === undefined || zone === 'Z') return 0;
  const sign = zone.startsWith('-') ? -1 : 1;
  const digits = zone.slice(1).replace(':', '');
  const hours = Number(digits.slice(0, 2));
  const minutes = digits.length > 2 ? Number(digits.slice(2)) : 0;
  return sign * (hours * 60 + minutes) * 60_000;
}

// java.time.Duration.parse: days, hours, minutes, seconds (with a fraction), each optionally signed.
const DURATION =
  /^([-+]?)P(?:([-+]?\d+)D)?(?:T(?:([-+]?\d+)H)?(?:([-+]?\d+)M)?(?:([-+]?\d+)(?:[.,](\d{0,9}))?S)?)?$/i;

/** Milliseconds of a --by-duration value such as PT30M, P1DT2H or PT0.5S. */
export function parseDuration(text: string): number {
  const s = text.trim();
  const m = DURATION.exec(s);
  // A bare "P", or a "T" with nothing after it, matches the pattern but is no duration.
  if (m === null || m.slice(2, 6).every((x) => x === undefined) || /T$/i.test(s))
    throw new CommandUsageError(
      `--by-duration "${text}" is not a duration: use PnDTnHnMnS, e.g. PT30M (30 minutes) or P1DT2H (1 day 2 hours)`,
    );
  const n = (x: string | undefined) => (x === undefined ? 0 : Number(x));
  const seconds = n(m[5]);
  const fraction = m[6] ? Number(`0.${m[6]}`) * (seconds < 0 || m[5]?.startsWith('-') ? -1 : 1) : 0;
  const total = ((n(m[2]) * 24 + n(m[3])) * 60 + n(m[4])) * 60_000 + (seconds + fraction) * 1000;
  return Math.round(m[1] === '-' ? -total : total);
}

/** A --topic value: all partitions of the topic, or the listed ones (`orders:0,2`). */
export interface TopicScope {
  topic: string;
  partitions: number[] | null;
}

export function parseTopicScope(text: string): TopicScope {
  const parts = text.split(':');
  if (parts.length === 1) return { topic: text, partitions: null };
  if (parts.length !== 2 || parts[0] === '')
    throw new CommandUsageError(`--topic "${text}" is not TOPIC or TOPIC:PARTITION[,PARTITION...]`);
  const partitions = parts[1]!.split(',').map((p) => {
    if (!/^\d+$/.test(p.trim()))
      throw new CommandUsageError(`--topic "${text}": "${p}" is not a partition number`);
    return Number(p.trim());
  });
  return { topic: parts[0]!, partitions };
}

export interface PlannedOffset extends TopicPartition {
  group: string;
  offset: bigint;
}

/**
 * A --from-file plan: lines `topic,partition,offset` (one --group; what --export writes for one
 * group) or `group,topic,partition,offset` (what it writes for several).
 */
export function parseResetCsv(text: string, file: string, groups: readonly string[]): PlannedOffset[] {
  const rows = text
    .split(/\r?\n/)
    .map((line, i) => ({ line: line.trim(), n: i + 1 }))
    .filter((r) => r.line !== '');
  if (rows.length === 0) throw new CommandUsageError(`--from-file ${file} has no offsets`);
  const withoutGroup = groups.length === 1 && rows[0]!.line.split(',').length === 3;
  return rows.map(({ line, n }) => {
    const f = line.split(',').map((x) => x.trim());
    const fields = withoutGroup ? [groups[0]!, ...f] : f;
    const [group, topic, partition, offset] = fields;
    if (
      fields.length !== 4 ||
      !group ||
      !topic ||
      !/^\d+$/.test(partition ?? '') ||
      !/^\d+$/.test(offset ?? '')
    )
      throw new CommandUsageError(
        `--from-file ${file} line ${n}: expected ${withoutGroup ? 'topic,partition,offset' : 'group,topic,partition,offset'}, got "${line}"`,
      );
    return { group, topic, partition: Number(partition), offset: BigInt(offset!) };
  });
}
