// Consumer groups made by other Kafka clients for the `samsa groups` tests: confluent-kafka-python
// and kafkajs commit known offsets and leave (an Empty group), kcat -G stays a live member.
import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { promisify } from 'node:util';
import { Kafka, logLevel } from 'kafkajs';
import { runGroups } from '../../src/cli/commands/groups.js';
import { repoFile } from '../support/repo.js';
import { scaled, TestTimeoutError } from '../support/timeouts.js';
import { captureIO } from './support.js';

const PY_COMMIT = repoFile('test/cli/groups_commit.py');

export function kafkajs(bootstrap: string): Kafka {
  return new Kafka({ brokers: [bootstrap], logLevel: logLevel.NOTHING });
}

/** Creates `topic` with one count per partition of records; `timestamp(i)` per record if given. */
export async function produceCounts(
  bootstrap: string,
  topic: string,
  counts: readonly number[],
  o: { timestamp?: (i: number) => number; configs?: Record<string, string> } = {},
): Promise<void> {
  const kafka = kafkajs(bootstrap);
  const admin = kafka.admin();
  await admin.connect();
  await admin.createTopics({
    topics: [
      {
        topic,
        numPartitions: counts.length,
        configEntries: Object.entries(o.configs ?? {}).map(([name, value]) => ({ name, value })),
      },
    ],
    waitForLeaders: true,
  });
  await admin.disconnect();
  const producer = kafka.producer();
  await producer.connect();
  for (const [partition, n] of counts.entries()) {
    if (n === 0) continue;
    const messages = Array.from({ length: n }, (_, i) => ({
      value: `${partition}-${i}`,
      ...(o.timestamp ? { timestamp: String(o.timestamp(i)) } : {}),
    }));
    await producer.send({ topic, messages: messages.map((m) => ({ ...m, partition })) });
  }
  await producer.disconnect();
}

/** confluent-kafka-python joins `group`, commits `offsets` (partition → offset) and leaves. */
export async function pythonCommit(
  bootstrap: string,
  group: string,
  topic: string,
  offsets: Record<number, number>,
): Promise<void> {
  const spec = Object.entries(offsets)
    .map(([p, o]) => `${p}:${o}`)
    .join(',');
  await promisify(execFile)('/usr/bin/python3', [PY_COMMIT, bootstrap, group, topic, spec], {
    timeout: scaled(90_000),
  });
}

/** A kafkajs consumer joins `group`, commits `offsets` and leaves (or stays, with `stay`). */
export async function kafkajsCommit(
  bootstrap: string,
  group: string,
  topic: string,
  offsets: Record<number, number>,
  o: { stay?: boolean } = {},
): Promise<{ disconnect: () => Promise<void> }> {
  const consumer = kafkajs(bootstrap).consumer({ groupId: group, sessionTimeout: 10_000 });
  await consumer.connect();
  await consumer.subscribe({ topics: [topic], fromBeginning: true });
  const joined = new Promise((r) => consumer.on(consumer.events.GROUP_JOIN, r));
  await consumer.run({ autoCommit: false, eachMessage: async () => {} });
  await joined;
  await consumer.commitOffsets(
    Object.entries(offsets).map(([p, off]) => ({ topic, partition: Number(p), offset: String(off) })),
  );
  if (!o.stay) await consumer.disconnect();
  return { disconnect: () => consumer.disconnect() };
}

/** `kcat -G group topic`: a live member that reads everything and auto-commits every 100 ms. */
export function kcatMember(bootstrap: string, group: string, topic: string): ChildProcess {
  return spawn(
    'kcat',
    [
      '-b',
      bootstrap,
      '-G',
      group,
      topic,
      '-q',
      '-X',
      'client.id=kcat-reader',
      '-X',
      'auto.offset.reset=earliest',
      '-X',
      'auto.commit.interval.ms=100',
    ],
    { stdio: ['ignore', 'ignore', 'inherit'] },
  );
}

/** Runs `samsa groups ARGS` in-process. */
export async function groups(bootstrap: string, ...args: string[]) {
  const io = captureIO();
  const code = await runGroups(['--bootstrap-server', bootstrap, ...args], io.io);
  return { code, out: io.stdout(), err: io.stderr() };
}

/** Polls `check` until it returns true, failing after (scaled) `ms`. */
export async function until(check: () => Promise<boolean>, ms: number, what: string): Promise<void> {
  const limit = scaled(ms);
  const start = Date.now();
  while (!(await check())) {
    if (Date.now() - start > limit) throw new TestTimeoutError(what, limit);
    await new Promise((r) => setTimeout(r, 200));
  }
}
