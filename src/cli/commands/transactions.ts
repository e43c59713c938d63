// `samsa transactions`: kafka-transactions.sh. list (every coordinator's transactional ids),
// describe (one id's state, from its coordinator), describe-producers (a partition's active
// producers and their open transactions, from its leader), find-hanging (open transactions no
// coordinator will finish) and abort (an ABORT marker for one partition's open transaction,
// identified by its start offset, or by producer id, epoch and coordinator epoch). Kafka's
// subcommands (`samsa transactions list`); `--list`, `--describe`, ... work too.
import type { Admin } from '../../client/admin/admin.js';
import type { AbortTransactionSpec } from '../../client/admin/transactions.js';
import { KafkaResponseError } from '../../client/errors.js';
import { didYouMean } from '../suggest.js';
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
import { findHanging, partitionsOf } from './transactions-hanging.js';
import { describeText, hangingText, listText, producersText, withDuration } from './transactions-print.js';

export const TRANSACTIONS_USAGE = `Usage: samsa transactions <list | describe | describe-producers | find-hanging | abort> [options]

kafka-transactions.sh: find transactions, and abort one that hangs (open on a partition with no
coordinator left to finish it, so read_committed consumers of the partition are stuck behind it).

  --bootstrap-server HOST:PORT  broker to connect to (default 127.0.0.1:9092)
  --command-config FILE         admin client properties (Kafka's names: security.protocol, sasl.*, ssl.*)
  --output text|json            Kafka's tab-separated table (default) or JSON

  list                          every transactional id: TransactionalId Coordinator ProducerId
                                TransactionState
  describe --transactional-id ID
                                its coordinator, producer id and epoch, state, timeout, start
                                time, duration and the partitions of its open transaction
  describe-producers --topic T --partition P
                                the partition's active producers: ProducerId ProducerEpoch
                                LatestCoordinatorEpoch LastSequence LastTimestamp
                                CurrentTransactionStartOffset (None: no open transaction)
  find-hanging (--broker-id B | --topic T [--partition P]) [--max-transaction-timeout MIN]
                                open transactions older than MIN minutes (default 15, the
                                longest transaction.max.timeout.ms you allow) that no coordinator
                                tracks any more
  abort --topic T --partition P (--start-offset N | --producer-id ID --producer-epoch E
        --coordinator-epoch C)  write an ABORT marker for the transaction that starts at offset
                                N (or of that producer) on the partition; needs ClusterAction

The actions work as flags too: samsa transactions --list, --describe, --abort, ...

Examples:
  samsa transactions list
  samsa transactions describe --transactional-id payments-1
  samsa transactions describe-producers --topic orders --partition 0
  samsa transactions find-hanging --broker-id 1
  samsa transactions find-hanging --topic orders --max-transaction-timeout 5 --output json
  samsa transactions abort --topic orders --partition 0 --start-offset 1200
`;

const ACTIONS = ['list', 'describe', 'describe-producers', 'find-hanging', 'abort'] as const;
type Action = (typeof ACTIONS)[number];

/** The flags each action takes (beyond --bootstrap-server, --command-config, --output, --help). */
const FLAGS: Record<Action, readonly string[]> = {
  list: [],
  describe: ['transactional-id'],
  'describe-producers': ['topic', 'partition'],
  'find-hanging': ['broker-id', 'topic', 'partition', 'max-transaction-timeout'],
  abort: ['topic', 'partition', 'start-offset', 'producer-id', 'producer-epoch', 'coordinator-epoch'],
};

const OPTIONS = {
  ...ADMIN_COMMAND_OPTIONS,
  output: { type: 'string' },
  'transactional-id': { type: 'string' },
  topic: { type: 'string' },
  partition: { type: 'string' },
  'broker-id': { type: 'string' },
  'max-transaction-timeout': { type: 'string' },
  'start-offset': { type: 'string' },
  'producer-id': { type: 'string' },
  'producer-epoch': { type: 'string' },
  'coordinator-epoch': { type: 'string' },
  ...Object.fromEntries(ACTIONS.map((a) => [a, { type: 'boolean' }])),
} as const;

