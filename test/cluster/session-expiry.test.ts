// Metadata-store session expiry (issue 15), with real brokers in this process over one in-memory
// metadata service (ZooKeeper's session semantics, no ZooKeeper): a broker whose session expired
// refuses writes as leader at once, registers again, and takes writes again once the controller
// has spoken for its new registration — also when that controller, elected after the expiry,
// finds it registered already and so re-sends its leadership unchanged (same leader epoch): the
// state that left a whole cluster refusing writes for good after ZooKeeper came back
// (failures.test.ts, "ZooKeeper down for a while"). A re-registration that fails is retried.
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, test } from 'node:test';
import { type BrokerHandle, startBroker } from '../../src/broker/broker.js';
import {
  MemoryMetadataService,
  type MemoryMetadataStore,
} from '../../src/broker/metadata/store/memory-store.js';
import { Admin, Producer } from '../../src/client/index.js';
import { ErrorCode } from '../../src/protocol/errors.js';
import { encodeRecordBatchSync } from '../../src/protocol/record-batch/encode.js';
import { produceTo, waitUntil } from '../broker/replica/support/cluster.js';
import { scaled } from '../support/timeouts.js';

const SESSION_MS = 1000;
const TOPIC = 'expiry';

interface Member {
  readonly store: MemoryMetadataStore;
  readonly broker: BrokerHandle;
  readonly dataDir: string;
}

let service: MemoryMetadataService;
const members = new Map<number, Member>();
const events: { nodeId: number; level: string; msg: string; fields?: Readonly<Record<string, unknown>> }[] =
  [];
const logged = (nodeId: number, msg: string, why: string) =>
  events.some((e) => e.nodeId === nodeId && e.msg === msg && e.fields?.why === why);

afterEach(async () => {
  for (const m of members.values()) await m.broker.close().catch(() => {});
  for (const m of members.values()) await rm(m.dataDir, { recursive: true, force: true });
  members.clear();
  events.length = 0;
});

/** `storeSessionMs`: how long the service keeps the session of a store that is cut off. */
async function startCluster(storeSessionMs = SESSION_MS): Promise<void> {
  service = new MemoryMetadataService({ sessionTimeoutMs: storeSessionMs });
  for (const id of [1, 2, 3]) {
    const store = service.connect();
    const dataDir = await mkdtemp(join(tmpdir(), `samsa-expiry-${id}-`));
    const broker = await startBroker({
      host: '127.0.0.1',
      port: 0,
      dataDir,
      nodeId: id,
      overrides: {
        'auto.create.topics.enable': false,
        'zookeeper.session.timeout.ms': SESSION_MS,
        'min.insync.replicas': 1,
        // Leaders stay where the test put them (no move back to the preferred replica).
        'auto.leader.rebalance.enable': false,
      },
      metadataStore: store,
      logger: { log: (level, msg, fields) => events.push({ nodeId: id, level, msg, fields }) },
    });
    members.set(id, { store, broker, dataDir });
  }
  const admin = new Admin({ bootstrapServers: bootstrap() });
  try {
    await admin.createTopics([{ name: TOPIC, numPartitions: 3, replicationFactor: 3 }]);
  } finally {
    await admin.close();
  }
  await everyPartitionTakesWrites('before any expiry');
}

const bootstrap = () => [...members.values()].map((m) => `127.0.0.1:${m.broker.port}`).join(',');
const member = (id: number) => members.get(id)!;

/** Node id and leader epoch of each partition's leader, as the leaders themselves see it. */
function leaders(): { partition: number; leader: number; epoch: number; fenced: boolean }[] {
  return [0, 1, 2].map((partition) => {
    for (const [id, m] of members) {
      const p = m.broker.services.replicas.get(TOPIC, partition);
      if (p?.isLeader) return { partition, leader: id, epoch: p.leaderEpoch, fenced: p.fenced };
    }
    return { partition, leader: -1, epoch: -1, fenced: false };
  });
}

const batch = (value: string) => encodeRecordBatchSync([{ key: null, value: Buffer.from(value) }]);

/** Acks=1 Produce to the broker leading `partition`: its error code (-1: no leader yet). */
async function writeTo(partition: number, value: string): Promise<number> {
  const l = leaders()[partition]!;
  if (l.leader < 0) return -1;
  return (await produceTo(member(l.leader).broker, TOPIC, partition, batch(value), 1)).errorCode;
}

