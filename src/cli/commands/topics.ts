// `samsa topics`: kafka-topics with its options and output format.
//   samsa topics --create --topic T [--partitions N] [--replication-factor R] [--config k=v ...]
//   samsa topics --alter --topic T --partitions N        (add partitions)
//   samsa topics --delete --topic T
//   samsa topics --list [--exclude-internal]
//   samsa topics --describe [--topic T] [--exclude-internal] [--topics-with-overrides] [...]
// As in Kafka, --topic is a regular expression (matching whole names) except with --create,
// --list and --describe include internal topics unless --exclude-internal, and --describe's
// "Configs:" lists every config whose source is not the default (topic overrides and broker
// settings alike).
import { Admin } from '../../client/admin/admin.js';
import type { ConfigDescription } from '../../client/admin/configs.js';
import type { TopicDescription } from '../../client/admin/topics.js';
import { clientOptionsFrom, readPropertiesFile } from '../client-props.js';
import { ensureReachable } from '../reach.js';
import {
  CommandError,
  type CommandIO,
  CommandUsageError,
  parseCommand,
  parseKeyValues,
  processIO,
  runCommand,
} from './common.js';

export const TOPICS_USAGE = `Usage: samsa topics (--create | --alter | --delete | --list | --describe) [options]

  --bootstrap-server HOST:PORT   broker to connect to (default 127.0.0.1:9092)
  --command-config FILE          admin client properties
  --topic NAME                   topic to create; a regular expression for the other actions
  --partitions N                 partitions of a new topic (default: broker's num.partitions);
                                 with --alter: the new partition count
  --replication-factor R         replicas of a new topic (default: broker's default)
  --replica-assignment A         explicit replicas, e.g. 1:2,2:3 (partition 0 on 1 and 2, ...)
  --config KEY=VALUE             topic config of a new (or, with --alter, existing) topic; repeatable
  --if-not-exists                --create succeeds if the topic exists
  --if-exists                    --alter/--delete/--describe succeed if no topic matches
  --exclude-internal             leave internal topics (__consumer_offsets, ...) out of --list/--describe
  --topics-with-overrides        --describe: only topics with configs that are not defaults
  --under-replicated-partitions  --describe: only partitions whose ISR is smaller than their replicas
  --unavailable-partitions       --describe: only partitions without a leader
  --under-min-isr-partitions     --describe: only partitions whose ISR is below min.insync.replicas
  --at-min-isr-partitions        --describe: only partitions whose ISR is at min.insync.replicas
`;

const ACTIONS = ['create', 'alter', 'delete', 'list', 'describe'] as const;