type Values = Partial<Record<string, string | boolean>>;

export async function runTransactions(argv: readonly string[], io: CommandIO = processIO): Promise<number> {
  return runCommand(io, TRANSACTIONS_USAGE, async () => {
    const { values, positionals } = parseCommand({
      args: [...argv],
      allowPositionals: true,
      options: OPTIONS,
    });
    const v = values as Values;
    if (v.help) {
      io.stdout.write(TRANSACTIONS_USAGE);
      return 0;
    }
    const action = actionOf(v, positionals);
    for (const flag of Object.keys(FLAGS).flatMap((a) => FLAGS[a as Action]))
      if (v[flag] !== undefined && !FLAGS[action].includes(flag))
        throw new CommandUsageError(`--${flag} does not apply to ${action}`);
    if (v.output !== undefined && v.output !== 'text' && v.output !== 'json')
      throw new CommandUsageError(`--output is text or json, not "${String(v.output)}"`);
    const json = v.output === 'json';
    const run = prepare(action, v);
    const { admin } = await openAdmin(values, io);
    try {
      io.stdout.write(await run(admin, json));
      return 0;
    } catch (e) {
      if (e instanceof KafkaResponseError) throw new CommandError(explain(e, v));
      throw e;
    } finally {
      await admin.close();
    }
  });
}

function actionOf(v: Values, positionals: readonly string[]): Action {
  const flagged = ACTIONS.filter((a) => v[a] === true);
  const named = [...positionals];
  const first = named.shift();
  if (named.length > 0) throw new CommandUsageError(`unexpected argument "${named[0]}"`);
  if (first !== undefined && !(ACTIONS as readonly string[]).includes(first))
    throw new CommandUsageError(
      `unknown action "${first}"${didYouMean(first, ACTIONS)}; the actions: ${ACTIONS.join(', ')}`,
    );
  const all = [...new Set([...(first === undefined ? [] : [first as Action]), ...flagged])];
  if (all.length !== 1)
    throw new CommandUsageError(
      all.length === 0
        ? `give the action: ${ACTIONS.join(' | ')} (samsa transactions --help)`
        : `give one action, not ${all.join(' and ')}`,
    );
  return all[0]!;
}

function whole(v: Values, flag: string, min: number): number | undefined {
  const text = v[flag];
  if (typeof text !== 'string') return undefined;
  const n = Number(text);
  if (text.trim() === '' || !Number.isSafeInteger(n) || n < min)
    throw new CommandUsageError(`--${flag} must be a whole number (${min} or more), got "${text}"`);
  return n;
}

function required(v: Values, action: Action, ...flags: string[]): void {
  const missing = flags.filter((f) => v[f] === undefined);
  if (missing.length > 0)
    throw new CommandUsageError(`${action} needs ${missing.map((f) => `--${f}`).join(' and ')}`);
}

type Run = (admin: Admin, json: boolean) => Promise<string>;

