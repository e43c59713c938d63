// `samsa consume`: print records to stdout, like kafka-console-consumer, with its flags:
//   samsa consume --topic T [--bootstrap-server H:P] [--group G] [--from-beginning]
//                 [--partition P [--offset O|earliest|latest]] [--from-datetime ISO | --from-offset O]
//                 [--max-messages N] [--timeout-ms MS]
//                 [--property print.key=true ...] [--formatter-config FILE]
//                 [--consumer-property k=v ...] [--consumer.config FILE]
// Output per record, fields separated by key.separator (default TAB), in Kafka's order (its
// DefaultMessageFormatter): [CreateTime:ts] [Partition:p] [Offset:o] [h1:v1,h2:v2 | NO_HEADERS]
// [key] [value], then line.separator; nulls print as null.literal ("null"). Without --group the
// consumer is standalone (no offsets committed), as Kafka's tool does with a random group. Ends
// after --max-messages, --timeout-ms of silence, or SIGINT/SIGTERM, then prints "Processed a
// total of N messages" to stderr. --from-datetime / --from-offset (Samsa's) replay: every
// partition this run is given starts at its first record at or after the time (its end if none),
// or at the offset, through Consumer.replayFrom — with --group once per partition per run, so a
// rebalance does not restart it.
import {
  Consumer,
  type ConsumerOptions,
  type ConsumerRecord,
  type ReplayStart,
  type TopicPartition,
} from '../../client/consumer/index.js';
import { clientOptionsFrom, readPropertiesFile } from '../client-props.js';
import { ensureReachable, REACH_TIMEOUT_MS } from '../reach.js';
import { didYouMean } from '../suggest.js';
import {
  type CommandIO,
  CommandUsageError,
  parseCommand,
  parseKeyValues,
  processIO,
  runCommand,
  topicUnlessHelp,
} from './common.js';
import { parseDateTime } from './reset-args.js';

export const CONSUME_USAGE = `Usage: samsa consume --topic TOPIC [options]

  --bootstrap-server HOST:PORT   broker to connect to (default 127.0.0.1:9092)
  --group GROUP                  consume as a member of GROUP (offsets are committed)
  --from-beginning               start at the earliest offset when there is no committed one
  --partition P                  read only this partition (no group)
  --offset O|earliest|latest     with --partition: where to start (default latest)
  --from-datetime ISO            start every partition at its first record at or after this time
                                 (yyyy-MM-ddTHH:mm:ss[.SSS][zone], UTC without a zone; the end
                                 of a partition with none); with --group, once per partition
  --from-offset O                start every partition (or --partition) at offset O
  --max-messages N               stop after N records
  --timeout-ms MS                stop after MS without a record
  --isolation-level LEVEL        read_committed (default) or read_uncommitted
  --property K=V ...             print.key, print.value, print.headers, print.timestamp,
                                 print.partition, print.offset, key.separator, line.separator,
                                 headers.separator, null.literal
  --formatter-config FILE        those properties from a file
  --print-key --print-headers --print-timestamp   shorthands for the print.* properties
  --consumer-property K=V ...    consumer properties (max.poll.records, fetch.max.wait.ms, ...);
                                 also --consumer-props
  --consumer.config FILE         consumer properties from a file (flags win)
  --key-deserializer CLASS --value-deserializer CLASS   accepted; records print as UTF-8
`;

export interface PrintOptions {
  key: boolean;
  value: boolean;
  headers: boolean;
  timestamp: boolean;
  partition: boolean;
  offset: boolean;
  separator: string;
  lineSeparator: string;
  headersSeparator: string;
  nullLiteral: string;
}

/** One output line for a record (exported for tests). */
export function formatRecord(r: ConsumerRecord, p: PrintOptions): string {
  const fields: string[] = [];
  const text = (b: Buffer | null) => (b === null ? p.nullLiteral : b.toString());
  if (p.timestamp) fields.push(r.timestamp < 0 ? 'NO_TIMESTAMP' : `${r.timestampType}:${r.timestamp}`);
  if (p.partition) fields.push(`Partition:${r.partition}`);
  if (p.offset) fields.push(`Offset:${r.offset}`);
  if (p.headers) {
    fields.push(
      r.headers.length === 0
        ? 'NO_HEADERS'
        : r.headers.map((h) => `${h.key}:${text(h.value)}`).join(p.headersSeparator),
    );
  }
  if (p.key) fields.push(text(r.key));
  if (p.value) fields.push(text(r.value));
  return `${fields.join(p.separator)}${p.lineSeparator}`;
}

