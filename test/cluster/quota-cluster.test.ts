// Client quotas across a 2-broker ZooKeeper cluster (in-process): a quota altered through broker
// 1 throttles a producer on broker 2 within a bounded time (the `/config/changes` notification);
// a user's client-id quota lives at `/config/users/<u>/clients/<c>` in Kafka's format, read and
// written with the raw ZooKeeper client both ways; and quota and SCRAM alterations of one user
// (the same `/config/users/<u>` map), made concurrently through different brokers, never lose
// each other's keys (the store's versioned read-modify-write).

import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { ZkClient } from '../../src/broker/metadata/zookeeper/zk-client.js';
import { Admin, Producer, type ThrottleEvent } from '../../src/client/index.js';
import { startTestCluster, type TestCluster } from '../../src/testkit/index.js';
import { scaled, TestTimeoutError } from '../support/timeouts.js';

let cluster: TestCluster;
let admin1: Admin;
let admin2: Admin;
let zk: ZkClient;

before(async () => {
  cluster = await startTestCluster({
    brokers: 2,
    mode: 'in-process',
    // Three 1-second windows: little credit, so a small quota throttles early.
    overrides: { 'quota.window.num': 3 },
  });
  admin1 = new Admin({ bootstrapServers: cluster.broker(1).bootstrap! });
  admin2 = new Admin({ bootstrapServers: cluster.broker(2).bootstrap! });
  zk = await ZkClient.connect(cluster.zookeeperConnect, { connectionTimeoutMs: scaled(20_000) });
});
after(async () => {
  await zk?.close();
  await admin1?.close();
  await admin2?.close();
  await cluster?.close();
});

async function waitFor<T>(
  what: string,
  probe: () => Promise<T | undefined>,
  ms = scaled(30_000),
): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const v = await probe();
    if (v !== undefined) return v;
    if (Date.now() > deadline) throw new TestTimeoutError(what, ms);
    await new Promise((r) => setTimeout(r, 50));
  }
}

async function readJson(path: string): Promise<{ version: number; config: Record<string, string> }> {
  return JSON.parse((await zk.getData(path)).data!.toString()) as {
    version: number;
    config: Record<string, string>;
  };
}

test('a quota set through broker 1 throttles a client of broker 2', async () => {
  // One partition, led by broker 2.
  await admin1.createTopics([{ name: 'quota-on-2', replicaAssignment: { 0: [2] } }]);
  const clientId = 'cluster-slow-producer';
  const setAt = Date.now();
  await admin1.alterClientQuotas([
    {
      entity: [{ entityType: 'client-id', name: clientId }],
      ops: [{ key: 'producer_byte_rate', value: 1000 }],
    },
  ]);
  // Broker 2 describes it (read from ZooKeeper) …
  await waitFor('broker 2 to describe the quota', async () => {
    const got = await admin2.describeClientQuotas({
      components: [{ entityType: 'client-id', matchType: 'exact', match: clientId }],
    });
    return got[0]?.values.producer_byte_rate === 1000 ? true : undefined;
  });
  // … and enforces it: a producer writing to broker 2 gets throttled by broker 2.
  const events: ThrottleEvent[] = [];
  const producer = new Producer({
    bootstrapServers: cluster.broker(2).bootstrap!,
    clientId,
    lingerMs: 0,
    onThrottle: (e) => events.push(e),
  });
  try {
    const value = Buffer.alloc(1000, 'z');
    let sent = 0;
    await waitFor('a throttle from broker 2', async () => {
      await producer.send({ topic: 'quota-on-2', partition: 0, value });
      sent++;
      return events.some((e) => e.nodeId === 2 && e.apiKey === 0 && e.throttleTimeMs > 0) ? true : undefined;
    });
    assert.ok(sent > 0);
    assert.ok(
      events.every((e) => e.nodeId === 2),
      'only broker 2 (the leader) was produced to',
    );
    // Bounded: the quota reached broker 2 and throttled within the wait above (scaled 30 s).
    assert.ok(Date.now() - setAt < scaled(60_000));
  } finally {
    await producer.close();
  }
});

