// Shared setup for consumer integration tests: a real in-process broker, topics created through
// the admin client, records written by our producer (or kafkajs), and small waiting helpers.
import { Admin } from '../../../src/client/admin/admin.js';
import { Consumer, type ConsumerOptions, type ConsumerRecord } from '../../../src/client/consumer/index.js';
import { Producer } from '../../../src/client/producer/producer.js';
import { startTestBroker, type TestBroker } from '../../../src/testkit/index.js';
import { scaled } from '../../support/timeouts.js';

export async function broker(overrides: Record<string, string | number | boolean> = {}): Promise<TestBroker> {
  return startTestBroker({
    overrides: {
      'group.initial.rebalance.delay.ms': 0,
      'offsets.topic.num.partitions': 3,
      'num.partitions': 1,
      ...overrides,
    },
  });
}

export async function createTopic(
  b: TestBroker,
  name: string,
  partitions: number,
  configs?: Record<string, string>,
): Promise<void> {
  const admin = new Admin({ bootstrapServers: b.bootstrap });
  try {
    await admin.createTopics([
      { name, numPartitions: partitions, replicationFactor: 1, ...(configs ? { configs } : {}) },
    ]);
  } finally {
    await admin.close();
  }
}

/** Produces `count` records `key-i`/`value-i` spread over `partitions` partitions (i % partitions). */
export async function produce(
  b: TestBroker,
  topic: string,
  count: number,
  partitions = 1,
  start = 0,
  extra: Partial<ConstructorParameters<typeof Producer>[0]> = {},
): Promise<void> {
  const p = new Producer({ bootstrapServers: b.bootstrap, lingerMs: 2, ...extra });
  try {
    const sends: Promise<unknown>[] = [];
    for (let i = start; i < start + count; i++) {
      sends.push(
        p.send({
          topic,
          partition: i % partitions,
          key: `key-${i}`,
          value: `value-${i}`,
        }) as Promise<unknown>,
      );
    }
    await Promise.all(sends);
  } finally {
    await p.close();
  }
}

export function consumer<K = Buffer | null, V = Buffer | null>(
  b: TestBroker,
  opts: Partial<ConsumerOptions<K, V>> = {},
): Consumer<K, V> {
  return new Consumer<K, V>({
    bootstrapServers: b.bootstrap,
    sessionTimeoutMs: 6000,
    heartbeatIntervalMs: 500,
    fetchMaxWaitMs: 100,
    autoOffsetReset: 'earliest',
    retryBackoffMs: 50,
    ...opts,
  });
}

/** Polls until `n` records arrived (or the scaled deadline passes); returns them. */
export async function pollN<K, V>(
  c: Consumer<K, V>,
  n: number,
  timeoutMs = 30_000,
): Promise<ConsumerRecord<K, V>[]> {
  const out: ConsumerRecord<K, V>[] = [];
  const deadline = Date.now() + scaled(timeoutMs);
  while (out.length < n && Date.now() < deadline) out.push(...(await c.poll(200)));
  return out;
}

export const str = (b: Buffer | null): string | null => (b === null ? null : b.toString());

export function sleep(ms: number): Promise<void> {
  return new Promise((r) => setTimeout(r, ms));
}