const FORMATTER_KEYS = [
  'print.key',
  'print.value',
  'print.headers',
  'print.timestamp',
  'print.partition',
  'print.offset',
  'key.separator',
  'line.separator',
  'headers.separator',
  'null.literal',
  'key.deserializer',
  'value.deserializer',
  'headers.deserializer',
];

/** Print options from formatter properties (Kafka's names) and the shorthand flags. */
export function printOptions(
  props: Readonly<Record<string, string>>,
  flags: { key?: boolean; headers?: boolean; timestamp?: boolean },
  warn: (line: string) => void = () => {},
): PrintOptions {
  for (const k of Object.keys(props)) {
    if (!FORMATTER_KEYS.includes(k))
      warn(`samsa: ignoring unknown --property ${k}${didYouMean(k, FORMATTER_KEYS)}`);
    else if (k.endsWith('.deserializer') && !/StringDeserializer$|ByteArrayDeserializer$/.test(props[k]!))
      warn(`samsa: ignoring ${k}=${props[k]}: records are printed as UTF-8 text`);
  }
  const bool = (k: string, dflt: boolean, flag?: boolean) =>
    flag === true || (props[k] === undefined ? dflt : props[k]!.trim().toLowerCase() === 'true');
  return {
    key: bool('print.key', false, flags.key),
    value: bool('print.value', true),
    headers: bool('print.headers', false, flags.headers),
    timestamp: bool('print.timestamp', false, flags.timestamp),
    partition: bool('print.partition', false),
    offset: bool('print.offset', false),
    separator: props['key.separator'] ?? '\t',
    lineSeparator: props['line.separator'] ?? '\n',
    headersSeparator: props['headers.separator'] ?? ',',
    nullLiteral: props['null.literal'] ?? 'null',
  };
}