test('user+client-id quotas live at /config/users/<u>/clients/<c>, in both directions', async () => {
  // Written by us, read raw.
  await admin1.alterClientQuotas([
    {
      entity: [
        { entityType: 'user', name: 'carol' },
        { entityType: 'client-id', name: 'app 1' },
      ],
      ops: [{ key: 'consumer_byte_rate', value: 3000 }],
    },
  ]);
  const nested = await readJson('/config/users/carol/clients/app%201');
  assert.equal(nested.version, 1);
  assert.deepEqual(nested.config, { consumer_byte_rate: '3000' });
  const changes = await zk.getChildren('/config/changes');
  const paths = await Promise.all(
    changes.map(
      async (c) =>
        (JSON.parse((await zk.getData(`/config/changes/${c}`)).data!.toString()) as { entity_path: string })
          .entity_path,
    ),
  );
  assert.ok(paths.includes('users/carol/clients/app%201'), `notifications: ${paths.join(', ')}`);

  // Written raw, as Kafka's kafka-configs.sh (ZooKeeper mode) does, read through broker 2.
  await zk.create(
    '/config/users/dave/clients/svc',
    Buffer.from(JSON.stringify({ version: 1, config: { producer_byte_rate: '2048' } })),
    {
      createParents: true,
    },
  );
  await zk.create(
    '/config/changes/config_change_',
    Buffer.from(JSON.stringify({ version: 2, entity_path: 'users/dave/clients/svc' })),
    { mode: 'PERSISTENT_SEQUENTIAL' },
  );
  const described = await waitFor('broker 2 to describe the raw entity', async () => {
    const got = await admin2.describeClientQuotas({
      components: [
        { entityType: 'user', matchType: 'exact', match: 'dave' },
        { entityType: 'client-id', matchType: 'exact', match: 'svc' },
      ],
      strict: true,
    });
    return got.length > 0 ? got : undefined;
  });
  assert.deepEqual(described, [
    {
      entity: [
        { entityType: 'user', name: 'dave' },
        { entityType: 'client-id', name: 'svc' },
      ],
      values: { producer_byte_rate: 2048 },
    },
  ]);
});

test('quota and SCRAM alterations of one user, concurrent through both brokers, keep each other', async () => {
  const user = 'erin';
  const rounds = 12;
  for (let i = 0; i < rounds; i++) {
    // A user-level quota through broker 1 and a credential through broker 2, at the same time.
    await Promise.all([
      admin1.alterClientQuotas([
        {
          entity: [{ entityType: 'user', name: user }],
          ops: [{ key: 'producer_byte_rate', value: 1000 + i }],
        },
      ]),
      admin2.alterUserScramCredentials([
        {
          type: 'upsert',
          user,
          mechanism: i % 2 === 0 ? 'SCRAM-SHA-256' : 'SCRAM-SHA-512',
          password: `pw-${i}`,
          iterations: 4096 + i,
        },
      ]),
    ]);
    const { config } = await readJson(`/config/users/${user}`);
    assert.equal(config.producer_byte_rate, String(1000 + i), `round ${i}: the quota survived`);
    const scram = i % 2 === 0 ? 'SCRAM-SHA-256' : 'SCRAM-SHA-512';
    assert.match(
      config[scram] ?? '',
      new RegExp(`iterations=${4096 + i}$`),
      `round ${i}: the credential survived`,
    );
  }
  // Removing the quota keeps the credentials; deleting a credential keeps the quota.
  await admin2.alterClientQuotas([
    { entity: [{ entityType: 'user', name: user }], ops: [{ key: 'producer_byte_rate', value: null }] },
  ]);
  await admin1.alterUserScramCredentials([{ type: 'delete', user, mechanism: 'SCRAM-SHA-512' }]);
  await admin1.alterClientQuotas([
    { entity: [{ entityType: 'user', name: user }], ops: [{ key: 'consumer_byte_rate', value: 5000 }] },
  ]);
  const { config } = await readJson(`/config/users/${user}`);
  assert.deepEqual(Object.keys(config).sort(), ['SCRAM-SHA-256', 'consumer_byte_rate']);
  const creds = await admin2.describeUserScramCredentials([user]);
  assert.deepEqual(
    creds.flatMap((c) => c.credentials.map((x) => x.mechanism)),
    ['SCRAM-SHA-256'],
  );
  const quotas = await admin2.describeClientQuotas({
    components: [{ entityType: 'user', matchType: 'exact', match: user }],
    strict: true,
  });
  assert.deepEqual(
    quotas.map((q) => q.values),
    [{ consumer_byte_rate: 5000 }],
    'no SCRAM key among the quotas',
  );
});
