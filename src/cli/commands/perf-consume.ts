// `samsa perf consume`: Kafka's kafka-consumer-perf-test with its options and output.
//   samsa perf consume --topic T --messages N [--group G] [--bootstrap-server H:P] [--fetch-size B]
//                      [--from-latest] [--timeout MS] [--show-detailed-stats] [--reporting-interval MS]
//                      [--hide-header] [--consumer-props k=v ...]
// Prints Kafka's header and one summary row:
//   start.time, end.time, data.consumed.in.MB, MB.sec, data.consumed.in.nMsg, nMsg.sec,
//   rebalance.time.ms, fetch.time.ms, fetch.MB.sec, fetch.nMsg.sec
// Bytes count keys plus values; "rebalance time" is the time until partitions were first
// assigned, and fetch time the rest, as in Kafka's tool.
import { Consumer, type ConsumerOptions } from '../../client/consumer/index.js';
import { clientOptionsFrom, readPropertiesFile } from '../client-props.js';
import { ensureReachable } from '../reach.js';
import {
  type CommandIO,
  CommandUsageError,
  parseCommand,
  parseKeyValues,
  processIO,
  runCommand,
  topicUnlessHelp,
} from './common.js';

export const PERF_CONSUME_USAGE = `Usage: samsa perf consume --topic TOPIC --messages N [options]

  --bootstrap-server HOST:PORT   broker to connect to (default 127.0.0.1:9092)
  --group GROUP                  consumer group (default perf-consumer-<random>)
  --fetch-size BYTES             max.partition.fetch.bytes (default 1048576)
  --from-latest                  start at the latest offset when the group has none
  --timeout MS                   give up after MS without records (default 10000)
  --show-detailed-stats          print a row every --reporting-interval ms (default 5000)
  --hide-header                  do not print the header
  --consumer-props K=V ...       consumer properties (max.poll.records, fetch.max.wait.ms, ...)
  --consumer.config FILE         consumer properties from a file (--consumer-props win)
`;

const HEADER_TAIL = ', rebalance.time.ms, fetch.time.ms, fetch.MB.sec, fetch.nMsg.sec';
export const PERF_CONSUME_HEADER = `start.time, end.time, data.consumed.in.MB, MB.sec, data.consumed.in.nMsg, nMsg.sec${HEADER_TAIL}\n`;
const DETAILED_HEADER = `time, threadId, data.consumed.in.MB, MB.sec, data.consumed.in.nMsg, nMsg.sec${HEADER_TAIL}\n`;
const MB = 1024 * 1024;

/** Java's SimpleDateFormat "yyyy-MM-dd HH:mm:ss:SSS" in local time. */
export function formatPerfDate(ms: number): string {
  const d = new Date(ms);
  const p = (n: number, w = 2) => String(n).padStart(w, '0');
  return `${d.getFullYear()}-${p(d.getMonth() + 1)}-${p(d.getDate())} ${p(d.getHours())}:${p(d.getMinutes())}:${p(d.getSeconds())}:${p(d.getMilliseconds(), 3)}`;
}

export interface PerfConsumeResult {
  startMs: number;
  endMs: number;
  messages: number;
  bytes: number;
  rebalanceMs: number;
}

/** Kafka's summary row. */
export function perfConsumeRow(r: PerfConsumeResult): string {
  const elapsedSec = (r.endMs - r.startMs) / 1000;
  const fetchMs = r.endMs - r.startMs - r.rebalanceMs;
  const mb = r.bytes / MB;
  return (
    `${formatPerfDate(r.startMs)}, ${formatPerfDate(r.endMs)}, ${mb.toFixed(4)}, ${(mb / elapsedSec).toFixed(4)}, ` +
    `${r.messages}, ${(r.messages / elapsedSec).toFixed(4)}, ${r.rebalanceMs}, ${fetchMs}, ` +
    `${(mb / (fetchMs / 1000)).toFixed(4)}, ${(r.messages / (fetchMs / 1000)).toFixed(4)}\n`
  );
}