export async function runConsume(argv: readonly string[], io: CommandIO = processIO): Promise<number> {
  return runCommand(io, CONSUME_USAGE, async () => {
    const { values } = parseCommand(
      {
        args: [...argv],
        options: {
          topic: { type: 'string' },
          'bootstrap-server': { type: 'string' },
          group: { type: 'string' },
          'from-beginning': { type: 'boolean' },
          partition: { type: 'string' },
          offset: { type: 'string' },
          'from-datetime': { type: 'string' },
          'from-offset': { type: 'string' },
          'max-messages': { type: 'string' },
          'timeout-ms': { type: 'string' },
          'isolation-level': { type: 'string' },
          property: { type: 'string', multiple: true },
          'formatter-config': { type: 'string' },
          'print-key': { type: 'boolean' },
          'print-headers': { type: 'boolean' },
          'print-timestamp': { type: 'boolean' },
          'consumer-props': { type: 'string', multiple: true },
          'consumer-property': { type: 'string', multiple: true },
          'consumer.config': { type: 'string' },
          'key-deserializer': { type: 'string' },
          'value-deserializer': { type: 'string' },
          help: { type: 'boolean', short: 'h' },
        },
      },
      ['property', 'consumer-props', 'consumer-property'],
    );
    const topic = topicUnlessHelp(io, CONSUME_USAGE, values);
    if (topic === null) return 0;
    const warn = (line: string) => io.stderr.write(`${line}\n`);
    if (values.partition !== undefined && values.group !== undefined)
      throw new CommandUsageError('--partition and --group are exclusive');
    if (values.offset !== undefined && values.partition === undefined)
      throw new CommandUsageError('--offset needs --partition');
    const replay = replayStart(values);
    const formatterProps = {
      ...(values['formatter-config']
        ? readPropertiesFile(values['formatter-config'], '--formatter-config')
        : {}),
      ...parseKeyValues(values.property ?? [], '--property'),
    };
    if (values['key-deserializer']) formatterProps['key.deserializer'] = values['key-deserializer'];
    if (values['value-deserializer']) formatterProps['value.deserializer'] = values['value-deserializer'];
    const print = printOptions(
      formatterProps,
      { key: values['print-key'], headers: values['print-headers'], timestamp: values['print-timestamp'] },
      warn,
    );
    const max =
      values['max-messages'] === undefined ? Number.POSITIVE_INFINITY : Number(values['max-messages']);
    if (!(max > 0)) throw new CommandUsageError('--max-messages must be a positive integer');
    const idle = values['timeout-ms'] === undefined ? Number.POSITIVE_INFINITY : Number(values['timeout-ms']);
    if (!(idle >= 0)) throw new CommandUsageError('--timeout-ms must be ≥ 0');
    const props = {
      ...(values['consumer.config']
        ? readPropertiesFile(values['consumer.config'], '--consumer.config')
        : {}),
      ...parseKeyValues(values['consumer-props'] ?? [], '--consumer-props'),
      ...parseKeyValues(values['consumer-property'] ?? [], '--consumer-property'),
    };
    const fromProps = clientOptionsFrom('consumer', props, warn) as Partial<ConsumerOptions>;
    const group = values.group ?? fromProps.groupId;
    const opts: ConsumerOptions = {
      clientId: 'samsa-console-consumer',
      ...fromProps,
      bootstrapServers: values['bootstrap-server'] ?? fromProps.bootstrapServers ?? '127.0.0.1:9092',
      autoOffsetReset: values['from-beginning'] ? 'earliest' : (fromProps.autoOffsetReset ?? 'latest'),
      ...(values['isolation-level']
        ? { isolationLevel: values['isolation-level'] as ConsumerOptions['isolationLevel'] }
        : {}),
      ...(group ? { groupId: group, enableAutoCommit: false } : {}),
    };
    if (group !== undefined && values.partition !== undefined)
      throw new CommandUsageError('--partition and group.id are exclusive');
    // With --timeout-ms the whole command ends by then, an unreachable broker included.
    await ensureReachable(String(opts.bootstrapServers), io, Math.min(REACH_TIMEOUT_MS, idle));
    const consumer = new Consumer(opts);
    const stop = () => consumer.wakeup();
    process.once('SIGINT', stop);
    process.once('SIGTERM', stop);
    let count = 0;
    const printed = new Map<string, { topic: string; partition: number; offset: bigint }>();
    try {
      if (group) {
        // Each partition starts at the replay point once in this run, not after every rebalance.
        const started = new Set<string>();
        consumer.subscribe(
          [topic],
          replay === null
            ? undefined
            : {
                onPartitionsAssigned: async (tps) => {
                  const fresh = tps.filter((tp) => !started.has(`${tp.topic}-${tp.partition}`));
                  for (const tp of fresh) started.add(`${tp.topic}-${tp.partition}`);
                  if (fresh.length > 0) await consumer.replayFrom(replay(fresh), { partitions: fresh });
                },
              },
        );
      } else {
        await assignStandalone(
          consumer,
          topic,
          values.partition,
          values.offset,
          values['from-beginning'] === true,
        );
        if (replay !== null) await consumer.replayFrom(replay(consumer.assignment()));
      }
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
        if (group && printed.size > 0) void consumer.commitAsync([...printed.values()]).catch(() => {});
      }
      // Commit exactly what was printed (a poll may return more than --max-messages).
      if (group && printed.size > 0) await consumer.commitSync([...printed.values()]).catch(() => {});
    } finally {
      process.off('SIGINT', stop);
      process.off('SIGTERM', stop);
      await consumer.close();
      io.stderr.write(`Processed a total of ${count} messages\n`);
    }
    return 0;
  });
}

/** --from-datetime / --from-offset as a replay start for given partitions; null if neither. */
function replayStart(values: {
  'from-datetime'?: string;
  'from-offset'?: string;
  offset?: string;
  'from-beginning'?: boolean;
}): ((tps: readonly TopicPartition[]) => ReplayStart) | null {
  const time = values['from-datetime'];
  const offset = values['from-offset'];
  if (time === undefined && offset === undefined) return null;
  if (time !== undefined && offset !== undefined)
    throw new CommandUsageError('--from-datetime and --from-offset are exclusive');
  if (values.offset !== undefined || values['from-beginning'])
    throw new CommandUsageError(
      `--${time !== undefined ? 'from-datetime' : 'from-offset'} replaces --offset and --from-beginning`,
    );
  if (time !== undefined) {
    let ms: number;
    try {
      ms = parseDateTime(time);
    } catch (err) {
      throw new CommandUsageError((err as Error).message.replace('--to-datetime', '--from-datetime'));
    }
    return () => new Date(ms);
  }
  if (!/^\d+$/.test(offset!.trim())) throw new CommandUsageError('--from-offset must be an offset (≥ 0)');
  const o = BigInt(offset!.trim());
  return (tps) => tps.map((tp) => ({ ...tp, offset: o }));
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
