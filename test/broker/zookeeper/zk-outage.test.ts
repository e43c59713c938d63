// ZooKeeper outages (this file's own server, since it stops and kills it): a server that stops
// answering is noticed by the read timeout, requests fail with CONNECTION_LOSS, the client comes
// back when the server does; a checked ephemeral create sent into the outage ends owned by the
// client's session whichever way the outage went; the client survives a server crash + restart.

import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import type { ZkClient } from '../../../src/broker/metadata/zookeeper/zk-client.js';
import {
  createEphemeralChecked,
  retryUntilConnected,
} from '../../../src/broker/metadata/zookeeper/zk-ephemeral.js';
import { isZkError } from '../../../src/broker/metadata/zookeeper/zk-errors.js';
import { startTestZooKeeper, type TestZooKeeper } from '../../../src/testkit/zookeeper.js';
import { buf, Clients, LIVENESS_MS, waitFor } from './helpers.js';

let zk: TestZooKeeper;
const clients = new Clients();

before(async () => {
  zk = await startTestZooKeeper();
});
after(async () => {
  if (zk) process.kill(zk.pid, 'SIGCONT');
  await clients.closeAll();
  await zk?.stop();
});

async function client(): Promise<ZkClient> {
  return clients.connect(await zk.chroot('outage'), { sessionTimeoutMs: 4000 });
}

test('a stopped server is noticed, requests fail with CONNECTION_LOSS, the client comes back', async () => {
  const c = await client();
  await c.create('/before', buf('x'));
  const disconnected = waitFor<void>('disconnected', (cb) => c.on('disconnected', () => cb()));
  process.kill(zk.pid, 'SIGSTOP');
  try {
    // A request racing the signal may still be answered (the server ran a moment longer on a
    // loaded machine); the next one cannot be.
    let outcome = 'answered';
    for (let i = 0; i < 3 && outcome === 'answered'; i++) {
      outcome = await c.getData('/before').then(
        () => 'answered',
        (e: unknown) => (isZkError(e) ? e.code : String(e)),
      );
    }
    assert.ok(outcome === 'CONNECTION_LOSS' || outcome === 'SESSION_EXPIRED', outcome);
    await disconnected;
  } finally {
    process.kill(zk.pid, 'SIGCONT');
  }
  await c.waitUntilConnected(LIVENESS_MS);
  assert.equal((await retryUntilConnected(c, () => c.getData('/before'))).data?.toString(), 'x');
});

test('createEphemeralChecked sent into an outage ends owned by the current session', async () => {
  const c = await client();
  process.kill(zk.pid, 'SIGSTOP');
  const created = createEphemeralChecked(c, '/registration', buf('me'));
  // Long enough for the read timeout to drop the connection with the request in flight.
  await new Promise((r) => setTimeout(r, 3500));
  process.kill(zk.pid, 'SIGCONT');
  let stat: Awaited<typeof created>;
  try {
    stat = await created;
  } catch (e) {
    // The session may have expired during the outage: the caller registers again in the new one.
    assert.ok(isZkError(e, 'SESSION_EXPIRED'), String(e));
    await c.waitUntilConnected(LIVENESS_MS);
    stat = await createEphemeralChecked(c, '/registration', buf('me'));
  }
  assert.equal(stat.ephemeralOwner, c.sessionId);
  const { data, stat: now } = await c.getData('/registration');
  assert.equal(data?.toString(), 'me');
  assert.equal(now.ephemeralOwner, c.sessionId);
});

test('the client survives a server crash and restart on the same data', async () => {
  const c = await client();
  await c.create('/durable', buf('kept'));
  const pid = zk.pid;
  await zk.kill();
  await zk.restart();
  assert.notEqual(zk.pid, pid);
  await c.waitUntilConnected(LIVENESS_MS);
  const { data } = await retryUntilConnected(c, () => c.getData('/durable'));
  assert.equal(data?.toString(), 'kept');
  await retryUntilConnected(c, () => c.create('/after', null, { mode: 'EPHEMERAL' }));
});
