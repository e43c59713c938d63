// `samsa topics`: create, delete, list and describe topics, with kafka-topics' output format.
//   samsa topics --create --topic T [--partitions N] [--replication-factor R] [--config k=v ...]
//   samsa topics --delete --topic T
//   samsa topics --list
//   samsa topics --describe [--topic T]
import { parseArgs } from 'node:util';
import { Admin } from '../../client/admin/admin.js';
import { type CommandIO, CommandUsageError, parseKeyValues, processIO, runCommand } from './produce.js';

export const TOPICS_USAGE = `Usage: samsa topics (--create | --delete | --list | --describe) [options]

  --bootstrap-server HOST:PORT   broker to connect to (default 127.0.0.1:9092)
  --topic NAME                   topic to create, delete or describe
  --partitions N                 partitions of a new topic (default: broker's num.partitions)
  --replication-factor R         replicas of a new topic (default: broker's default)
  --config KEY=VALUE             topic config of a new topic (repeatable)
  --if-not-exists                --create succeeds if the topic exists
`;

export async function runTopics(argv: readonly string[], io: CommandIO = processIO): Promise<number> {
  return runCommand(io, TOPICS_USAGE, async () => {
    const { values } = parseArgs({
      args: [...argv],
      options: {
        'bootstrap-server': { type: 'string' },
        create: { type: 'boolean' },
        delete: { type: 'boolean' },
        list: { type: 'boolean' },
        describe: { type: 'boolean' },
        topic: { type: 'string' },
        partitions: { type: 'string' },
        'replication-factor': { type: 'string' },
        config: { type: 'string', multiple: true },
        'if-not-exists': { type: 'boolean' },
        help: { type: 'boolean', short: 'h' },
      },
    });
    if (values.help) {
      io.stdout.write(TOPICS_USAGE);
      return 0;
    }
    const actions = (['create', 'delete', 'list', 'describe'] as const).filter((a) => values[a]);
    if (actions.length !== 1)
      throw new CommandUsageError('give exactly one of --create, --delete, --list, --describe');
    const int = (name: 'partitions' | 'replication-factor'): number | undefined => {
      const v = values[name];
      if (v === undefined) return undefined;
      const n = Number(v);
      if (!Number.isInteger(n) || n < 1) throw new CommandUsageError(`--${name} must be a positive integer`);
      return n;
    };
    const admin = new Admin({
      bootstrapServers: values['bootstrap-server'] ?? '127.0.0.1:9092',
      clientId: 'samsa-cli',
    });
    try {
      switch (actions[0]) {
        case 'create': {
          const topic = required(values.topic);
          try {
            await admin.createTopics([
              {
                name: topic,
                numPartitions: int('partitions'),
                replicationFactor: int('replication-factor'),
                configs: parseKeyValues(values.config ?? [], '--config'),
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
        case 'delete':
          await admin.deleteTopics([required(values.topic)]);
          return 0;
        case 'list':
          for (const t of await admin.listTopics()) io.stdout.write(`${t}\n`);
          return 0;
        case 'describe':
          return await describe(admin, values.topic, io);
      }
    } finally {
      await admin.close();
    }
  });
}

function required(topic: string | undefined): string {
  if (topic === undefined) throw new CommandUsageError('--topic is required');
  return topic;
}

async function describe(admin: Admin, topic: string | undefined, io: CommandIO): Promise<number> {
  const topics = (await admin.describeTopics(topic === undefined ? undefined : [topic])).filter(
    (t) => topic !== undefined || !t.isInternal,
  );
  const configs =
    topics.length === 0
      ? []
      : await admin
          .describeConfigs(topics.map((t) => ({ type: 'topic' as const, name: t.name })))
          .catch(() => []);
  for (const t of topics) {
    const rf = t.partitions[0]?.replicas.length ?? 0;
    const overrides = (configs.find((c) => c.name === t.name)?.entries ?? [])
      .filter((e) => e.source === 'DYNAMIC_TOPIC_CONFIG')
      .map((e) => `${e.name}=${e.isSensitive ? '<hidden>' : e.value}`)
      .join(',');
    io.stdout.write(
      `Topic: ${t.name}\tTopicId: ${t.topicId}\tPartitionCount: ${t.partitions.length}\tReplicationFactor: ${rf}\tConfigs: ${overrides}\n`,
    );
    for (const p of t.partitions) {
      io.stdout.write(
        `\tTopic: ${t.name}\tPartition: ${p.partition}\tLeader: ${p.leader < 0 ? 'none' : p.leader}\tReplicas: ${p.replicas.join(',')}\tIsr: ${p.isr.join(',')}\n`,
      );
    }
  }
  return 0;
}
