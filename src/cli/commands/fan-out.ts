// `samsa fan-out`: copies a topic into one with more partitions, exactly once, through the
// client's fanOut() (src/client/patterns/fan-out.ts). Prints a start line, a progress line every
// --progress-interval-ms (records copied, rate, lag) and a last line; ends at SIGINT/SIGTERM
// (committing what was copied) or, with --stop-at-end, once the source's end at start is copied.
import { ConfigError, KafkaClientError } from '../../client/errors.js';
import { type FanOut, type FanOutProgress, fanOut } from '../../client/patterns/fan-out.js';
import type { KeylessSpread } from '../../client/patterns/fan-out-options.js';
import { TopicSetupError } from '../../client/patterns/pattern-topics.js';
import { clientOptionsFrom, readPropertiesFile } from '../client-props.js';
import { ensureReachable } from '../reach.js';
import { ADMIN_COMMAND_OPTIONS, DEFAULT_BOOTSTRAP } from './admin-session.js';
import {
  CommandError,
  type CommandIO,
  CommandUsageError,
  parseCommand,
  processIO,
  runCommand,
} from './common.js';

export const FAN_OUT_USAGE = `Usage: samsa fan-out --from TOPIC --to TOPIC --partitions N [options]

Copies a topic into one with more partitions, exactly once (a read_committed consumer, a
transactional producer, the source offsets committed in the same transaction). A keyed record
goes to murmur2(key) % N of the target, the partition Java and kafkajs producers pick for it;
keys, values, headers and timestamps are kept. Stop it (Ctrl-C) or kill it at any point: run it
again with the same --group and it resumes with no duplicate and no gap.

  --bootstrap-server HOST:PORT  broker to connect to (default 127.0.0.1:9092)
  --command-config FILE         client properties (Kafka's names: security.protocol, sasl.*, ssl.*)
  --from TOPIC                  the topic to copy (it must exist)
  --to TOPIC                    the target: created with N partitions if missing, otherwise it
                                must have exactly N
  --partitions N                partitions of the target
  --replication-factor R        replication factor of a created target (default: the broker's)
  --group G                     group of the committed source offsets; the transactional.id is
                                G:FROM (default group samsa-fan-out.FROM.TO). One bridge per group:
                                a second one fences the first
  --keyless sticky|round-robin  where records without a key go (default sticky)
  --stop-at-end                 copy up to the source's end offsets at start, then exit
  --progress-interval-ms MS     how often to print progress (default 5000; 0 = never)
  --commit-interval-ms MS       commit a transaction at least this often (default 100) ...
  --max-records-per-transaction N  ... or once it holds N records (default 5000)

Progress lines:
  copied 120000 records (24000/s), lag 80000, 31 transactions

Examples:
  samsa fan-out --from orders --to orders-wide --partitions 64
  samsa fan-out --from orders --to orders-wide --partitions 64 --group orders-widen --stop-at-end
`;

function wholeNumber(flag: string, text: string | undefined, min: number): number | undefined {
  if (text === undefined) return undefined;
  const n = Number(text);
  if (text.trim() === '' || !Number.isSafeInteger(n) || n < min)
    throw new CommandUsageError(`${flag} must be a whole number of ${min} or more, got "${text}"`);
  return n;
}

export function progressLine(p: FanOutProgress): string {
  return `copied ${p.copied} records (${Math.round(p.recordsPerSecond)}/s), lag ${p.lag}, ${p.transactions} transactions${p.aborted > 0 ? ` (${p.aborted} aborted and retried)` : ''}\n`;
}

