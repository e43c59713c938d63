// Transport tests against a tiny fake TCP server: pipelining, in-order correlation, frames split
// across chunks, timeouts, mismatches and hostile frame sizes.
import assert from 'node:assert/strict';
import net from 'node:net';
import { after, test } from 'node:test';
import { Connection } from '../../src/net/connection.js';
import { ClientClosedError, ConnectionError, RequestTimeoutError } from '../../src/net/errors.js';
import { scaled, TestTimeoutError } from '../support/timeouts.js';

type Handler = (socket: net.Socket, correlationId: number, payload: Buffer) => void;
const servers: net.Server[] = [];
after(() => {
  for (const s of servers) s.close();
});

/** Server that reads frames [size][corr][payload] and lets the test decide how to answer. */
async function fakeServer(handler: Handler): Promise<number> {
  const server = net.createServer((socket) => {
    let buf = Buffer.alloc(0);
    socket.on('data', (chunk) => {
      buf = Buffer.concat([buf, chunk]);
      while (buf.length >= 4 && buf.length >= 4 + buf.readInt32BE(0)) {
        const size = buf.readInt32BE(0);
        const frame = buf.subarray(4, 4 + size);
        buf = buf.subarray(4 + size);
        handler(socket, frame.readInt32BE(0), frame.subarray(4));
      }
    });
    socket.on('error', () => {});
  });
  servers.push(server);
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return (server.address() as net.AddressInfo).port;
}

function frame(corr: number, payload: Buffer): Buffer {
  const b = Buffer.alloc(8 + payload.length);
  b.writeInt32BE(4 + payload.length, 0);
  b.writeInt32BE(corr, 4);
  payload.copy(b, 8);
  return b;
}

function req(payload: string, opts: { expectResponse?: boolean; timeoutMs?: number } = {}) {
  return {
    build: (corr: number) => [frame(corr, Buffer.from(payload))],
    parse: (f: Buffer) => f.subarray(4).toString(),
    expectResponse: opts.expectResponse ?? true,
    timeoutMs: opts.timeoutMs,
  };
}

async function open(port: number, requestTimeoutMs = 2000): Promise<Connection> {
  const c = new Connection({ host: '127.0.0.1', port, connectTimeoutMs: 1000, requestTimeoutMs });
  await c.connect();
  return c;
}

test('pipelined requests resolve in order, also when the server answers byte by byte', async () => {
  const port = await fakeServer((socket, corr, payload) => {
    const out = frame(corr, Buffer.from(`echo:${payload}`));
    if (payload.toString() === 'slow') {
      // dribble the answer one byte at a time to exercise frame reassembly
      let i = 0;
      const t = setInterval(() => {
        socket.write(out.subarray(i, i + 1));
        if (++i === out.length) clearInterval(t);
      }, 1);
    } else socket.write(out);
  });
  const c = await open(port);
  const results = await Promise.all([c.send(req('a')), c.send(req('b')), c.send(req('c'))]);
  assert.deepEqual(results, ['echo:a', 'echo:b', 'echo:c']);
  assert.equal(await c.send(req('slow')), 'echo:slow');
  assert.equal(c.inFlight, 0);
  c.close();
});

test('many responses coalesced into one chunk are all delivered', async () => {
  const pending: Buffer[] = [];
  const port = await fakeServer((socket, corr, payload) => {
    pending.push(frame(corr, payload));
    if (pending.length === 50) socket.write(Buffer.concat(pending.splice(0)));
  });
  const c = await open(port);
  const ps = [];
  for (let i = 0; i < 50; i++) ps.push(c.send(req(`r${i}`)));
  const got = await Promise.all(ps);
  assert.deepEqual(
    got,
    Array.from({ length: 50 }, (_, i) => `r${i}`),
  );
  c.close();
});

test('large frames read in place: any split of sizes and bodies, mixed with small frames, bytes intact', async () => {
  // Responses of 3 MiB, 20 KiB (a rest below the direct-read size) and 10 bytes, written in
  // pieces of odd sizes (the size prefix split too), several frames per write, so every way a
  // read can end — inside the prefix, inside a large frame, across frame boundaries — occurs.
  const sizes = [3 << 20, 20 * 1024, 10, 3 << 20, 7, 70 * 1024];
  const body = (i: number, n: number): Buffer => {
    const b = Buffer.allocUnsafe(n);
    for (let j = 0; j < n; j++) b[j] = (j * 31 + i * 7) & 0xff;
    return b;
  };
  const pending: Buffer[] = [];
  const port = await fakeServer((socket, corr, payload) => {
    const i = Number(payload.toString());
    pending.push(frame(corr, body(i, sizes[i]!)));
    if (pending.length < sizes.length) return;
    const all = Buffer.concat(pending.splice(0));
    const cuts = [3, 1, 2, 65536 - 7, 1 << 20, 5, 17, 300_000, 2];
    let off = 0;
    let k = 0;
    const next = (): void => {
      if (off >= all.length) return;
      const n = cuts[k++ % cuts.length]!;
      socket.write(all.subarray(off, off + n));
      off += n;
      setImmediate(next);
    };
    next();
  });
  const c = await open(port);
  const raw = (i: number) => ({
    build: (corr: number) => [frame(corr, Buffer.from(String(i)))],
    parse: (f: Buffer) => f.subarray(4),
    expectResponse: true,
  });
  try {
    const got = await Promise.all(sizes.map((_, i) => c.send(raw(i))));
    // Checked after the last frame arrived: a frame delivered as a view of the reused read buffer
    // would have been overwritten by the reads that followed it.
    for (let i = 0; i < sizes.length; i++) assert.ok(got[i]!.equals(body(i, sizes[i]!)), `frame ${i} intact`);
  } finally {
    c.close();
  }
});

