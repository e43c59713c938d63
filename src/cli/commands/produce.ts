// `samsa produce`: one record per line of stdin, like kafka-console-producer, with its flags and
// its line-reader properties:
//   samsa produce --topic T [--bootstrap-server H:P] [--property parse.key=true --property key.separator=:]
//                 [--producer-property k=v ...] [--producer.config FILE] [--header K=V ...] [--partition N]
// Reader properties (Kafka's LineMessageReader): parse.key, key.separator (TAB), parse.headers,
// headers.delimiter (TAB), headers.separator (,), headers.key.separator (:), ignore.error,
// null.marker. A line without the expected separator is an error unless ignore.error=true.
// `--key-separator SEP` is shorthand for parse.key=true key.separator=SEP.
import { createInterface } from 'node:readline';
import { Producer } from '../../client/producer/producer.js';
import type { ProducerOptions } from '../../client/producer/producer-config.js';
import { clientOptionsFrom, readPropertiesFile } from '../client-props.js';
import { ensureReachable } from '../reach.js';
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

// The shared helpers used to live here; other commands may still import them from this module.
export {
  type CommandIO,
  CommandUsageError,
  normalizeArgs,
  parseKeyValues,
  processIO,
  runCommand,
  topicUnlessHelp,
} from './common.js';

/**
 * Producer options from Kafka properties (file, then --producer-property/--producer-props, then
 * flags) and --bootstrap-server, which wins. Kafka keys samsa ignores are reported to `warn`.
 */
export function producerOptionsFrom(
  bootstrap: string | undefined,
  props: Readonly<Record<string, string>>,
  warn: (line: string) => void = () => {},
): ProducerOptions {
  const o = clientOptionsFrom('producer', props, warn) as unknown as ProducerOptions;
  o.bootstrapServers = (bootstrap ??
    (o.bootstrapServers as string | undefined) ??
    '127.0.0.1:9092') as string;
  o.clientId ??= 'samsa-cli';
  return o;
}

/** How lines become records (Kafka's LineMessageReader properties). */
export interface LineReaderOptions {
  parseKey: boolean;
  keySeparator: string;
  parseHeaders: boolean;
  headersDelimiter: string;
  headersSeparator: string;
  headersKeySeparator: string;
  ignoreError: boolean;
  nullMarker: string | null;
}

const READER_KEYS = [
  'parse.key',
  'key.separator',
  'parse.headers',
  'headers.delimiter',
  'headers.separator',
  'headers.key.separator',
  'ignore.error',
  'null.marker',
];

/** Reader options from `--property` values; unknown keys are reported to `warn`. */
export function lineReaderOptions(
  props: Readonly<Record<string, string>>,
  warn: (line: string) => void = () => {},
): LineReaderOptions {
  for (const k of Object.keys(props)) {
    if (!READER_KEYS.includes(k))
      warn(`samsa: ignoring unknown --property ${k}${didYouMean(k, READER_KEYS)}`);
  }
  const bool = (k: string) => (props[k] ?? 'false').trim().toLowerCase() === 'true';
  const o: LineReaderOptions = {
    parseKey: bool('parse.key'),
    keySeparator: props['key.separator'] ?? '\t',
    parseHeaders: bool('parse.headers'),
    headersDelimiter: props['headers.delimiter'] ?? '\t',
    headersSeparator: props['headers.separator'] ?? ',',
    headersKeySeparator: props['headers.key.separator'] ?? ':',
    ignoreError: bool('ignore.error'),
    nullMarker: props['null.marker'] ?? null,
  };
  for (const [name, v] of [
    ['key.separator', o.keySeparator],
    ['headers.delimiter', o.headersDelimiter],
    ['headers.separator', o.headersSeparator],
    ['headers.key.separator', o.headersKeySeparator],
  ] as const) {
    if (v === '') throw new CommandUsageError(`--property ${name} must not be empty`);
    if (o.nullMarker !== null && v === o.nullMarker)
      throw new CommandUsageError(`null.marker and ${name} must differ`);
  }
  if (o.parseHeaders && o.headersSeparator === o.headersKeySeparator)
    throw new CommandUsageError('headers.separator and headers.key.separator must differ');
  return o;
}

export interface ParsedLine {
  key: string | null;
  value: string | null;
  headers: [string, string | null][];
}

