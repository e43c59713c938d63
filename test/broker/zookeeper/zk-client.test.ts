// ZkClient against a real ZooKeeper (one server for this file, a chroot per test): the operations
// and their typed errors, the multi version-0 fencing regression, watches and subscriptions,
// chroot isolation, connect timeouts.

import assert from 'node:assert/strict';
import { createServer } from 'node:net';
import { after, afterEach, before, test } from 'node:test';
import { ZkClient, type ZkWatchEvent } from '../../../src/broker/metadata/zookeeper/zk-client.js';
import { isZkError, ZkError, ZkMultiError } from '../../../src/broker/metadata/zookeeper/zk-errors.js';
import { ZK_ANY_VERSION } from '../../../src/broker/metadata/zookeeper/zk-multi.js';
import { watchChildren, watchData } from '../../../src/broker/metadata/zookeeper/zk-watch.js';
import { startTestZooKeeper, type TestZooKeeper } from '../../../src/testkit/zookeeper.js';
import { buf, Clients, eventually, LIVENESS_MS } from './helpers.js';

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

async function fresh(): Promise<ZkClient> {
  return clients.connect(await zk.chroot(), { sessionTimeoutMs: 6000 });
}

async function rejectsWith(p: Promise<unknown>, code: string): Promise<ZkError> {
  try {
    await p;
  } catch (e) {
    assert.ok(e instanceof ZkError, `expected a ZkError, got ${String(e)}`);
    assert.equal(e.code, code, e.message);
    return e;
  }
  assert.fail(`expected ${code}, but it succeeded`);
}

test('create, getData, setData, exists, getChildren, delete with stats and typed errors', async () => {
  const c = await fresh();
  assert.equal(c.state, 'CONNECTED');
  assert.notEqual(c.sessionId, 0n);
  assert.match(c.sessionIdHex, /^0x[0-9a-f]+$/);
  const before = Date.now();
  assert.equal(await c.create('/a', buf('one')), '/a');
  const { data, stat } = await c.getData('/a');
  assert.equal(data?.toString(), 'one');
  assert.equal(stat.version, 0);
  assert.equal(stat.ephemeralOwner, 0n);
  assert.ok(stat.czxid > 0n);
  assert.equal(stat.dataLength, 3);
  assert.ok(
    stat.ctime >= before - 60_000 && stat.ctime <= Date.now() + 60_000,
    'ctime is ms since the epoch',
  );

  const s1 = await c.setData('/a', buf('two'), 0);
  assert.equal(s1.version, 1);
  assert.ok(s1.mzxid > stat.mzxid);
  await rejectsWith(c.setData('/a', buf('x'), 0), 'BAD_VERSION');
  assert.equal((await c.setData('/a', buf('three'), ZK_ANY_VERSION)).version, 2);

  assert.equal(await c.create('/empty'), '/empty');
  assert.equal((await c.getData('/empty')).data, null, 'a znode created without data reads as null');

  const e = await rejectsWith(c.create('/a', buf('dup')), 'NODE_EXISTS');
  assert.equal(e.path, '/a');
  await rejectsWith(c.getData('/missing'), 'NO_NODE');
  await rejectsWith(c.create('/missing/child'), 'NO_NODE');
  assert.equal(await c.exists('/missing'), null);
  assert.equal((await c.exists('/a'))?.version, 2);

  await c.create('/a/x');
  await c.create('/a/y');
  assert.deepEqual((await c.getChildren('/a')).sort(), ['x', 'y']);
  await rejectsWith(c.delete('/a', ZK_ANY_VERSION), 'NOT_EMPTY');
  await rejectsWith(c.delete('/a/x', 5), 'BAD_VERSION');
  await c.delete('/a/x', 0);
  await rejectsWith(c.delete('/a/x', ZK_ANY_VERSION), 'NO_NODE');
  await rejectsWith(c.getData('bad-path'), 'BAD_ARGUMENTS');
});