export async function runTopics(argv: readonly string[], io: CommandIO = processIO): Promise<number> {
  return runCommand(io, TOPICS_USAGE, async () => {
    const { values } = parseCommand(
      {
        args: [...argv],
        options: {
          'bootstrap-server': { type: 'string' },
          'command-config': { type: 'string' },
          create: { type: 'boolean' },
          alter: { type: 'boolean' },
          delete: { type: 'boolean' },
          list: { type: 'boolean' },
          describe: { type: 'boolean' },
          topic: { type: 'string' },
          partitions: { type: 'string' },
          'replication-factor': { type: 'string' },
          'replica-assignment': { type: 'string' },
          config: { type: 'string', multiple: true },
          'delete-config': { type: 'string', multiple: true },
          'if-not-exists': { type: 'boolean' },
          'if-exists': { type: 'boolean' },
          'exclude-internal': { type: 'boolean' },
          'topics-with-overrides': { type: 'boolean' },
          'under-replicated-partitions': { type: 'boolean' },
          'unavailable-partitions': { type: 'boolean' },
          'under-min-isr-partitions': { type: 'boolean' },
          'at-min-isr-partitions': { type: 'boolean' },
          help: { type: 'boolean', short: 'h' },
        },
      },
      ['config'],
    );
    if (values.help) {
      io.stdout.write(TOPICS_USAGE);
      return 0;
    }
    const actions = ACTIONS.filter((a) => values[a]);
    if (actions.length !== 1)
      throw new CommandUsageError('give exactly one of --create, --alter, --delete, --list, --describe');
    const action = actions[0]!;
    if (values['delete-config'])
      throw new CommandUsageError('--delete-config is not supported (Kafka 4 removed it too)');
    const int = (name: 'partitions' | 'replication-factor', max = 2 ** 31 - 1): number | undefined => {
      const v = values[name];
      if (v === undefined) return undefined;
      const n = Number(v);
      if (!Number.isInteger(n) || n < 1 || n > max)
        throw new CommandUsageError(`--${name} must be an integer from 1 to ${max}`);
      return n;
    };
    const partitions = int('partitions');
    const replicationFactor = int('replication-factor', 32767);
    const configs = parseKeyValues(values.config ?? [], '--config');
    const assignment = parseReplicaAssignment(values['replica-assignment']);
    if ((action === 'create' || action === 'alter') && values.topic === undefined)
      throw new CommandUsageError('--topic is required');
    if (action === 'alter' && partitions === undefined && Object.keys(configs).length === 0)
      throw new CommandUsageError('--alter needs --partitions N (or --config KEY=VALUE)');
    const pattern = values.topic === undefined || action === 'create' ? null : topicPattern(values.topic);
    const props = values['command-config']
      ? readPropertiesFile(values['command-config'], '--command-config')
      : {};
    const fromProps = clientOptionsFrom('admin', props, (l) => io.stderr.write(`${l}\n`));
    const bootstrap =
      values['bootstrap-server'] ?? (fromProps.bootstrapServers as string | undefined) ?? '127.0.0.1:9092';
    await ensureReachable(bootstrap, io);
    const admin = new Admin({ clientId: 'samsa-cli', ...fromProps, bootstrapServers: bootstrap });
    try {
      // Names the action applies to (sorted), for everything but --create.
      const matching = async (): Promise<string[]> => {
        const all = await admin.listTopics({ includeInternal: values['exclude-internal'] !== true });
        const names = all.filter((n) => pattern === null || pattern.test(n)).sort();
        if (names.length === 0 && values.topic !== undefined && !values['if-exists'])
          throw new CommandError(`topic '${values.topic}' does not exist as expected`);
        return names;
      };
      switch (action) {
        case 'create': {
          const topic = values.topic!;
          if (topic.includes('.') || topic.includes('_'))
            io.stdout.write(
              "WARNING: Due to limitations in metric names, topics with a period ('.') or underscore ('_') could collide. To avoid issues it is best to use either, but not both.\n",
            );
          try {
            await admin.createTopics([
              {
                name: topic,
                numPartitions: partitions,
                replicationFactor,
                ...(assignment
                  ? { replicaAssignment: Object.fromEntries(assignment.map((r, i) => [i, r])) }
                  : {}),
                configs,
              },
            ]);
          } catch (err) {
            if (values['if-not-exists'] && (err as { code?: string }).code === 'TOPIC_ALREADY_EXISTS')
              return 0;
            throw err;
          }
          io.stdout.write(`Created topic ${topic}.\n`);
          return 0;
        }
        case 'alter': {
          const names = await matching();
          if (partitions !== undefined) {
            const described = await admin.describeTopics(names);
            await admin.createPartitions(
              described.map((t) => ({
                topic: t.name,
                count: partitions,
                ...(assignment ? { assignments: assignment.slice(t.partitions.length) } : {}),
              })),
            );
          }
          if (Object.keys(configs).length > 0) {
            await admin.incrementalAlterConfigs(
              names.map((name) => ({
                type: 'topic' as const,
                name,
                ops: Object.entries(configs).map(([key, value]) => ({ key, op: 'set' as const, value })),
              })),
            );
          }
          return 0;
        }
        case 'delete':
          await admin.deleteTopics(await matching());
          return 0;
        case 'list':
          for (const t of await matching()) io.stdout.write(`${t}\n`);
          return 0;
        case 'describe': {
          const names = await matching();
          const topics = names.length === 0 ? [] : await admin.describeTopics(names);
          const described =
            topics.length === 0
              ? []
              : await admin.describeConfigs(topics.map((t) => ({ type: 'topic' as const, name: t.name })));
          printDescription(io, topics, described, {
            withOverrides: values['topics-with-overrides'] === true,
            underReplicated: values['under-replicated-partitions'] === true,
            unavailable: values['unavailable-partitions'] === true,
            underMinIsr: values['under-min-isr-partitions'] === true,
            atMinIsr: values['at-min-isr-partitions'] === true,
          });
          return 0;
        }
      }
    } finally {
      await admin.close();
    }
  });
}