/** Checks the flags of `action` (before connecting) and gives what runs it. */
function prepare(action: Action, v: Values): Run {
  switch (action) {
    case 'list':
      return async (admin, json) => {
        const listings = (await admin.listTransactions()).sort(
          (a, b) => a.coordinatorId - b.coordinatorId || a.transactionalId.localeCompare(b.transactionalId),
        );
        return json ? toJson(listings) : listText(listings);
      };
    case 'describe': {
      required(v, action, 'transactional-id');
      const id = v['transactional-id'] as string;
      return async (admin, json) => {
        const [d] = await admin.describeTransactions([id]);
        const now = Date.now();
        return json ? toJson(withDuration(d!, now)) : describeText(d!, now);
      };
    }
    case 'describe-producers': {
      required(v, action, 'topic', 'partition');
      const topic = v.topic as string;
      const partition = whole(v, 'partition', 0)!;
      return async (admin, json) => {
        await partitionsOf(admin, topic, partition);
        const [p] = await admin.describeProducers([{ topic, partition }]);
        return json ? toJson(p) : producersText(p!);
      };
    }
    case 'find-hanging': {
      const brokerId = whole(v, 'broker-id', 0);
      const topic = v.topic as string | undefined;
      const partition = whole(v, 'partition', 0);
      if (topic === undefined && brokerId === undefined)
        throw new CommandUsageError('find-hanging needs --topic or --broker-id to limit the search');
      if (partition !== undefined && topic === undefined)
        throw new CommandUsageError('--partition needs --topic');
      const minutes = whole(v, 'max-transaction-timeout', 0) ?? 15;
      return async (admin, json) => {
        const scope = {
          ...(brokerId === undefined ? {} : { brokerId }),
          ...(topic === undefined ? {} : { topic }),
          ...(partition === undefined ? {} : { partition }),
          maxTransactionTimeoutMs: minutes * 60_000,
        };
        const hanging = await findHanging(admin, scope, Date.now());
        return json ? toJson(hanging) : hangingText(hanging);
      };
    }
    case 'abort':
      return prepareAbort(v);
  }
}

function prepareAbort(v: Values): Run {
  required(v, 'abort', 'topic', 'partition');
  const topic = v.topic as string;
  const partition = whole(v, 'partition', 0)!;
  const startOffset = whole(v, 'start-offset', 0);
  const producerId = whole(v, 'producer-id', 0);
  const byProducer = ['producer-id', 'producer-epoch', 'coordinator-epoch'].filter((f) => v[f] !== undefined);
  if ((startOffset === undefined) === (byProducer.length === 0))
    throw new CommandUsageError(
      'identify the transaction by --start-offset, or by --producer-id, --producer-epoch and --coordinator-epoch (one of the two)',
    );
  let given: AbortTransactionSpec | null = null;
  if (startOffset === undefined) {
    required(v, 'abort', 'producer-id', 'producer-epoch', 'coordinator-epoch');
    const producerEpoch = whole(v, 'producer-epoch', 0)!;
    if (producerEpoch > 32767) throw new CommandUsageError('--producer-epoch must be at most 32767');
    // -1 (no marker yet, as describe-producers shows it) is sent as 0, which any leader epoch passes.
    const coordinatorEpoch = Math.max(0, whole(v, 'coordinator-epoch', -1)!);
    given = { topic, partition, producerId: BigInt(producerId!), producerEpoch, coordinatorEpoch };
  }
  return async (admin, json) => {
    await partitionsOf(admin, topic, partition);
    const spec = given ?? (await specAt(admin, topic, partition, BigInt(startOffset!)));
    await admin.abortTransaction(spec);
    return json ? toJson({ ...spec, aborted: true }) : '';
  };
}

/** The producer whose open transaction on the partition starts at `offset`. */
async function specAt(
  admin: Admin,
  topic: string,
  partition: number,
  offset: bigint,
): Promise<AbortTransactionSpec> {
  const [p] = await admin.describeProducers([{ topic, partition }]);
  const s = p?.activeProducers.find((x) => x.currentTransactionStartOffset === offset);
  if (s === undefined)
    throw new CommandError(
      `no open transaction starts at offset ${offset} on ${topic}-${partition} (samsa transactions describe-producers --topic ${topic} --partition ${partition} shows the open ones)`,
    );
  return {
    topic,
    partition,
    producerId: s.producerId,
    producerEpoch: s.producerEpoch,
    coordinatorEpoch: s.coordinatorEpoch ?? 0,
  };
}

function explain(e: KafkaResponseError, v: Values): string {
  if (e.code === 'TRANSACTIONAL_ID_NOT_FOUND')
    return `transactional id '${String(v['transactional-id'])}' not found (samsa transactions list shows them)`;
  if (e.code === 'CLUSTER_AUTHORIZATION_FAILED')
    return `${e.message} (abort needs ClusterAction on the cluster)`;
  return e.message;
}