test('createParents, ensurePersistentPath, sequential nodes, deleteRecursive', async () => {
  const c = await fresh();
  assert.equal(await c.create('/x/y/z', buf('deep'), { createParents: true }), '/x/y/z');
  assert.equal((await c.getData('/x/y')).data, null);
  assert.equal((await c.getData('/x/y/z')).data?.toString(), 'deep');
  // An existing ancestor chain is fine; an existing target is still an error.
  assert.equal(await c.create('/x/y/w', null, { createParents: true }), '/x/y/w');
  await rejectsWith(c.create('/x/y/z', null, { createParents: true }), 'NODE_EXISTS');
  await c.ensurePersistentPath('/x/y/z');
  await c.ensurePersistentPath('/p/q/r');
  assert.notEqual(await c.exists('/p/q/r'), null);

  await c.create('/seq');
  const a = await c.create('/seq/n_', buf('1'), { mode: 'PERSISTENT_SEQUENTIAL' });
  const b = await c.create('/seq/n_', buf('2'), { mode: 'PERSISTENT_SEQUENTIAL' });
  assert.match(a, /^\/seq\/n_\d{10}$/);
  assert.ok(b > a, `${b} after ${a}`);

  assert.equal(await c.deleteRecursive('/x'), true);
  assert.equal(await c.exists('/x'), null);
  assert.equal(await c.deleteRecursive('/x'), false);
});

test('multi: atomic, results per op, the failing op named', async () => {
  const c = await fresh();
  await c.create('/m', buf('0'));
  await c.create('/gone');
  const results = await c.multi([
    { type: 'check', path: '/m', version: 0 },
    { type: 'create', path: '/m/child', data: buf('c') },
    { type: 'setData', path: '/m', data: buf('1'), version: 0 },
    { type: 'delete', path: '/gone', version: 0 },
  ]);
  assert.deepEqual(
    results.map((r) => r.type),
    ['check', 'create', 'setData', 'delete'],
  );
  assert.deepEqual(results[1], { type: 'create', path: '/m/child' });
  assert.equal(results[2]?.type === 'setData' && results[2].stat.version, 1);
  assert.equal(await c.exists('/gone'), null);

  // The second op fails: nothing of the multi is applied.
  const e = await rejectsWith(
    c.multi([
      { type: 'create', path: '/new', data: buf('n') },
      { type: 'create', path: '/m/child' },
      { type: 'setData', path: '/m', data: buf('2'), version: ZK_ANY_VERSION },
    ]),
    'NODE_EXISTS',
  );
  assert.ok(e instanceof ZkMultiError);
  assert.equal(e.failedOpIndex, 1);
  assert.equal(e.path, '/m/child');
  assert.equal(e.opCodes[0], 'OK');
  assert.equal(await c.exists('/new'), null, 'the first op was rolled back');
  assert.equal((await c.getData('/m')).data?.toString(), '1');
});

test('multi regression: an expected version 0 is enforced (the library would send "any version")', async () => {
  const c = await fresh();
  await c.create('/v', buf('a'));
  await c.setData('/v', buf('b'), 0); // now at version 1
  for (const op of [
    { type: 'check', path: '/v', version: 0 },
    { type: 'setData', path: '/v', data: buf('fenced?'), version: 0 },
    { type: 'delete', path: '/v', version: 0 },
  ] as const) {
    const e = await rejectsWith(c.multi([op]), 'BAD_VERSION');
    assert.ok(e instanceof ZkMultiError && e.failedOpIndex === 0, op.type);
  }
  // Fencing a write on another znode, as the controller does with /controller_epoch:
  await c.create('/target', buf('t'));
  await rejectsWith(
    c.multi([
      { type: 'check', path: '/v', version: 0 },
      { type: 'setData', path: '/target', data: buf('stale write'), version: ZK_ANY_VERSION },
    ]),
    'BAD_VERSION',
  );
  assert.equal((await c.getData('/target')).data?.toString(), 't');
  assert.equal((await c.getData('/v')).data?.toString(), 'b');
  // And version 0 against a znode at version 0 passes.
  await c.create('/zero');
  await c.multi([
    { type: 'check', path: '/zero', version: 0 },
    { type: 'setData', path: '/zero', data: buf('z'), version: 0 },
  ]);
  assert.equal((await c.getData('/zero')).stat.version, 1);
  await rejectsWith(c.multi([{ type: 'check', path: '/zero', version: 1.5 }]), 'BAD_ARGUMENTS');
});