async function everyPartitionTakesWrites(when: string): Promise<void> {
  let last: number[] = [];
  await waitUntil(
    `every partition's leader to take writes ${when}`,
    async () => {
      last = [];
      for (const p of [0, 1, 2]) last.push(await writeTo(p, `${when}-${p}`));
      return last.every((code) => code === ErrorCode.NONE);
    },
    60_000,
    () => `answers ${JSON.stringify(last)}, leaders ${JSON.stringify(leaders())}`,
  );
}

async function liveBrokerIds(): Promise<number[]> {
  const probe = service.connect();
  try {
    return (await probe.liveBrokers()).map((b) => b.nodeId).sort();
  } finally {
    await probe.close();
  }
}

async function controllerId(): Promise<number> {
  const probe = service.connect();
  try {
    return await probe.controllerId();
  } finally {
    await probe.close();
  }
}

/** A real client with metadata from before the change: it must be told to move on, and manage to. */
async function clientWrites(producer: Producer, what: string): Promise<void> {
  await Promise.all(
    [0, 1, 2].map((partition) => producer.send({ topic: TOPIC, partition, value: `${what}-${partition}` })),
  );
}

test('the controller loses its session, the next controller finds it registered again: its leaderships are confirmed unchanged and take writes', async () => {
  // The others are cut off from the store (within their sessions) while the controller's session
  // expires, so the next controller is elected only after it registered again, as when every
  // session expired during a ZooKeeper outage.
  await startCluster(scaled(60_000));
  const producer = new Producer({ bootstrapServers: bootstrap(), acks: 'all' });
  try {
    await clientWrites(producer, 'before');
    // The controller leads every partition: the other two brokers' sessions expire first, the
    // controller sees them bounce and moves their leaderships to itself (new leader epochs).
    const c = await controllerId();
    for (const id of [1, 2, 3].filter((i) => i !== c)) {
      service.expireSession(member(id).store);
      await waitUntil(`broker ${id} registered again`, async () => (await liveBrokerIds()).includes(id));
    }
    await waitUntil(`broker ${c} leading every partition`, () => leaders().every((l) => l.leader === c));
    await everyPartitionTakesWrites('after the followers bounced');
    const led = leaders();

    const others = [1, 2, 3].filter((i) => i !== c);
    for (const id of others) service.disconnect(member(id).store);
    service.expireSession(member(c).store);
    await waitUntil(`broker ${c} registered again`, async () => (await liveBrokerIds()).length === 3);
    for (const id of others) service.reconnect(member(id).store);
    await everyPartitionTakesWrites('after the controller session expired');
    // Nothing moved: the new controller saw it registered and re-sent the same leaderships.
    assert.deepEqual(
      leaders().map(({ leader, epoch }) => ({ leader, epoch })),
      led.map(({ leader, epoch }) => ({ leader, epoch })),
      'leaders and leader epochs unchanged',
    );
    assert.ok(
      logged(c, 'refusing writes as leader until the controller confirms', 'metadata store session expired'),
      'its leaderships were fenced on the expiry',
    );
    await clientWrites(producer, 'after');
  } finally {
    await producer.close();
  }
});

test('every session expires while the store is unreachable: after it returns, every leader takes writes again', async () => {
  await startCluster();
  const producer = new Producer({ bootstrapServers: bootstrap(), acks: 'all' });
  try {
    await clientWrites(producer, 'before');
    for (const m of members.values()) service.disconnect(m.store);
    // Past the session timeout without the store: no leader takes writes.
    await waitUntil('every leader to refuse writes', async () => {
      for (const p of [0, 1, 2])
        if ((await writeTo(p, 'cut off')) !== ErrorCode.NOT_LEADER_OR_FOLLOWER) return false;
      return true;
    });
    await waitUntil('every session to expire', async () => (await liveBrokerIds()).length === 0);
    for (const m of members.values()) service.reconnect(m.store);
    await waitUntil('every broker registered again', async () => (await liveBrokerIds()).length === 3);
    await everyPartitionTakesWrites('after the outage');
    await clientWrites(producer, 'after');
  } finally {
    await producer.close();
  }
});

test('a re-registration after a session expiry that fails is retried until the broker is registered', async () => {
  await startCluster();
  const c = await controllerId();
  const victim = [1, 2, 3].find((id) => id !== c)!;
  // The first calls of the new session fail (CONNECTION_LOSS), the registration among them.
  service.injectConnectionLoss(member(victim).store, { times: 20 });
  service.expireSession(member(victim).store);
  await waitUntil(`broker ${victim} registered again`, async () => (await liveBrokerIds()).includes(victim));
  await everyPartitionTakesWrites('after the retried registration');
});
