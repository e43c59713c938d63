// `samsa log-dirs --describe`: kafka-log-dirs. By default the same three lines as Kafka (two
// progress lines, then one JSON line: brokers → log dirs → partitions with size, offsetLag,
// isFuture), so scripts written for Kafka keep working; `--output json` prints the JSON line
// alone and `--output table` a table for people.
import type { LogDirDescription } from '../../client/admin/log-dirs.js';
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

export const LOG_DIRS_USAGE = `Usage: samsa log-dirs --describe [--broker-list 0,1] [--topic-list a,b] [options]

kafka-log-dirs: each broker's log directories and the size of every partition in them.

  --bootstrap-server HOST:PORT  broker to connect to (default 127.0.0.1:9092)
  --command-config FILE         admin client properties (Kafka's names: security.protocol, sasl.*, ssl.*)
  --broker-list 0,1             brokers to ask (default: every broker)
  --topic-list a,b              partitions of these topics only (default: all)
  --output kafka|json|table     kafka (default): Kafka's lines, the JSON on the last one;
                                json: the JSON line alone; table: BROKER LOG-DIR PARTITION SIZE
                                OFFSET-LAG IS-FUTURE ERROR

Examples:
  samsa log-dirs --describe
  samsa log-dirs --describe --broker-list 0 --topic-list orders --output table
  samsa log-dirs --describe --output json | jq '.brokers[].logDirs[].partitions[].size'
`;

/** The Java exception Kafka names for a failed dir; other errors keep their Kafka name. */
const ERROR_CLASSES: Record<string, string> = {
  KAFKA_STORAGE_ERROR: 'org.apache.kafka.common.errors.KafkaStorageException',
};

export async function runLogDirs(argv: readonly string[], io: CommandIO = processIO): Promise<number> {
  return runCommand(io, LOG_DIRS_USAGE, async () => {
    const { values: v } = parseCommand({
      args: [...argv],
      options: {
        ...ADMIN_COMMAND_OPTIONS,
        describe: { type: 'boolean' },
        'broker-list': { type: 'string' },
        'topic-list': { type: 'string' },
        output: { type: 'string' },
      },
    });
    if (v.help) {
      io.stdout.write(LOG_DIRS_USAGE);
      return 0;
    }
    if (!v.describe) throw new CommandUsageError('give the action: --describe (the only one)');
    const output = v.output ?? 'kafka';
    if (!['kafka', 'json', 'table'].includes(output))
      throw new CommandUsageError(`--output is kafka, json or table, not "${output}"`);
    const asked = listOf(v['broker-list']).map((b) => {
      if (!/^\d+$/.test(b)) throw new CommandUsageError(`--broker-list: "${b}" is not a broker id`);
      return Number(b);
    });
    const topics = new Set(listOf(v['topic-list']));
    const { admin } = await openAdmin(v, io);
    try {
      const known = (await admin.describeCluster()).brokers.map((b) => b.nodeId);
      const unknown = asked.filter((b) => !known.includes(b));
      if (unknown.length > 0)
        throw new CommandError(
          `The given brokers do not exist from --broker-list: ${unknown.join(',')}. Current existent brokers: ${known.join(',')}`,
        );
      const brokers = asked.length > 0 ? [...new Set(asked)].sort((a, b) => a - b) : known;
      if (output === 'kafka') io.stdout.write('Querying brokers for log directories information\n');
      const dirs = (await admin.describeLogDirs(brokers)).map((d) => ({
        ...d,
        replicas: d.replicas.filter((r) => topics.size === 0 || topics.has(r.topic)),
      }));
      if (output === 'table') io.stdout.write(logDirsTable(dirs));
      else {
        if (output === 'kafka')
          io.stdout.write(`Received log directory information from brokers ${brokers.join(',')}\n`);
        io.stdout.write(`${JSON.stringify(logDirsJson(brokers, dirs))}\n`);
      }
      return 0;
    } catch (e) {
      if (e instanceof KafkaResponseError) throw new CommandError(e.message);
      throw e;
    } finally {
      await admin.close();
    }
  });
}

function listOf(text: string | undefined): string[] {
  return (text ?? '')
    .split(',')
    .map((s) => s.trim())
    .filter((s) => s !== '');
}

/** Kafka's JSON: sizes and lags as numbers (exact below 2^53, which every real size is). */
export function logDirsJson(brokers: readonly number[], dirs: readonly LogDirDescription[]) {
  return {
    brokers: brokers.map((broker) => ({
      broker,
      logDirs: dirs
        .filter((d) => d.broker === broker)
        .map((d) => ({
          partitions: d.replicas.map((r) => ({
            partition: `${r.topic}-${r.partition}`,
            size: Number(r.sizeBytes),
            offsetLag: Number(r.offsetLag),
            isFuture: r.isFuture,
          })),
          error: d.error === null ? null : (ERROR_CLASSES[d.error] ?? d.error),
          logDir: d.logDir,
        })),
    })),
    version: 1,
  };
}

export function logDirsTable(dirs: readonly LogDirDescription[]): string {
  const rows: string[][] = [];
  for (const d of dirs) {
    const base = [String(d.broker), d.logDir];
    if (d.replicas.length === 0) rows.push([...base, '-', '-', '-', '-', d.error ?? '-']);
    for (const r of d.replicas)
      rows.push([
        ...base,
        `${r.topic}-${r.partition}`,
        String(r.sizeBytes),
        String(r.offsetLag),
        String(r.isFuture),
        d.error ?? '-',
      ]);
  }
  const header = ['BROKER', 'LOG-DIR', 'PARTITION', 'SIZE', 'OFFSET-LAG', 'IS-FUTURE', 'ERROR'];
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]!.length)));
  const line = (r: readonly string[]) =>
    `${r.map((c, i) => (i === r.length - 1 ? c : c.padEnd(widths[i]!))).join('  ')}\n`;
  return [header, ...rows].map(line).join('');
}