test('one-shot watches: data, existence, children, deletion', async () => {
  const c = await fresh();
  const other = await clients.connect(c.connectString);
  const events: ZkWatchEvent[] = [];
  const record = (e: ZkWatchEvent) => events.push(e);

  assert.equal(await c.exists('/w', { watch: record }), null);
  await other.create('/w', buf('1'));
  await eventually('NODE_CREATED', () => events.some((e) => e.type === 'NODE_CREATED' && e.path === '/w'));

  await c.getData('/w', { watch: record });
  await other.setData('/w', buf('2'), ZK_ANY_VERSION);
  await eventually('NODE_DATA_CHANGED', () => events.some((e) => e.type === 'NODE_DATA_CHANGED'));
  // One-shot: a second change is not reported without a new registration.
  await other.setData('/w', buf('3'), ZK_ANY_VERSION);

  await c.getChildren('/w', { watch: record });
  await other.create('/w/kid');
  await eventually('NODE_CHILDREN_CHANGED', () => events.some((e) => e.type === 'NODE_CHILDREN_CHANGED'));

  await c.getData('/w/kid', { watch: record });
  await other.delete('/w/kid', ZK_ANY_VERSION);
  await eventually('NODE_DELETED', () =>
    events.some((e) => e.type === 'NODE_DELETED' && e.path === '/w/kid'),
  );

  // A sync barrier on the watching client: everything fired by now has been delivered.
  await c.getData('/w');
  await new Promise((r) => setTimeout(r, 200));
  assert.equal(events.filter((e) => e.type === 'NODE_DATA_CHANGED').length, 1, JSON.stringify(events));
});

test('subscriptions re-register: watchData and watchChildren follow every change', async () => {
  const c = await fresh();
  const other = await clients.connect(c.connectString);
  const seen: (string | null)[] = [];
  const sub = watchData(c, '/s', (v) => seen.push(v === null ? null : (v.data?.toString() ?? '')));
  const kids: (string[] | null)[] = [];
  const subKids = watchChildren(c, '/s', (v) => kids.push(v));
  try {
    await eventually('initial null', () => seen.length >= 1 && kids.length >= 1);
    assert.equal(seen[0], null);
    assert.equal(kids[0], null);
    await other.create('/s', buf('a'));
    await eventually('a', () => seen.at(-1) === 'a');
    await other.setData('/s', buf('b'), ZK_ANY_VERSION);
    await eventually('b', () => seen.at(-1) === 'b');
    await other.create('/s/k1');
    await eventually('children [k1]', () => JSON.stringify(kids.at(-1)) === '["k1"]');
    await other.create('/s/k2');
    await eventually('children [k1,k2]', () => JSON.stringify(kids.at(-1)) === '["k1","k2"]');
    await other.deleteRecursive('/s');
    await eventually('deleted', () => seen.at(-1) === null && kids.at(-1) === null);
    await other.create('/s', buf('again'));
    await eventually('re-created', () => seen.at(-1) === 'again');
  } finally {
    sub.close();
    subKids.close();
  }
});