/** Kafka's --topic: a regular expression that must match the whole name. */
function topicPattern(text: string): RegExp {
  try {
    return new RegExp(`^(?:${text})$`);
  } catch {
    throw new CommandUsageError(`--topic ${JSON.stringify(text)} is not a valid regular expression`);
  }
}

/** `1:2,2:3` → [[1, 2], [2, 3]] (one group of broker ids per partition). */
function parseReplicaAssignment(text: string | undefined): number[][] | null {
  if (text === undefined || text.trim() === '') return null;
  return text.split(',').map((group) => {
    const ids = group.split(':').map((s) => Number(s.trim()));
    if (ids.some((n) => !Number.isInteger(n) || n < 0))
      throw new CommandUsageError(`--replica-assignment: "${group}" is not a list of broker ids`);
    if (new Set(ids).size !== ids.length)
      throw new CommandUsageError(`--replica-assignment: partition replicas "${group}" repeat a broker`);
    return ids;
  });
}

interface DescribeFilters {
  withOverrides: boolean;
  underReplicated: boolean;
  unavailable: boolean;
  underMinIsr: boolean;
  atMinIsr: boolean;
}

function printDescription(
  io: CommandIO,
  topics: readonly TopicDescription[],
  configs: readonly ConfigDescription[],
  f: DescribeFilters,
): void {
  const partitionReport = f.underReplicated || f.unavailable || f.underMinIsr || f.atMinIsr;
  for (const t of topics) {
    const entries = configs.find((c) => c.name === t.name)?.entries ?? [];
    const nonDefault = entries.filter((e) => !e.isDefault);
    const minIsr = Number(entries.find((e) => e.name === 'min.insync.replicas')?.value ?? 1);
    const partitions = [...t.partitions].sort((a, b) => a.partition - b.partition);
    if (!partitionReport && (!f.withOverrides || nonDefault.length > 0)) {
      const rf = partitions[0]?.replicas.length ?? 0;
      const shown = nonDefault.map((e) => `${e.name}=${e.isSensitive ? 'null' : e.value}`).join(',');
      io.stdout.write(
        `Topic: ${t.name}\tTopicId: ${t.topicId}\tPartitionCount: ${partitions.length}\tReplicationFactor: ${rf}\tConfigs: ${shown}\n`,
      );
    }
    if (f.withOverrides) continue;
    for (const p of partitions) {
      const noLeader = p.leader < 0;
      const show =
        !partitionReport ||
        (f.underReplicated && p.isr.length < p.replicas.length) ||
        (f.unavailable && noLeader) ||
        (f.underMinIsr && (noLeader || p.isr.length < minIsr)) ||
        (f.atMinIsr && p.isr.length === minIsr);
      if (!show) continue;
      io.stdout.write(
        `\tTopic: ${t.name}\tPartition: ${p.partition}\tLeader: ${noLeader ? 'none' : p.leader}\tReplicas: ${p.replicas.join(',')}\tIsr: ${p.isr.join(',')}\n`,
      );
    }
  }
}
