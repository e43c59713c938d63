// `samsa consume`: print records to stdout, like kafka-console-consumer.
//   samsa consume --topic T [--bootstrap-server H:P] [--group G] [--from-beginning]
//                 [--partition P [--offset O|earliest|latest]] [--max-messages N] [--timeout-ms MS]
//                 [--property print.key=true ...] [--print-key] [--print-headers] [--print-timestamp]
//                 [--consumer-props k=v ...]
// Output per record, fields separated by key.separator (default TAB), in Kafka's order:
// [CreateTime:ts] [Partition:p] [Offset:o] [h1:v1,h2:v2 | NO_HEADERS] [key] value; nulls print as
// "null". Without --group the consumer is standalone (no offsets committed), as Kafka's tool
// does with a random group. Ends after --max-messages, --timeout-ms of silence, or SIGINT/SIGTERM,
// then prints "Processed a total of N messages" to stderr.
import { parseArgs } from 'node:util';
import {
  Consumer,
  type ConsumerOptions,
  type ConsumerRecord,
  consumerOptionsFromProperties,
} from '../../client/consumer/index.js';
import {
  type CommandIO,
  CommandUsageError,
  normalizeArgs,
  parseKeyValues,
  processIO,
  runCommand,
  topicUnlessHelp,
} from './produce.js';

export const CONSUME_USAGE = `Usage: samsa consume --topic TOPIC [options]

  --bootstrap-server HOST:PORT   broker to connect to (default 127.0.0.1:9092)
  --group GROUP                  consume as a member of GROUP (offsets are committed)
  --from-beginning               start at the earliest offset when there is no committed one
  --partition P                  read only this partition (no group)
  --offset O|earliest|latest     with --partition: where to start (default latest)
  --max-messages N               stop after N records
  --timeout-ms MS                stop after MS without a record
  --isolation-level LEVEL        read_committed (default) or read_uncommitted
  --property K=V ...             print.key, print.headers, print.timestamp, print.partition,
                                 print.offset, key.separator, headers.separator
  --print-key --print-headers --print-timestamp   shorthands for the print.* properties
  --consumer-props K=V ...       consumer properties (max.poll.records, fetch.max.wait.ms, ...)
`;

export interface PrintOptions {
  key: boolean;
  headers: boolean;
  timestamp: boolean;
  partition: boolean;
  offset: boolean;
  separator: string;
  headersSeparator: string;
}

/** One output line for a record (exported for tests). */
export function formatRecord(r: ConsumerRecord, p: PrintOptions): string {
  const fields: string[] = [];
  if (p.timestamp) fields.push(`${r.timestampType}:${r.timestamp}`);
  if (p.partition) fields.push(`Partition:${r.partition}`);
  if (p.offset) fields.push(`Offset:${r.offset}`);
  if (p.headers) {
    fields.push(
      r.headers.length === 0
        ? 'NO_HEADERS'
        : r.headers
            .map((h) => `${h.key}:${h.value === null ? 'null' : h.value.toString()}`)
            .join(p.headersSeparator),
    );
  }
  if (p.key) fields.push(r.key === null ? 'null' : r.key.toString());
  fields.push(r.value === null ? 'null' : r.value.toString());
  return `${fields.join(p.separator)}\n`;
}

function bool(v: string | undefined, flag: boolean | undefined): boolean {
  return flag === true || v === 'true';
}