/** The consume loop (exported for the benchmark). */
export async function perfConsume(
  consumer: Consumer,
  topic: string,
  messages: number,
  timeoutMs: number,
  out: (s: string) => void,
  detailedIntervalMs: number | null,
): Promise<PerfConsumeResult> {
  const startMs = Date.now();
  let rebalanceMs = 0;
  let joinStart = startMs;
  let owned = 0;
  consumer.subscribe([topic], {
    onPartitionsRevoked: (tps) => {
      owned -= tps.length;
      if (owned === 0) joinStart = Date.now();
    },
    onPartitionsAssigned: (tps) => {
      if (owned === 0 && tps.length > 0) rebalanceMs += Date.now() - joinStart;
      owned += tps.length;
    },
  });
  let count = 0;
  let bytes = 0;
  let lastConsumed = Date.now();
  let lastReport = lastConsumed;
  let lastCount = 0;
  let lastBytes = 0;
  let now = lastConsumed;
  while (count < messages && now - lastConsumed <= timeoutMs) {
    const records = await consumer.poll(100);
    now = Date.now();
    if (records.length > 0) lastConsumed = now;
    for (const r of records) {
      count++;
      if (r.key !== null) bytes += r.key.length;
      if (r.value !== null) bytes += r.value.length;
    }
    if (detailedIntervalMs !== null && now - lastReport >= detailedIntervalMs) {
      const elapsed = now - lastReport;
      out(
        `${formatPerfDate(now)}, 0, ${(bytes / MB).toFixed(4)}, ${((1000 * (bytes - lastBytes)) / MB / elapsed).toFixed(4)}, ${count}, ` +
          `${((1000 * (count - lastCount)) / elapsed).toFixed(4)}, 0, ${elapsed}, ${((1000 * (bytes - lastBytes)) / MB / elapsed).toFixed(4)}, ` +
          `${((1000 * (count - lastCount)) / elapsed).toFixed(4)}\n`,
      );
      lastReport = now;
      lastCount = count;
      lastBytes = bytes;
    }
  }
  if (count < messages) {
    out(
      `WARNING: Exiting before consuming the expected number of messages: timeout (${timeoutMs} ms) exceeded. You can use the --timeout option to increase the timeout.\n`,
    );
  }
  return { startMs, endMs: Date.now(), messages: count, bytes, rebalanceMs };
}

export async function runPerfConsume(argv: readonly string[], io: CommandIO = processIO): Promise<number> {
  return runCommand(io, PERF_CONSUME_USAGE, async () => {
    const { values } = parseCommand(
      {
        args: [...argv],
        options: {
          topic: { type: 'string' },
          messages: { type: 'string' },
          group: { type: 'string' },
          'bootstrap-server': { type: 'string' },
          'fetch-size': { type: 'string' },
          'from-latest': { type: 'boolean' },
          timeout: { type: 'string' },
          'show-detailed-stats': { type: 'boolean' },
          'reporting-interval': { type: 'string' },
          'hide-header': { type: 'boolean' },
          'consumer-props': { type: 'string', multiple: true },
          'consumer.config': { type: 'string' },
          help: { type: 'boolean', short: 'h' },
        },
      },
      ['consumer-props'],
    );
    const topic = topicUnlessHelp(io, PERF_CONSUME_USAGE, values);
    if (topic === null) return 0;
    const messages = Number(values.messages);
    if (!Number.isInteger(messages) || messages < 1)
      throw new CommandUsageError('--messages must be a positive integer');
    const timeout = Number(values.timeout ?? 10000);
    const interval = Number(values['reporting-interval'] ?? 5000);
    if (!(timeout >= 0) || !(interval > 0))
      throw new CommandUsageError('--timeout and --reporting-interval must be positive numbers');
    const props = {
      ...(values['consumer.config']
        ? readPropertiesFile(values['consumer.config'], '--consumer.config')
        : {}),
      ...parseKeyValues(values['consumer-props'] ?? [], '--consumer-props'),
    };
    const fromProps = clientOptionsFrom('consumer', props, (l) => io.stderr.write(`${l}\n`));
    const opts: ConsumerOptions = {
      ...(fromProps as Partial<ConsumerOptions>),
      bootstrapServers:
        values['bootstrap-server'] ?? (fromProps.bootstrapServers as string | undefined) ?? '127.0.0.1:9092',
      clientId: 'samsa-perf-consumer',
      groupId: values.group ?? `perf-consumer-${Math.floor(Math.random() * 100000)}`,
      autoOffsetReset: values['from-latest'] ? 'latest' : 'earliest',
      ...(values['fetch-size'] ? { maxPartitionFetchBytes: Number(values['fetch-size']) } : {}),
    };
    await ensureReachable(String(opts.bootstrapServers), io);
    const detailed = values['show-detailed-stats'] === true;
    if (!values['hide-header']) io.stdout.write(detailed ? DETAILED_HEADER : PERF_CONSUME_HEADER);
    const consumer = new Consumer(opts);
    try {
      const result = await perfConsume(
        consumer,
        topic,
        messages,
        timeout,
        (s) => io.stdout.write(s),
        detailed ? interval : null,
      );
      if (!detailed) io.stdout.write(perfConsumeRow(result));
    } finally {
      await consumer.close();
    }
    return 0;
  });
}
