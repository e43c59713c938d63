// `samsa perf produce`: Kafka's kafka-producer-perf-test with the same options and output.
//   samsa perf produce --topic T --num-records N --record-size S --throughput R
//                      [--producer-props k=v ...] [--bootstrap-server H:P]
// Prints a window line every 5 s and Kafka's summary line at the end:
//   N records sent, X records/sec (Y MB/sec), A ms avg latency, M ms max latency,
//   P50 ms 50th, P95 ms 95th, P99 ms 99th, P999 ms 99.9th.
// Like Kafka, the payload is one random uppercase string reused for every record, keys are
// null, latencies are sampled (at most 500,000 kept) and percentiles read from the sorted sample.
import { Producer } from '../../client/producer/producer.js';
import type { RecordMetadata } from '../../client/producer/producer-batch.js';
import { readPropertiesFile } from '../client-props.js';
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
import { producerOptionsFrom } from './produce.js';

/** `samsa perf` without (or with an unknown) subcommand. */
export const PERF_OVERVIEW = `Usage: samsa perf (produce | consume) [options]

  produce   kafka-producer-perf-test: samsa perf produce --help
  consume   kafka-consumer-perf-test: samsa perf consume --help
`;

export const PERF_USAGE = `Usage: samsa perf produce --topic TOPIC --num-records N --record-size BYTES --throughput RATE [options]

  --throughput RATE              records/s to aim for; -1 = as fast as possible
  --producer-props K=V ...       producer properties (bootstrap.servers, acks, linger.ms, batch.size, ...)
  --producer.config FILE         producer properties from a file (--producer-props win)
  --bootstrap-server HOST:PORT   broker to connect to (default 127.0.0.1:9092)
`;

const WINDOW_MS = 5000;

/** Latency statistics, shaped like Kafka's ProducerPerformance.Stats. */
export class PerfStats {
  readonly #start = Date.now();
  readonly #sampling: number;
  readonly #latencies: Int32Array;
  #index = 0;
  #iteration = 0;
  count = 0;
  bytes = 0;
  maxLatency = 0;
  totalLatency = 0;
  #window = { start: Date.now(), count: 0, bytes: 0, max: 0, total: 0 };
  readonly #out: (s: string) => void;

  constructor(numRecords: number, out: (s: string) => void) {
    this.#sampling = Math.floor(numRecords / Math.min(numRecords, 500000));
    this.#latencies = new Int32Array(Math.floor(numRecords / this.#sampling) + 1);
    this.#out = out;
  }

  record(latency: number, bytes: number, now: number): void {
    this.count++;
    this.bytes += bytes;
    this.totalLatency += latency;
    if (latency > this.maxLatency) this.maxLatency = latency;
    const w = this.#window;
    w.count++;
    w.bytes += bytes;
    w.total += latency;
    if (latency > w.max) w.max = latency;
    if (this.#iteration++ % this.#sampling === 0 && this.#index < this.#latencies.length)
      this.#latencies[this.#index++] = latency;
    if (now - w.start >= WINDOW_MS) {
      const elapsed = now - w.start;
      this.#out(
        `${w.count} records sent, ${((1000 * w.count) / elapsed).toFixed(1)} records/sec (${((1000 * w.bytes) / elapsed / (1024 * 1024)).toFixed(2)} MB/sec), ${(w.total / w.count).toFixed(1)} ms avg latency, ${w.max.toFixed(1)} ms max latency.\n`,
      );
      this.#window = { start: now, count: 0, bytes: 0, max: 0, total: 0 };
    }
  }

  percentiles(...ps: number[]): number[] {
    const sorted = this.#latencies.slice(0, this.#index).sort();
    return ps.map((p) => sorted[Math.floor(p * sorted.length)] ?? 0);
  }

