// How a connection reads and writes, over real sockets: plain TCP sockets read into the framer's
// own buffers (and TLS ones keep Node's chunks), frames of every size around the direct-read
// threshold arrive intact in whatever pieces TCP delivers them, a half-closed client gets every
// answer, and pipelined responses that finish together leave in one write.

import assert from 'node:assert/strict';
import { connect, createServer, type Server, Socket } from 'node:net';
import { afterEach, test } from 'node:test';
import { createServer as createTlsServer, connect as tlsConnect } from 'node:tls';
import { silentLogger } from '../../src/broker/logger.js';
import type { RequestHandler } from '../../src/broker/network/connection.js';
import { DIRECT_READ_MIN, STAGING_BYTES } from '../../src/broker/network/frame-reader.js';
import { readIntoOwnBuffers } from '../../src/broker/network/socket-reads.js';
import { SocketServer } from '../../src/broker/network/socket-server.js';
import { makeTestCerts } from '../support/tls-certs.js';
import { RawClient } from './support/raw-client.js';

const closers: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  while (closers.length) await closers.pop()!();
});

function listen(server: Server): Promise<number> {
  closers.push(() => new Promise<void>((r) => server.close(() => r())));
  return new Promise((resolve) =>
    server.listen(0, '127.0.0.1', () => resolve((server.address() as { port: number }).port)),
  );
}

/** Answers each frame with its length and the sum of its bytes, so corruption shows. */
const digest: RequestHandler = {
  canPipeline: () => true,
  async handle(f) {
    let sum = 0;
    for (const b of f) sum = (sum + b) | 0;
    const r = Buffer.alloc(12);
    r.writeInt32BE(8, 0);
    r.writeInt32BE(f.length, 4);
    r.writeInt32BE(sum, 8);
    return { kind: 'respond', chunks: [r] };
  },
};

async function serve(handler: RequestHandler): Promise<SocketServer> {
  const s = new SocketServer({
    host: '127.0.0.1',
    port: 0,
    maxRequestBytes: 1 << 22,
    queuedMaxRequestBytes: 0,
    idleMs: 60_000,
    maxConnections: 1000,
    handler,
    logger: silentLogger,
  });
  await s.listen();
  closers.push(() => s.close());
  return s;
}

function body(n: number, seed: number): Buffer {
  const b = Buffer.alloc(n);
  for (let i = 0; i < n; i++) b[i] = (seed * 13 + i * 101) & 0xff;
  return b;
}

function sized(b: Buffer): Buffer {
  const p = Buffer.alloc(4);
  p.writeInt32BE(b.length, 0);
  return Buffer.concat([p, b]);
}

function expectedDigest(b: Buffer): [number, number] {
  let sum = 0;
  for (const x of b) sum = (sum + x) | 0;
  return [b.length, sum];
}

test('a plain TCP socket a server accepted reads into buffers of our choosing', async () => {
  const mine = Buffer.alloc(16);
  const got: Buffer[] = [];
  let installed: boolean | undefined;
  const done = new Promise<void>((resolve) => {
    const server = createServer((socket) => {
      installed = readIntoOwnBuffers(
        socket,
        () => mine,
        (n, buf) => {
          assert.equal(buf, mine);
          got.push(Buffer.from(buf.subarray(0, n)));
          return true;
        },
      );
      socket.on('data', () => assert.fail('no data events once reads go to our buffers'));
      socket.on('end', () => {
        socket.end();
        resolve();
      });
    });
    void listen(server).then((port) => {
      const c = connect(port, '127.0.0.1', () => c.end(Buffer.from('hello, world: more than 16 bytes')));
    });
  });
  await done;
  assert.equal(
    installed,
    true,
    'this Node supports the hook; without it connections fall back to data events',
  );
  assert.equal(Buffer.concat(got).toString(), 'hello, world: more than 16 bytes');
  assert.ok(got.every((b) => b.length <= 16));
});

