// `samsa records --delete`: kafka-delete-records. Moves the log start offset of partitions
// forward, either from Kafka's JSON file ({"partitions":[{"topic","partition","offset"}],
// "version":1}) or from --topic/--partition/--before-offset. Offset -1 means "up to the high
// watermark" (everything consumers can see), as in Kafka. Prints each partition's new low
// watermark in Kafka's words.
import { readFileSync } from 'node:fs';
import type { Admin } from '../../client/admin/admin.js';
import type { DeleteRecordsTarget } from '../../client/admin/partition-ops.js';
import { KafkaResponseError } from '../../client/errors.js';
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

export const RECORDS_USAGE = `Usage: samsa records --delete (--offset-json-file FILE | --topic T [--partition P] --before-offset N) [options]

kafka-delete-records: deletes every record before an offset (moves the log start offset).

  --bootstrap-server HOST:PORT  broker to connect to (default 127.0.0.1:9092)
  --command-config FILE         admin client properties (Kafka's names: security.protocol, sasl.*, ssl.*)
  --offset-json-file FILE       Kafka's format: {"partitions":[{"topic":"t","partition":0,"offset":5}],"version":1}
  --topic T                     instead of a file: the topic ...
  --partition P                 ... one partition of it (default: every partition) ...
  --before-offset N             ... and the first offset to keep
  An offset of -1 deletes up to the high watermark (every record consumers can read).
  --output text|json            Kafka's lines (default) or JSON

Examples:
  samsa records --delete --offset-json-file delete.json
  samsa records --delete --topic orders --partition 0 --before-offset 1200
  samsa records --delete --topic orders --before-offset -1 --output json
`;