  summary(now = Date.now()): string {
    const elapsed = Math.max(1, now - this.#start);
    const [p50, p95, p99, p999] = this.percentiles(0.5, 0.95, 0.99, 0.999);
    const avg = this.count === 0 ? 0 : this.totalLatency / this.count;
    return (
      `${this.count} records sent, ${((1000 * this.count) / elapsed).toFixed(6)} records/sec ` +
      `(${((1000 * this.bytes) / elapsed / (1024 * 1024)).toFixed(2)} MB/sec), ${avg.toFixed(2)} ms avg latency, ` +
      `${this.maxLatency.toFixed(2)} ms max latency, ${p50} ms 50th, ${p95} ms 95th, ${p99} ms 99th, ${p999} ms 99.9th.\n`
    );
  }
}

export async function runPerf(argv: readonly string[], io: CommandIO = processIO): Promise<number> {
  const [sub, ...rest] = argv;
  if (sub === undefined || sub === '--help' || sub === '-h' || sub === 'help') {
    (sub === undefined ? io.stderr : io.stdout).write(PERF_OVERVIEW);
    return sub === undefined ? 1 : 0;
  }
  if (sub === 'consume') return (await import('./perf-consume.js')).runPerfConsume(rest, io);
  if (sub !== 'produce') {
    io.stderr.write(
      `samsa perf: unknown benchmark ${JSON.stringify(sub)}${didYouMean(sub, ['produce', 'consume'])}\n`,
    );
    return 1;
  }
  return runCommand(io, PERF_USAGE, async () => {
    const { values } = parseCommand(
      {
        args: [...rest],
        options: {
          topic: { type: 'string' },
          'num-records': { type: 'string' },
          'record-size': { type: 'string' },
          throughput: { type: 'string' },
          'producer-props': { type: 'string', multiple: true },
          'producer.config': { type: 'string' },
          'bootstrap-server': { type: 'string' },
          help: { type: 'boolean', short: 'h' },
        },
      },
      ['producer-props'],
    );
    const topic = topicUnlessHelp(io, PERF_USAGE, values);
    if (topic === null) return 0;
    const num = integer(values['num-records'], '--num-records', 1);
    const size = integer(values['record-size'], '--record-size', 0);
    const throughput = Number(values.throughput ?? Number.NaN);
    if (!Number.isFinite(throughput) || throughput === 0 || (throughput < 0 && throughput !== -1)) {
      throw new CommandUsageError('--throughput must be a positive rate or -1');
    }
    const props = {
      ...(values['producer.config']
        ? readPropertiesFile(values['producer.config'], '--producer.config')
        : {}),
      ...parseKeyValues(values['producer-props'] ?? [], '--producer-props'),
    };
    const options = producerOptionsFrom(values['bootstrap-server'], props, (l) => io.stderr.write(`${l}\n`));
    await ensureReachable(String(options.bootstrapServers), io);
    const producer = new Producer(options);
    try {
      const stats = await perfProduce(producer, topic, num, size, throughput, (s) => io.stdout.write(s));
      io.stdout.write(stats.summary());
    } finally {
      await producer.close();
    }
    return 0;
  });
}

function integer(v: string | undefined, name: string, min: number): number {
  const n = Number(v);
  if (v === undefined || !Number.isInteger(n) || n < min)
    throw new CommandUsageError(`${name} must be an integer ≥ ${min}`);
  return n;
}

/** The send loop (exported for the benchmark): throttled to `throughput` records/s unless -1. */
export async function perfProduce(
  producer: Producer,
  topic: string,
  num: number,
  size: number,
  throughput: number,
  out: (s: string) => void,
): Promise<PerfStats> {
  const payload = Buffer.allocUnsafe(size);
  for (let i = 0; i < size; i++) payload[i] = 65 + Math.floor(Math.random() * 26);
  const stats = new PerfStats(num, out);
  let firstError: Error | null = null;
  const start = Date.now();
  // One shared callback: the record's create timestamp (set by send()) is its send time, so no
  // per-record closure has to live while the record waits in the buffer.
  const onDelivery = (err: Error | null, md: RecordMetadata | null): void => {
    const now = Date.now();
    if (err !== null) firstError ??= err;
    else stats.record(now - md!.timestamp, size, now);
  };
  for (let i = 0; i < num; i++) {
    const ok = producer.send({ topic, value: payload }, onDelivery);
    if (!ok) await producer.bufferAvailable();
    if (throughput > 0) {
      // Sleep until this record's slot, like Kafka's ThroughputThrottler.
      const ahead = start + ((i + 1) * 1000) / throughput - Date.now();
      if (ahead > 0) await new Promise((r) => setTimeout(r, ahead));
    } else if ((i & 1023) === 1023) {
      // Let the sender and the socket run: JS has no separate I/O thread.
      await new Promise((r) => setImmediate(r));
    }
    if (firstError !== null) break;
  }
  await producer.flush();
  if (firstError !== null) throw firstError;
  return stats;
}
