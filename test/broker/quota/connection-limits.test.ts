// max.connections.per.ip (+ overrides) and max.connections, as Kafka's ConnectionQuotas: a
// connection past its address's limit is closed at once while the others keep working; past the
// broker-wide limit a new connection waits (unread) until another one closes; limits are dynamic.

import assert from 'node:assert/strict';
import { connect, type Socket } from 'node:net';
import { afterEach, test } from 'node:test';
import { Admin } from '../../../src/client/index.js';
import { startTestBroker, type TestBroker } from '../../../src/testkit/index.js';
import { scaled, TestTimeoutError } from '../../support/timeouts.js';

let broker: TestBroker | undefined;
const sockets: Socket[] = [];
afterEach(async () => {
  for (const s of sockets.splice(0)) s.destroy();
  await broker?.close();
  broker = undefined;
});

/** ApiVersions v0 request frame (correlation id `id`). */
function apiVersions(id: number): Buffer {
  const body = Buffer.alloc(4 + 2 + 2 + 4 + 2);
  body.writeInt32BE(10, 0);
  body.writeInt16BE(18, 4);
  body.writeInt16BE(0, 6);
  body.writeInt32BE(id, 8);
  body.writeInt16BE(-1, 12);
  return body;
}

interface Probe {
  readonly socket: Socket;
  /** Resolves 'answered' on a response, 'closed' when the broker closes first. */
  ask(id: number, ms?: number): Promise<'answered' | 'closed' | 'silent'>;
}

async function open(port: number): Promise<Probe> {
  const socket = connect({ host: '127.0.0.1', port });
  sockets.push(socket);
  socket.on('error', () => {});
  await new Promise<void>((resolve, reject) => {
    socket.once('connect', resolve);
    socket.once('error', reject);
  });
  let closed = false;
  socket.once('close', () => {
    closed = true;
  });
  return {
    socket,
    ask(id, ms = scaled(5000)) {
      return new Promise((resolve) => {
        if (closed) return resolve('closed');
        const timer = setTimeout(() => done('silent'), ms);
        const done = (r: 'answered' | 'closed' | 'silent') => {
          clearTimeout(timer);
          socket.off('data', onData);
          socket.off('close', onClose);
          resolve(r);
        };
        const onData = () => done('answered');
        const onClose = () => done('closed');
        socket.on('data', onData);
        socket.once('close', onClose);
        socket.write(apiVersions(id), () => {});
      });
    },
  };
}

async function waitFor(what: string, cond: () => boolean, ms = scaled(10_000)): Promise<void> {
  const deadline = Date.now() + ms;
  while (!cond()) {
    if (Date.now() > deadline) throw new TestTimeoutError(what, ms);
    await new Promise((r) => setTimeout(r, 20));
  }
}

test('max.connections.per.ip: the extra connection is closed, the others keep working', async () => {
  broker = await startTestBroker({ overrides: { 'max.connections.per.ip': 2 } });
  const a = await open(broker.port);
  const b = await open(broker.port);
  assert.equal(await a.ask(1), 'answered');
  assert.equal(await b.ask(1), 'answered');
  const c = await open(broker.port);
  assert.equal(await c.ask(1), 'closed');
  assert.equal(await a.ask(2), 'answered');
  // one closes: a new one fits again
  a.socket.destroy();
  await new Promise((r) => setTimeout(r, 100));
  const d = await open(broker.port);
  assert.equal(await d.ask(1), 'answered');
});

test('max.connections.per.ip.overrides for 127.0.0.1 wins, and changes dynamically', async () => {
  broker = await startTestBroker({
    overrides: { 'max.connections.per.ip': 1, 'max.connections.per.ip.overrides': '127.0.0.1:3' },
  });
  const probes = [await open(broker.port), await open(broker.port), await open(broker.port)];
  for (const p of probes) assert.equal(await p.ask(1), 'answered');
  assert.equal(await (await open(broker.port)).ask(1), 'closed');
  for (const p of probes) p.socket.destroy();
  await new Promise((r) => setTimeout(r, 100));

  const admin = new Admin({ bootstrapServers: broker.bootstrap });
  try {
    // the admin's own connection counts too: allow it and one more
    await admin.incrementalAlterConfigs([
      {
        type: 'broker',
        name: '',
        ops: [{ key: 'max.connections.per.ip.overrides', op: 'set', value: 'localhost:2' }],
      },
    ]);
    await new Promise((r) => setTimeout(r, scaled(500)));
    const one = await open(broker.port);
    assert.equal(await one.ask(1), 'answered');
    assert.equal(await (await open(broker.port)).ask(1), 'closed');
  } finally {
    await admin.close();
  }
});

test('max.connections: a connection past the limit waits until another closes', async () => {
  broker = await startTestBroker({ overrides: { 'max.connections': 2 } });
  const a = await open(broker.port);
  const b = await open(broker.port);
  assert.equal(await a.ask(1), 'answered');
  assert.equal(await b.ask(1), 'answered');
  const c = await open(broker.port);
  assert.equal(await c.ask(1, 500), 'silent', 'parked, not refused');
  b.socket.destroy();
  // the parked connection is admitted and its request (sent while parked) answered
  await waitFor('the parked request to be answered', () => c.socket.bytesRead > 0);
  assert.equal(await c.ask(2), 'answered');
  assert.equal(await a.ask(2), 'answered');
});