/** One line → key, value and headers, as Kafka's LineMessageReader splits it. */
export function parseLine(line: string, lineNo: number, o: LineReaderOptions): ParsedLine {
  const cut = (enabled: boolean, from: number, sep: string, what: string): string | null => {
    if (!enabled) return null;
    const i = line.indexOf(sep, from);
    if (i < 0) {
      if (o.ignoreError) return null;
      throw new CommandUsageError(`no ${what} found on line ${lineNo}: ${JSON.stringify(line)}`);
    }
    return line.slice(from, i);
  };
  const headerText = cut(o.parseHeaders, 0, o.headersDelimiter, 'headers delimiter');
  const headerEnd = headerText === null ? 0 : headerText.length + o.headersDelimiter.length;
  const key = cut(o.parseKey, headerEnd, o.keySeparator, 'key separator');
  const keyEnd = key === null ? 0 : key.length + o.keySeparator.length;
  const value = line.slice(headerEnd + keyEnd);
  const headers: [string, string | null][] = [];
  if (headerText !== null && headerText !== o.nullMarker) {
    for (const pair of headerText.split(o.headersSeparator)) {
      const i = pair.indexOf(o.headersKeySeparator);
      if (i < 0) {
        if (!o.ignoreError)
          throw new CommandUsageError(
            `no header key separator found in ${JSON.stringify(pair)} on line ${lineNo}`,
          );
        headers.push([pair, null]);
        continue;
      }
      const hk = pair.slice(0, i);
      if (hk === o.nullMarker)
        throw new CommandUsageError(
          `header keys must not equal the null marker ${JSON.stringify(o.nullMarker)}`,
        );
      const hv = pair.slice(i + o.headersKeySeparator.length);
      headers.push([hk, hv === o.nullMarker ? null : hv]);
    }
  }
  return {
    key: key === null || key === o.nullMarker ? null : key,
    value: value === o.nullMarker ? null : value,
    headers,
  };
}

export const PRODUCE_USAGE = `Usage: samsa produce --topic TOPIC [options]   (one record per line of stdin)

  --bootstrap-server HOST:PORT   broker to connect to (default 127.0.0.1:9092; alias --broker-list)
  --property K=V ...             line reader: parse.key=true, key.separator=SEP (TAB), parse.headers=true,
                                 headers.delimiter, headers.separator, headers.key.separator,
                                 ignore.error=true, null.marker=TEXT
  --reader-config FILE           line reader properties from a file
  --key-separator SEP            shorthand for --property parse.key=true --property key.separator=SEP
  --header KEY=VALUE             add a header to every record (repeatable)
  --partition N                  write to this partition (default: the partitioner decides)
  --producer-property K=V ...    producer properties (acks=all, linger.ms=5, compression.type=lz4, ...);
                                 also --producer-props
  --producer.config FILE         producer properties from a file (flags win)
  --request-required-acks ACKS   acks (0, 1, -1/all)
  --compression-codec CODEC      none, gzip, snappy, lz4, zstd
  --batch-size N --timeout LINGER_MS --request-timeout-ms MS --retry-backoff-ms MS
  --message-send-max-retries N --max-block-ms MS --max-memory-bytes N --metadata-expiry-ms MS
  --sync                         wait for each record's acknowledgement before the next
`;

/** Console-producer flags that are plain producer properties. */
const FLAG_PROPS: Record<string, string> = {
  'request-required-acks': 'acks',
  'compression-codec': 'compression.type',
  'batch-size': 'batch.size',
  'max-partition-memory-bytes': 'batch.size',
  timeout: 'linger.ms',
  'request-timeout-ms': 'request.timeout.ms',
  'retry-backoff-ms': 'retry.backoff.ms',
  'message-send-max-retries': 'retries',
  'max-block-ms': 'max.block.ms',
  'max-memory-bytes': 'buffer.memory',
  'metadata-expiry-ms': 'metadata.max.age.ms',
  'socket-buffer-size': 'send.buffer.bytes',
};

const LINE_READERS = new Set(['kafka.tools.LineMessageReader', 'org.apache.kafka.tools.LineMessageReader']);