export async function runRecords(argv: readonly string[], io: CommandIO = processIO): Promise<number> {
  return runCommand(io, RECORDS_USAGE, async () => {
    const { values: v } = parseCommand({
      args: [...argv],
      options: {
        ...ADMIN_COMMAND_OPTIONS,
        delete: { type: 'boolean' },
        'offset-json-file': { type: 'string' },
        topic: { type: 'string' },
        partition: { type: 'string' },
        'before-offset': { type: 'string' },
        output: { type: 'string' },
      },
    });
    if (v.help) {
      io.stdout.write(RECORDS_USAGE);
      return 0;
    }
    if (!v.delete) throw new CommandUsageError('give the action: --delete (the only one)');
    if (v.output !== undefined && v.output !== 'text' && v.output !== 'json')
      throw new CommandUsageError(`--output is text or json, not "${v.output}"`);
    const file = v['offset-json-file'];
    const inline = v.topic !== undefined || v.partition !== undefined || v['before-offset'] !== undefined;
    if ((file === undefined) === !inline)
      throw new CommandUsageError('give --offset-json-file FILE or --topic T --before-offset N, one of them');
    let targets: (Omit<DeleteRecordsTarget, 'partition'> & { partition: number | null })[];
    if (file !== undefined) targets = parseOffsetJson(readJsonFile(file), file);
    else {
      if (v.topic === undefined || v['before-offset'] === undefined)
        throw new CommandUsageError('--topic and --before-offset go together');
      const partition = v.partition === undefined ? null : wholeNumber(v.partition, '--partition', 0);
      targets = [
        { topic: v.topic, partition, offset: BigInt(wholeNumber(v['before-offset'], '--before-offset', -1)) },
      ];
    }
    const { admin } = await openAdmin(v, io);
    try {
      const resolved = await resolvePartitions(admin, targets);
      if (v.output !== 'json') io.stdout.write('Executing records delete operation\n');
      const results = await admin.deleteRecords(resolved);
      if (v.output === 'json') {
        io.stdout.write(toJson(results));
        return 0;
      }
      io.stdout.write('Records delete operation completed:\n');
      for (const r of results)
        io.stdout.write(`partition: ${r.topic}-${r.partition}\tlow_watermark: ${r.lowWatermark}\n`);
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
  if (e.code === 'OFFSET_OUT_OF_RANGE')
    return `${e.message} (the offset is past the high watermark; -1 deletes up to it)`;
  return e.message;
}

function wholeNumber(text: string, flag: string, min: number): number {
  const n = Number(text);
  if (text.trim() === '' || !Number.isSafeInteger(n) || n < min)
    throw new CommandUsageError(
      `${flag} must be a whole number${min === 0 ? ' (0 or more)' : ' (-1 or more)'}, got "${text}"`,
    );
  return n;
}

function readJsonFile(file: string): unknown {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (e) {
    throw new CommandUsageError(`--offset-json-file: cannot read ${file}: ${(e as Error).message}`);
  }
  try {
    return JSON.parse(text);
  } catch (e) {
    throw new CommandUsageError(`--offset-json-file ${file} is not valid JSON: ${(e as Error).message}`);
  }
}

const FORMAT = '{"partitions":[{"topic":"t","partition":0,"offset":5}],"version":1}';

/** Kafka's offset JSON (version 1, the only one); a partition given twice is an error. */
export function parseOffsetJson(json: unknown, file: string): DeleteRecordsTarget[] {
  const bad = (why: string) =>
    new CommandUsageError(`--offset-json-file ${file}: ${why}; expected ${FORMAT}`);
  if (typeof json !== 'object' || json === null || Array.isArray(json)) throw bad('not a JSON object');
  const { version, partitions } = json as { version?: unknown; partitions?: unknown };
  if (version !== undefined && version !== 1)
    throw bad(`version ${JSON.stringify(version)} is not supported`);
  if (!Array.isArray(partitions)) throw bad('missing "partitions" array');
  const seen = new Set<string>();
  const duplicates: string[] = [];
  const out = partitions.map((p, i) => {
    const { topic, partition, offset } = (p ?? {}) as Record<string, unknown>;
    if (typeof topic !== 'string' || topic === '') throw bad(`partitions[${i}] has no "topic" string`);
    if (!Number.isInteger(partition) || (partition as number) < 0)
      throw bad(`partitions[${i}] has no "partition" number`);
    if (!Number.isInteger(offset) || (offset as number) < -1)
      throw bad(`partitions[${i}] has no "offset" number`);
    const key = `${topic}-${partition}`;
    if (seen.has(key)) duplicates.push(key);
    seen.add(key);
    return { topic, partition: partition as number, offset: BigInt(offset as number) };
  });
  if (out.length === 0) throw bad('"partitions" is empty');
  if (duplicates.length > 0)
    throw new CommandUsageError(
      `Offset json file contains duplicate topic partitions: ${duplicates.join(',')}`,
    );
  return out;
}

/** Checks topics and partitions first (one clear line), and expands "every partition". */
async function resolvePartitions(
  admin: Admin,
  targets: readonly (Omit<DeleteRecordsTarget, 'partition'> & { partition: number | null })[],
): Promise<DeleteRecordsTarget[]> {
  const names = [...new Set(targets.map((t) => t.topic))];
  const existing = new Set(await admin.listTopics({ includeInternal: true }));
  const missing = names.find((t) => !existing.has(t));
  if (missing !== undefined)
    throw new CommandError(`topic '${missing}' does not exist (samsa topics --list shows the topics)`);
  const counts = new Map((await admin.describeTopics(names)).map((d) => [d.name, d.partitions.length]));
  return targets.flatMap((t) => {
    const count = counts.get(t.topic) ?? 0;
    if (t.partition === null)
      return Array.from({ length: count }, (_, partition) => ({
        topic: t.topic,
        partition,
        offset: t.offset,
      }));
    if (t.partition >= count)
      throw new CommandError(
        `partition ${t.topic}-${t.partition} does not exist (${t.topic} has ${count} partitions)`,
      );
    return [{ topic: t.topic, partition: t.partition, offset: t.offset }];
  });
}
