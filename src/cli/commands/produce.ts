// `samsa produce`: one record per line of stdin, like kafka-console-producer.
//   samsa produce --topic T [--bootstrap-server H:P] [--key-separator SEP] [--header K=V ...]
//                 [--partition N] [--producer-props k=v ...]
// With --key-separator, the text before the first separator is the key (a line without it is
// an error, as in Kafka's console producer). Also home of the small helpers the client
// commands share (property parsing, usage errors, output streams).
import { createInterface } from 'node:readline';
import { parseArgs } from 'node:util';
import { fromKafkaProperties } from '../../client/config.js';
import { Producer } from '../../client/producer/producer.js';
import type { ProducerOptions } from '../../client/producer/producer-config.js';

export interface CommandIO {
  stdin: NodeJS.ReadableStream;
  stdout: NodeJS.WritableStream;
  stderr: NodeJS.WritableStream;
}

export const processIO: CommandIO = { stdin: process.stdin, stdout: process.stdout, stderr: process.stderr };

export class CommandUsageError extends Error {}

/** Parses `k=v` words (the value may contain '='). */
export function parseKeyValues(words: readonly string[], what: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const w of words) {
    const i = w.indexOf('=');
    if (i <= 0) throw new CommandUsageError(`${what} expects key=value, got "${w}"`);
    out[w.slice(0, i)] = w.slice(i + 1);
  }
  return out;
}

/** Producer options from --bootstrap-server and Kafka-style --producer-props. */
export function producerOptionsFrom(
  bootstrap: string | undefined,
  props: readonly string[],
): ProducerOptions {
  const kv = parseKeyValues(props, '--producer-props');
  const o = fromKafkaProperties(kv) as unknown as ProducerOptions;
  o.bootstrapServers = (bootstrap ??
    (o.bootstrapServers as string | undefined) ??
    '127.0.0.1:9092') as string;
  o.clientId ??= 'samsa-cli';
  return o;
}

/**
 * Rewrites Kafka-tool argument habits into what node:util parseArgs accepts: a multi-valued
 * option followed by several words (`--producer-props a=1 b=2`) becomes repeated options, and
 * a negative number after an option (`--throughput -1`) is attached with '='.
 */
export function normalizeArgs(argv: readonly string[], multi: readonly string[]): string[] {
  const out: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]!;
    const name = a.startsWith('--') ? a.slice(2) : null;
    if (name !== null && multi.includes(name)) {
      while (i + 1 < argv.length && !argv[i + 1]!.startsWith('--')) out.push(a, argv[++i]!);
      continue;
    }
    if (name !== null && !a.includes('=') && i + 1 < argv.length && /^-\d+(\.\d+)?$/.test(argv[i + 1]!)) {
      out.push(`${a}=${argv[++i]!}`);
      continue;
    }
    out.push(a);
  }
  return out;
}

/** Runs a command body, turning usage errors into a message + exit code 1. */
export async function runCommand(io: CommandIO, usage: string, body: () => Promise<number>): Promise<number> {
  try {
    return await body();
  } catch (err) {
    const e = err as Error & { code?: string };
    if (err instanceof CommandUsageError || (e.code ?? '').startsWith('ERR_PARSE_ARGS')) {
      io.stderr.write(`samsa: ${e.message}\n\n${usage}`);
      return 1;
    }
    io.stderr.write(`samsa: ${e.name === 'Error' ? '' : `${e.name}: `}${e.message}\n`);
    return 1;
  }
}

/** `--help` prints the usage and gives null (exit 0); otherwise `--topic` is required. */
export function topicUnlessHelp(
  io: CommandIO,
  usage: string,
  values: { help?: boolean | undefined; topic?: string | undefined },
): string | null {
  if (values.help) {
    io.stdout.write(usage);
    return null;
  }
  if (values.topic === undefined) throw new CommandUsageError('--topic is required');
  return values.topic;
}

export const PRODUCE_USAGE = `Usage: samsa produce --topic TOPIC [options]   (one record per line of stdin)

  --bootstrap-server HOST:PORT   broker to connect to (default 127.0.0.1:9092)
  --key-separator SEP            split each line into key SEP value
  --header KEY=VALUE             add a header to every record (repeatable)
  --partition N                  write to this partition (default: the partitioner decides)
  --producer-props K=V ...       producer properties (acks=all, linger.ms=5, compression.type=lz4, ...)
`;

export async function runProduce(argv: readonly string[], io: CommandIO = processIO): Promise<number> {
  return runCommand(io, PRODUCE_USAGE, async () => {
    const { values } = parseArgs({
      args: normalizeArgs(argv, ['producer-props']),
      options: {
        topic: { type: 'string' },
        'bootstrap-server': { type: 'string' },
        'key-separator': { type: 'string' },
        header: { type: 'string', multiple: true },
        partition: { type: 'string' },
        'producer-props': { type: 'string', multiple: true },
        help: { type: 'boolean', short: 'h' },
      },
      allowPositionals: true,
    });
    const topic = topicUnlessHelp(io, PRODUCE_USAGE, values);
    if (topic === null) return 0;
    const headers = Object.entries(parseKeyValues(values.header ?? [], '--header'));
    const partition = values.partition === undefined ? undefined : Number(values.partition);
    if (partition !== undefined && (!Number.isInteger(partition) || partition < 0)) {
      throw new CommandUsageError('--partition must be a non-negative integer');
    }
    const sep = values['key-separator'];
    if (sep === '') throw new CommandUsageError('--key-separator must not be empty');
    const producer = new Producer(
      producerOptionsFrom(values['bootstrap-server'], values['producer-props'] ?? []),
    );
    let failed: Error | null = null;
    let lineNo = 0;
    try {
      const rl = createInterface({ input: io.stdin, crlfDelay: Number.POSITIVE_INFINITY });
      for await (const line of rl) {
        lineNo++;
        let key: string | null = null;
        let value = line;
        if (sep !== undefined) {
          const i = line.indexOf(sep);
          if (i < 0)
            throw new CommandUsageError(`line ${lineNo} has no key separator ${JSON.stringify(sep)}`);
          key = line.slice(0, i);
          value = line.slice(i + sep.length);
        }
        const accepted = producer.send(
          { topic, key, value, partition, headers: headers.length > 0 ? headers : undefined },
          (err) => {
            if (err !== null) failed ??= err;
          },
        );
        if (!accepted) await producer.bufferAvailable();
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