export async function runProduce(argv: readonly string[], io: CommandIO = processIO): Promise<number> {
  return runCommand(io, PRODUCE_USAGE, async () => {
    const { values } = parseCommand(
      {
        args: [...argv],
        options: {
          topic: { type: 'string' },
          'bootstrap-server': { type: 'string' },
          'broker-list': { type: 'string' },
          'key-separator': { type: 'string' },
          header: { type: 'string', multiple: true },
          partition: { type: 'string' },
          property: { type: 'string', multiple: true },
          'reader-config': { type: 'string' },
          'line-reader': { type: 'string' },
          'producer-props': { type: 'string', multiple: true },
          'producer-property': { type: 'string', multiple: true },
          'producer.config': { type: 'string' },
          'request-required-acks': { type: 'string' },
          'compression-codec': { type: 'string' },
          'batch-size': { type: 'string' },
          'max-partition-memory-bytes': { type: 'string' },
          timeout: { type: 'string' },
          'request-timeout-ms': { type: 'string' },
          'retry-backoff-ms': { type: 'string' },
          'message-send-max-retries': { type: 'string' },
          'max-block-ms': { type: 'string' },
          'max-memory-bytes': { type: 'string' },
          'metadata-expiry-ms': { type: 'string' },
          'socket-buffer-size': { type: 'string' },
          sync: { type: 'boolean' },
          help: { type: 'boolean', short: 'h' },
        },
      },
      ['producer-props', 'producer-property', 'property'],
    );
    const topic = topicUnlessHelp(io, PRODUCE_USAGE, values);
    if (topic === null) return 0;
    const warn = (line: string) => io.stderr.write(`${line}\n`);
    const lineReader = values['line-reader'];
    if (lineReader !== undefined && !LINE_READERS.has(lineReader))
      throw new CommandUsageError(`--line-reader ${lineReader} is not supported (only LineMessageReader)`);
    const readerProps = {
      ...(values['reader-config'] ? readPropertiesFile(values['reader-config'], '--reader-config') : {}),
      ...parseKeyValues(values.property ?? [], '--property'),
    };
    const sep = values['key-separator'];
    if (sep !== undefined) {
      readerProps['parse.key'] = 'true';
      readerProps['key.separator'] = sep;
    }
    const reader = lineReaderOptions(readerProps, warn);
    const headers = Object.entries(parseKeyValues(values.header ?? [], '--header'));
    const partition = values.partition === undefined ? undefined : Number(values.partition);
    if (partition !== undefined && (!Number.isInteger(partition) || partition < 0)) {
      throw new CommandUsageError('--partition must be a non-negative integer');
    }
    const props: Record<string, string> = {
      ...(values['producer.config']
        ? readPropertiesFile(values['producer.config'], '--producer.config')
        : {}),
      ...parseKeyValues(values['producer-props'] ?? [], '--producer-props'),
      ...parseKeyValues(values['producer-property'] ?? [], '--producer-property'),
    };
    for (const [flag, key] of Object.entries(FLAG_PROPS)) {
      const v = values[flag as keyof typeof values];
      if (typeof v === 'string') props[key] = v;
    }
    if (values.sync) props['linger.ms'] ??= '0';
    const bootstrap = values['bootstrap-server'] ?? values['broker-list'];
    const options = producerOptionsFrom(bootstrap, props, warn);
    await ensureReachable(String(options.bootstrapServers), io);
    const producer = new Producer(options);
    let failed: Error | null = null;
    let lineNo = 0;
    try {
      const rl = createInterface({ input: io.stdin, crlfDelay: Number.POSITIVE_INFINITY });
      for await (const line of rl) {
        lineNo++;
        const r = parseLine(line, lineNo, reader);
        const all = [...headers, ...r.headers];
        const record = {
          topic,
          key: r.key,
          value: r.value,
          partition,
          headers: all.length > 0 ? all : undefined,
        };
        if (values.sync) {
          await producer.send(record).catch((err: Error) => {
            failed ??= err;
          });
        } else {
          const accepted = producer.send(record, (err) => {
            if (err !== null) failed ??= err;
          });
          if (!accepted) await producer.bufferAvailable();
        }
        if (failed !== null) break;
      }
      await producer.flush();
    } finally {
      await producer.close();
    }
    if (failed !== null) throw failed;
    return 0;
  });
}