test('chroots isolate: same paths, separate trees; a missing chroot is created on request', async () => {
  const a = await clients.connect(await zk.chroot('iso'));
  const b = await clients.connect(await zk.chroot('iso'));
  await a.create('/brokers/ids/1', buf('A'), { createParents: true });
  await b.create('/brokers/ids/1', buf('B'), { createParents: true });
  assert.equal((await a.getData('/brokers/ids/1')).data?.toString(), 'A');
  assert.equal((await b.getData('/brokers/ids/1')).data?.toString(), 'B');
  assert.ok(a.chroot !== null && a.chroot !== b.chroot);
  const root = await clients.connect(zk.connectString);
  assert.equal((await root.getData(`${a.chroot}/brokers/ids/1`)).data?.toString(), 'A');
  assert.equal(await root.exists('/brokers'), null, 'nothing leaked to the real root');

  // Watch events and created paths come back relative to the chroot.
  const events: ZkWatchEvent[] = [];
  await a.exists('/w', { watch: (e) => events.push(e) });
  assert.equal(
    await a.create('/seq-', null, { mode: 'EPHEMERAL_SEQUENTIAL' }).then((p) => p.startsWith('/seq-')),
    true,
  );
  await a.create('/w');
  await eventually('chroot-relative event', () => events.find((e) => e.path === '/w'));

  const missing = `${zk.connectString}/never-created-${Date.now()}`;
  const lost = await clients.connect(missing);
  await rejectsWith(lost.create('/x'), 'NO_NODE');
  const made = await clients.connect(`${missing}/deeper`, { createChroot: true });
  assert.equal(await made.create('/x'), '/x');
  assert.notEqual(await root.exists(`${made.chroot}/x`), null);
});

test('connect fails after connectionTimeoutMs with an error naming the hosts', async () => {
  // A port nobody listens on: bind one, learn it, close it.
  const port = await new Promise<number>((resolve) => {
    const s = createServer().listen(0, '127.0.0.1', () => {
      const p = (s.address() as { port: number }).port;
      s.close(() => resolve(p));
    });
  });
  const start = Date.now();
  const e = await rejectsWith(
    ZkClient.connect(`127.0.0.1:${port}/chroot`, { connectionTimeoutMs: 1500, sessionTimeoutMs: 4000 }),
    'CONNECT_TIMEOUT',
  );
  assert.ok(Date.now() - start >= 1400, 'waited for the timeout');
  assert.ok(Date.now() - start < LIVENESS_MS, 'and not forever');
  assert.match(e.message, new RegExp(`127\\.0\\.0\\.1:${port}`));
  assert.match(e.message, /1500 ms/);

  // A host list with a dead entry still connects through the live one.
  const both = await clients.connect(`127.0.0.1:${port},${zk.connectString}`, { sessionTimeoutMs: 4000 });
  assert.equal(both.hosts, `127.0.0.1:${port},${zk.connectString}`);
  assert.notEqual(await both.exists('/'), null);

  await assert.rejects(ZkClient.connect(''), /invalid ZooKeeper connect string/);
  await assert.rejects(ZkClient.connect('host:99999'), /bad port/);
  await assert.rejects(ZkClient.connect('127.0.0.1:2181/chroot/'), /must not end with/);
});

test('close: further requests fail with CLOSED; close is idempotent', async () => {
  const c = await fresh();
  await c.create('/e', null, { mode: 'EPHEMERAL' });
  let resolveWatch: (e: ZkWatchEvent) => void = () => {};
  const pendingWatch = new Promise<ZkWatchEvent>((resolve) => {
    resolveWatch = resolve;
  });
  assert.equal(await c.exists('/nothing', { watch: (e) => resolveWatch(e) }), null);
  await c.close();
  await c.close();
  assert.equal(c.state, 'CLOSED');
  await rejectsWith(c.getData('/e'), 'CLOSED');
  assert.equal((await pendingWatch).type, 'CLOSED');
  await rejectsWith(c.waitUntilConnected(), 'CLOSED');
  assert.ok(isZkError(await c.exists('/e').catch((e: unknown) => e), 'CLOSED'));
});
