// Sessions against a real ZooKeeper (one server for this file, 1 s sessions): ephemerals vanish
// when their session is closed, dies with its process, or expires; an expired client renews its
// session; the checked ephemeral create (broker registration) resolves NODE_EXISTS by owner.

import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { after, afterEach, before, test } from 'node:test';
import type { ZkClient, ZkWatchEvent } from '../../../src/broker/metadata/zookeeper/zk-client.js';
import {
  brokerIdPath,
  decodeBrokerRegistration,
  encodeBrokerRegistration,
} from '../../../src/broker/metadata/zookeeper/zk-data.js';
import { createEphemeralChecked } from '../../../src/broker/metadata/zookeeper/zk-ephemeral.js';
import { ZkError } from '../../../src/broker/metadata/zookeeper/zk-errors.js';
import { expireZkSession, startTestZooKeeper, type TestZooKeeper } from '../../../src/testkit/zookeeper.js';
import { LOADER_FLAGS, moduleFile } from '../../support/repo.js';
import { buf, Clients, eventually, LIVENESS_MS, waitFor } from './helpers.js';

let zk: TestZooKeeper;
const clients = new Clients();

before(async () => {
  zk = await startTestZooKeeper();
});
afterEach(() => clients.closeAll());
after(async () => {
  await clients.closeAll();
  await zk?.stop();
});

const SESSION = { sessionTimeoutMs: 1000 };

async function pair(): Promise<[ZkClient, ZkClient]> {
  const cs = await zk.chroot('session');
  return [await clients.connect(cs, SESSION), await clients.connect(cs, SESSION)];
}

function deletion(observer: ZkClient, path: string): Promise<ZkWatchEvent> {
  return new Promise((resolve, reject) => {
    observer.exists(path, { watch: resolve }).then((stat) => {
      if (stat === null) resolve({ type: 'NODE_DELETED', path });
    }, reject);
  });
}

test('an ephemeral vanishes as soon as its session is closed', async () => {
  const [a, b] = await pair();
  await a.create('/eph', buf('a'), { mode: 'EPHEMERAL' });
  const stat = await b.exists('/eph');
  assert.equal(stat?.ephemeralOwner, a.sessionId);
  const gone = deletion(b, '/eph');
  await a.close();
  assert.equal((await gone).type, 'NODE_DELETED');
});

test('an ephemeral vanishes when its process dies (session timeout)', async () => {
  const [, b] = await pair();
  const clientModule = moduleFile('src/broker/metadata/zookeeper/zk-client.ts');
  const script = `
    const { ZkClient } = await import(${JSON.stringify(clientModule)});
    const c = await ZkClient.connect(${JSON.stringify(b.connectString)}, { sessionTimeoutMs: 1000, connectionTimeoutMs: 30000 });
    await c.create('/dying', null, { mode: 'EPHEMERAL' });
    process.stdout.write('ready\\n');
    setInterval(() => {}, 1000);
  `;
  const child = spawn(process.execPath, [...LOADER_FLAGS, '--input-type=module', '-e', script], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  try {
    await waitFor<string>(
      'the child to register',
      (cb) => child.stdout.on('data', (d: Buffer) => cb(d.toString())),
      (s) => s.includes('ready'),
    );
    const gone = deletion(b, '/dying');
    child.kill('SIGKILL');
    assert.equal((await gone).type, 'NODE_DELETED');
  } finally {
    child.kill('SIGKILL');
  }
});

test('an expired session: ephemerals and watches go, the client renews its session', async () => {
  const [a, b] = await pair();
  await a.create('/eph', null, { mode: 'EPHEMERAL' });
  const watchEvent = new Promise<ZkWatchEvent>((resolve) => {
    void a.exists('/never', { watch: resolve });
  });
  await a.getData('/eph'); // the watch above is registered once this answers
  const old = a.sessionId;
  const expired = waitFor<bigint>('expired', (cb) => a.on('expired', cb));
  const renewed = waitFor<bigint>('newSession', (cb) => a.on('newSession', cb));
  const gone = deletion(b, '/eph');

  await expireZkSession(a);
  assert.equal(await expired, old);
  assert.equal((await watchEvent).type, 'SESSION_EXPIRED');
  assert.equal((await gone).type, 'NODE_DELETED');
  const fresh = await renewed;
  assert.notEqual(fresh, old);
  assert.equal(a.sessionId, fresh);
  assert.deepEqual(a.sessionIds, [old, fresh]);
  await a.waitUntilConnected(LIVENESS_MS);
  assert.equal(a.state, 'CONNECTED');
  await a.create('/eph', null, { mode: 'EPHEMERAL' });
  assert.equal((await b.exists('/eph'))?.ephemeralOwner, fresh);
});

test('without renewal an expired client fails with SESSION_EXPIRED', async () => {
  const cs = await zk.chroot('session');
  const a = await clients.connect(cs, { ...SESSION, renewExpiredSession: false });
  await expireZkSession(a);
  assert.equal(a.state, 'EXPIRED');
  await assert.rejects(a.getData('/'), (e) => e instanceof ZkError && e.code === 'SESSION_EXPIRED');
  await assert.rejects(a.waitUntilConnected(), (e) => e instanceof ZkError && e.code === 'SESSION_EXPIRED');
});

test('createEphemeralChecked: the broker registration, its retries and its conflicts', async () => {
  const [a, b] = await pair();
  await a.ensurePersistentPath('/brokers/ids');
  const reg = encodeBrokerRegistration(
    {
      endpoints: [
        { listenerName: 'PLAINTEXT', host: '127.0.0.1', port: 9092, securityProtocol: 'PLAINTEXT' },
      ],
    },
    1_700_000_000_000,
  );
  const path = brokerIdPath(1);
  const stat = await createEphemeralChecked(a, path, reg);
  assert.equal(stat.ephemeralOwner, a.sessionId);
  assert.ok(stat.czxid > 0n, 'czxid is the broker epoch');
  assert.equal(stat.version, 1, 'create + setData(version 0) in one multi');
  const got = await b.getData(path);
  assert.deepEqual(decodeBrokerRegistration(1, got.data).endpoints, [
    { listenerName: 'PLAINTEXT', host: '127.0.0.1', port: 9092, securityProtocol: 'PLAINTEXT' },
  ]);

  // What a create retried after CONNECTION_LOSS meets: NODE_EXISTS, owned by this very session.
  const again = await createEphemeralChecked(a, path, reg);
  assert.equal(again.czxid, stat.czxid);

  // Another session (another broker with the same id) is refused, naming the owner.
  await assert.rejects(
    createEphemeralChecked(b, path, reg),
    (e) => e instanceof ZkError && e.code === 'NODE_EXISTS' && e.message.includes(a.sessionIdHex),
  );
  await b.create('/persistent');
  await assert.rejects(createEphemeralChecked(b, '/persistent', reg), /persistent/);

  // After an expiry the server removed the registration; registering again takes the new session.
  const renewed = waitFor<bigint>('newSession', (cb) => a.on('newSession', cb));
  await expireZkSession(a);
  await renewed;
  await eventually('registration removed', async () => (await b.exists(path)) === null);
  const restat = await createEphemeralChecked(a, path, reg);
  assert.equal(restat.ephemeralOwner, a.sessionId);
  assert.ok(restat.czxid > stat.czxid, 'a new broker epoch');
});