test('requests without a response (acks=0) resolve once written', async () => {
  const seen: string[] = [];
  const port = await fakeServer((socket, corr, payload) => {
    seen.push(payload.toString());
    if (payload.toString() !== 'noack') socket.write(frame(corr, payload));
  });
  const c = await open(port);
  assert.equal(await c.send(req('noack', { expectResponse: false })), undefined);
  assert.equal(await c.send(req('ack')), 'ack');
  assert.deepEqual(seen, ['noack', 'ack']);
  c.close();
});

test('a request timeout closes the connection and fails every pending request', async () => {
  const port = await fakeServer(() => {});
  const c = await open(port, 100);
  const closedWith: (Error | null)[] = [];
  c.onClose((e) => closedWith.push(e));
  const a = c.send(req('a'));
  const b = c.send(req('b', { timeoutMs: 5000 }));
  await assert.rejects(a, RequestTimeoutError);
  await assert.rejects(b, ConnectionError);
  assert.ok(closedWith[0] instanceof RequestTimeoutError);
  await assert.rejects(c.send(req('c')), ConnectionError);
});

test('a short request behind a long one times out at its own deadline', async () => {
  // The broker answers in order: nothing comes back for the first request, a Fetch long poll.
  const port = await fakeServer(() => {});
  const c = await open(port, 100);
  const longPoll = c.send(req('fetch', { timeoutMs: 600_000 }));
  longPoll.catch(() => {});
  const short = c.send(req('close-session', { timeoutMs: 200 }));
  const limit = scaled(20_000);
  let timer: NodeJS.Timeout | undefined;
  await Promise.race([
    assert.rejects(short, RequestTimeoutError),
    new Promise<never>((_, reject) => {
      timer = setTimeout(
        () => reject(new TestTimeoutError('the short request to time out behind the long one', limit)),
        limit,
      );
    }),
  ]).finally(() => clearTimeout(timer));
  await assert.rejects(longPoll, ConnectionError);
});

test('close() with a request in flight drops the socket; the broker need not close its side', async () => {
  // A server that keeps its side open after the client's FIN, as a broker holding a long poll.
  const server = net.createServer({ allowHalfOpen: true }, (socket) => socket.on('error', () => {}));
  servers.push(server);
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const port = (server.address() as net.AddressInfo).port;
  const sockets = () => process.getActiveResourcesInfo().filter((r) => r === 'TCPSocketWrap').length;
  const before = sockets();
  const c = await open(port, 60_000);
  const pending = c.send(req('fetch'));
  const limit = scaled(10_000);
  const deadline = Date.now() + limit;
  while (sockets() < before + 2) {
    if (Date.now() > deadline) throw new TestTimeoutError('the server to accept the connection', limit);
    await new Promise((r) => setTimeout(r, 10));
  }
  c.close();
  await assert.rejects(pending, ClientClosedError);
  // The server's socket stays (half-open); the client's is gone, so it keeps no process alive.
  while (sockets() > before + 1) {
    if (Date.now() > deadline) throw new TestTimeoutError('the client socket to be released', limit);
    await new Promise((r) => setTimeout(r, 10));
  }
});

test('a correlation id mismatch is a connection error', async () => {
  const port = await fakeServer((socket, corr) => socket.write(frame(corr + 7, Buffer.from('x'))));
  const c = await open(port);
  await assert.rejects(c.send(req('a')), /correlation id mismatch/);
});

test('hostile frame sizes are rejected without allocating them', async () => {
  const port = await fakeServer((socket) => {
    const b = Buffer.alloc(8);
    b.writeInt32BE(0x7fffffff, 0);
    socket.write(b);
  });
  const c = new Connection({
    host: '127.0.0.1',
    port,
    connectTimeoutMs: 1000,
    requestTimeoutMs: 1000,
    maxResponseBytes: 1 << 20,
  });
  await c.connect();
  await assert.rejects(c.send(req('a')), /invalid response frame size/);
  const port2 = await fakeServer((socket) => socket.write(Buffer.from([0xff, 0xff, 0xff, 0xfe])));
  const c2 = await open(port2);
  await assert.rejects(c2.send(req('a')), /invalid response frame size -2/);
});

test('a parse failure rejects the request and drops the connection', async () => {
  const port = await fakeServer((socket, corr) => socket.write(frame(corr, Buffer.from('x'))));
  const c = await open(port);
  const bad = {
    build: (corr: number) => [frame(corr, Buffer.from('q'))],
    parse: () => {
      throw new Error('truncated');
    },
    expectResponse: true,
  };
  await assert.rejects(c.send(bad), /truncated/);
  assert.equal(c.connected, false);
});

test('connect failures are typed and the server closing fails in-flight requests', async () => {
  const probe = net.createServer();
  await new Promise<void>((r) => probe.listen(0, '127.0.0.1', r));
  const port = (probe.address() as net.AddressInfo).port;
  await new Promise<void>((r) => probe.close(() => r()));
  const c = new Connection({ host: '127.0.0.1', port, connectTimeoutMs: 1000, requestTimeoutMs: 1000 });
  await assert.rejects(c.connect(), ConnectionError);

  const port2 = await fakeServer((socket) => socket.destroy());
  const c2 = await open(port2);
  await assert.rejects(c2.send(req('a')), ConnectionError);
});