export async function runFanOut(argv: readonly string[], io: CommandIO = processIO): Promise<number> {
  return runCommand(io, FAN_OUT_USAGE, async () => {
    const { values: v } = parseCommand({
      args: [...argv],
      options: {
        ...ADMIN_COMMAND_OPTIONS,
        from: { type: 'string' },
        to: { type: 'string' },
        partitions: { type: 'string' },
        'replication-factor': { type: 'string' },
        group: { type: 'string' },
        keyless: { type: 'string' },
        'stop-at-end': { type: 'boolean' },
        'progress-interval-ms': { type: 'string' },
        'commit-interval-ms': { type: 'string' },
        'max-records-per-transaction': { type: 'string' },
      },
    });
    if (v.help) {
      io.stdout.write(FAN_OUT_USAGE);
      return 0;
    }
    for (const flag of ['from', 'to', 'partitions'] as const)
      if (v[flag] === undefined) throw new CommandUsageError(`--${flag} is required`);
    const partitions = wholeNumber('--partitions', v.partitions, 1)!;
    const replicationFactor = wholeNumber('--replication-factor', v['replication-factor'], 1);
    const progressMs = wholeNumber('--progress-interval-ms', v['progress-interval-ms'], 0) ?? 5000;
    const commitIntervalMs = wholeNumber('--commit-interval-ms', v['commit-interval-ms'], 0);
    const maxRecordsPerTransaction = wholeNumber(
      '--max-records-per-transaction',
      v['max-records-per-transaction'],
      1,
    );
    if (v.keyless !== undefined && v.keyless !== 'sticky' && v.keyless !== 'round-robin')
      throw new CommandUsageError(`--keyless is sticky or round-robin, not "${v.keyless}"`);
    if (v.from === v.to) throw new CommandUsageError('--from and --to must be different topics');

    const file = v['command-config'];
    const props = file ? readPropertiesFile(file, '--command-config') : {};
    const fromProps = clientOptionsFrom('admin', props, (l) => io.stderr.write(`${l}\n`));
    const bootstrap =
      v['bootstrap-server'] ?? (fromProps.bootstrapServers as string | undefined) ?? DEFAULT_BOOTSTRAP;
    await ensureReachable(bootstrap, io);

    let bridge: FanOut;
    try {
      bridge = await fanOut({
        clientId: 'samsa-cli',
        ...fromProps,
        bootstrapServers: bootstrap,
        from: v.from!,
        to: v.to!,
        partitions,
        ...(v.group !== undefined ? { group: v.group } : {}),
        ...(replicationFactor !== undefined ? { replicationFactor } : {}),
        ...(v.keyless !== undefined ? { keyless: v.keyless as KeylessSpread } : {}),
        ...(commitIntervalMs !== undefined ? { commitIntervalMs } : {}),
        ...(maxRecordsPerTransaction !== undefined ? { maxRecordsPerTransaction } : {}),
        stopAtEnd: v['stop-at-end'] === true,
      });
    } catch (e) {
      if (e instanceof ConfigError) throw new CommandUsageError(e.message.replace(/^(from|to) /, '--$1 '));
      if (e instanceof TopicSetupError && /^source topic .* does not exist$/.test(e.message))
        throw new CommandError(`${e.message} (samsa topics --list shows the topics)`);
      if (e instanceof TopicSetupError) throw new CommandError(e.message);
      throw e;
    }
    const i = bridge.info;
    io.stdout.write(
      `fan-out ${i.from} (${i.sourcePartitions} partitions) -> ${i.to} (${i.targetPartitions} partitions${i.createdTarget ? ', created' : ''}), group ${i.group}, transactional.id ${i.transactionalId}\n`,
    );
    const started = Date.now();
    let signalled = false;
    const stop = () => {
      signalled = true;
      void bridge.stop();
    };
    process.once('SIGINT', stop);
    process.once('SIGTERM', stop);
    const timer =
      progressMs > 0 ? setInterval(() => io.stdout.write(progressLine(bridge.progress())), progressMs) : null;
    try {
      const last = await bridge.done.catch((e: unknown) => {
        // Fenced by a newer bridge, or a transaction whose outcome is unknown: one line.
        throw e instanceof KafkaClientError ? new CommandError(e.message) : e;
      });
      const secs = (Date.now() - started) / 1000;
      io.stdout.write(
        `${signalled ? 'stopped' : 'done'}: copied ${last.copied} records in ${secs.toFixed(1)} s, lag ${last.lag}\n`,
      );
      return 0;
    } finally {
      if (timer !== null) clearInterval(timer);
      process.off('SIGINT', stop);
      process.off('SIGTERM', stop);
    }
  });
}