test('a TLS socket keeps its data events', async () => {
  const certs = makeTestCerts();
  closers.push(() => certs.remove());
  let installed: boolean | undefined;
  const received = new Promise<string>((resolve) => {
    const server = createTlsServer(
      { key: certs.read(certs.brokerKey), cert: certs.read(certs.brokerCert) },
      (socket) => {
        installed = readIntoOwnBuffers(
          socket as unknown as Socket,
          () => Buffer.alloc(8),
          () => true,
        );
        socket.on('data', (d: Buffer) => {
          socket.end();
          resolve(d.toString());
        });
      },
    );
    void listen(server as unknown as Server).then((port) => {
      const c = tlsConnect(
        { port, host: '127.0.0.1', ca: certs.read(certs.caCert), servername: 'localhost' },
        () => c.write('over tls'),
      );
      c.on('error', () => {});
    });
  });
  assert.equal(await received, 'over tls');
  assert.equal(installed, false);
});

test('frames around the direct-read threshold, sent in odd pieces, arrive intact and in order', async () => {
  const s = await serve(digest);
  const sizes = [
    0,
    1,
    7,
    DIRECT_READ_MIN - 1,
    DIRECT_READ_MIN,
    DIRECT_READ_MIN + 1,
    STAGING_BYTES - 4,
    STAGING_BYTES,
    STAGING_BYTES + 3,
    3 * STAGING_BYTES + 11,
    1 << 20,
    5,
  ];
  const bodies = sizes.map((n, i) => body(n, i));
  const stream = Buffer.concat(bodies.map(sized));
  const c = await RawClient.connect(s.port);
  // Pieces of a prime size, a few at a time, so that TCP reads cut frames anywhere.
  for (let pos = 0; pos < stream.length; pos += 65_537) {
    c.send(stream.subarray(pos, pos + 65_537));
    if ((pos / 65_537) % 3 === 2) await new Promise((r) => setImmediate(r));
  }
  for (const b of bodies) {
    const f = await c.nextFrame();
    assert.ok(f, 'answered');
    assert.deepEqual([f.readInt32BE(0), f.readInt32BE(4)], expectedDigest(b));
  }
  c.close();
});

test('a client that sends its requests and half-closes gets every answer, then the close', async () => {
  const s = await serve(digest);
  const bodies = Array.from({ length: 50 }, (_, i) => body(i * 997, i));
  const c = await RawClient.connect(s.port);
  c.socket.end(Buffer.concat(bodies.map(sized)));
  for (const b of bodies) {
    const f = await c.nextFrame();
    assert.ok(f, 'answered before the close');
    assert.deepEqual([f.readInt32BE(0), f.readInt32BE(4)], expectedDigest(b));
  }
  assert.equal(await c.waitClosed(), true);
});

test('pipelined responses that finish in the same tick leave in one write', async () => {
  const s = await serve(digest);
  const writes: number[] = [];
  const original = Socket.prototype._writev;
  const originalWrite = Socket.prototype._write;
  // Counts the writes of this server's side of the connection.
  Socket.prototype._writev = function (this: Socket, chunks, cb) {
    if (this.localPort === s.port) writes.push(chunks.length);
    return original!.call(this, chunks, cb);
  };
  Socket.prototype._write = function (this: Socket, chunk, encoding, cb) {
    if (this.localPort === s.port) writes.push(1);
    return originalWrite.call(this, chunk, encoding, cb);
  };
  closers.push(() => {
    Socket.prototype._writev = original;
    Socket.prototype._write = originalWrite;
  });
  const c = await RawClient.connect(s.port);
  const n = 200;
  c.send(Array.from({ length: n }, (_, i) => sized(body(10, i))));
  for (let i = 0; i < n; i++) assert.ok(await c.nextFrame(), 'answered');
  c.close();
  // All 200 arrive in one read, their handlers finish in the same tick: one writev carries them.
  // TCP may split the client's write, so allow a few; one write per response would be 200.
  assert.ok(writes.length <= 10, `${writes.length} writes for ${n} responses: ${writes.join(',')}`);
  assert.equal(
    writes.reduce((a, b) => a + b, 0),
    n,
  );
});