export async function runConsume(argv: readonly string[], io: CommandIO = processIO): Promise<number> {
  return runCommand(io, CONSUME_USAGE, async () => {
    const { values } = parseArgs({
      args: normalizeArgs(argv, ['property', 'consumer-props']),
      options: {
        topic: { type: 'string' },
        'bootstrap-server': { type: 'string' },
        group: { type: 'string' },
        'from-beginning': { type: 'boolean' },
        partition: { type: 'string' },
        offset: { type: 'string' },
        'max-messages': { type: 'string' },
        'timeout-ms': { type: 'string' },
        'isolation-level': { type: 'string' },
        property: { type: 'string', multiple: true },
        'print-key': { type: 'boolean' },
        'print-headers': { type: 'boolean' },
        'print-timestamp': { type: 'boolean' },
        'consumer-props': { type: 'string', multiple: true },
        help: { type: 'boolean', short: 'h' },
      },
    });
    const topic = topicUnlessHelp(io, CONSUME_USAGE, values);
    if (topic === null) return 0;
    if (values.partition !== undefined && values.group !== undefined)
      throw new CommandUsageError('--partition and --group are exclusive');
    if (values.offset !== undefined && values.partition === undefined)
      throw new CommandUsageError('--offset needs --partition');
    const props = parseKeyValues(values.property ?? [], '--property');
    const print: PrintOptions = {
      key: bool(props['print.key'], values['print-key']),
      headers: bool(props['print.headers'], values['print-headers']),
      timestamp: bool(props['print.timestamp'], values['print-timestamp']),
      partition: bool(props['print.partition'], false),
      offset: bool(props['print.offset'], false),
      separator: props['key.separator'] ?? '\t',
      headersSeparator: props['headers.separator'] ?? ',',
    };
    const max =
      values['max-messages'] === undefined ? Number.POSITIVE_INFINITY : Number(values['max-messages']);
    if (!(max > 0)) throw new CommandUsageError('--max-messages must be a positive integer');
    const idle = values['timeout-ms'] === undefined ? Number.POSITIVE_INFINITY : Number(values['timeout-ms']);
    if (!(idle >= 0)) throw new CommandUsageError('--timeout-ms must be ≥ 0');
    const opts: ConsumerOptions = {
      ...consumerOptionsFromProperties(parseKeyValues(values['consumer-props'] ?? [], '--consumer-props')),
      bootstrapServers: values['bootstrap-server'] ?? '127.0.0.1:9092',
      clientId: 'samsa-console-consumer',
      autoOffsetReset: values['from-beginning'] ? 'earliest' : 'latest',
      ...(values['isolation-level']
        ? { isolationLevel: values['isolation-level'] as ConsumerOptions['isolationLevel'] }
        : {}),
      ...(values.group ? { groupId: values.group, enableAutoCommit: false } : {}),
    };
    const consumer = new Consumer(opts);
    const stop = () => consumer.wakeup();
    process.once('SIGINT', stop);
    process.once('SIGTERM', stop);
    let count = 0;
    const printed = new Map<string, { topic: string; partition: number; offset: bigint }>();
    try {
      if (values.group) consumer.subscribe([topic]);
      else
        await assignStandalone(
          consumer,
          topic,
          values.partition,
          values.offset,
          values['from-beginning'] === true,
        );
      let last = Date.now();
      while (count < max && Date.now() - last <= idle) {
        let records: ConsumerRecord[];
        try {
          records = await consumer.poll(Math.min(500, Number.isFinite(idle) ? idle + 1 : 500));
        } catch (err) {
          if ((err as { code?: string }).code === 'WAKEUP') break;
          throw err;
        }
        if (records.length > 0) last = Date.now();
        for (const r of records) {
          if (count >= max) break;
          io.stdout.write(formatRecord(r, print));
          printed.set(`${r.topic}\u0000${r.partition}`, {
            topic: r.topic,
            partition: r.partition,
            offset: r.offset + 1n,
          });
          count++;
        }
        if (values.group && printed.size > 0)
          void consumer.commitAsync([...printed.values()]).catch(() => {});
      }
      // Commit exactly what was printed (a poll may return more than --max-messages).
      if (values.group && printed.size > 0) await consumer.commitSync([...printed.values()]).catch(() => {});
    } finally {
      process.off('SIGINT', stop);
      process.off('SIGTERM', stop);
      await consumer.close();
      io.stderr.write(`Processed a total of ${count} messages\n`);
    }
    return 0;
  });
}

async function assignStandalone(
  consumer: Consumer,
  topic: string,
  partition: string | undefined,
  offset: string | undefined,
  fromBeginning: boolean,
): Promise<void> {
  if (partition !== undefined) {
    const p = Number(partition);
    if (!Number.isInteger(p) || p < 0) throw new CommandUsageError('--partition must be a partition number');
    const tp = { topic, partition: p };
    consumer.assign([tp]);
    const o = offset ?? (fromBeginning ? 'earliest' : 'latest');
    if (o === 'earliest') consumer.seekToBeginning([tp]);
    else if (o === 'latest') consumer.seekToEnd([tp]);
    else if (/^\d+$/.test(o)) consumer.seek(tp, BigInt(o));
    else throw new CommandUsageError('--offset must be a number, earliest or latest');
    return;
  }
  consumer.assign((await consumer.partitionsFor(topic)).map((p) => ({ topic, partition: p.partition })));
}
