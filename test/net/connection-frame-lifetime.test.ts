// A response frame handed to a request's parse() stays valid after later responses arrive: the
// generated codecs return `bytes`/`records` fields as views of the frame (no copy), and the
// consumer keeps a Fetch response's records for polls to come. Found by the delay scheduler's
// test (test/client/patterns/delay-scheduler.test.ts), whose consumer drained a held Fetch
// response after the next one had overwritten it: "CORRUPT_MESSAGE: batch size 8724 out of
// bounds (247 bytes)".
import assert from 'node:assert/strict';
import net from 'node:net';
import { after, test } from 'node:test';
import { Connection } from '../../src/net/connection.js';

const servers: net.Server[] = [];
after(() => {
  for (const s of servers) s.close();
});

/** Answers each request [size 8][corr][n] (12 bytes) with a frame of `n` bytes of one letter. */
async function echoServer(): Promise<number> {
  let answered = 0;
  const server = net.createServer((socket) => {
    let pending = Buffer.alloc(0);
    socket.on('data', (chunk) => {
      pending = Buffer.concat([pending, chunk]);
      for (; pending.length >= 12; pending = pending.subarray(12)) {
        const n = pending.readInt32BE(8);
        const out = Buffer.alloc(8 + n, 0x41 + (answered++ % 26));
        out.writeInt32BE(4 + n, 0);
        out.writeInt32BE(pending.readInt32BE(4), 4);
        socket.write(out);
      }
    });
    socket.on('error', () => {});
  });
  servers.push(server);
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return (server.address() as net.AddressInfo).port;
}

/** A request for an `n`-byte answer whose parse() keeps a view of the frame, as codecs do. */
function viewOf(n: number) {
  return {
    build: (corr: number) => {
      const b = Buffer.alloc(12);
      b.writeInt32BE(8, 0);
      b.writeInt32BE(corr, 4);
      b.writeInt32BE(n, 8);
      return [b];
    },
    parse: (frame: Buffer) => frame.subarray(4),
    expectResponse: true,
  };
}

test('a delivered frame is not overwritten by the frames that follow it', async () => {
  const c = new Connection({
    host: '127.0.0.1',
    port: await echoServer(),
    connectTimeoutMs: 2000,
    requestTimeoutMs: 5000,
  });
  await c.connect();
  try {
    // Small and large answers, one after the other: small ones arrive in one read each.
    const sizes = [300, 200, 5000, 100, 40_000, 250, 90_000, 300];
    const held: Buffer[] = [];
    for (const n of sizes) held.push(await c.send(viewOf(n)));
    held.forEach((view, i) => {
      const want = 0x41 + (i % 26);
      const bad = view.findIndex((x) => x !== want);
      assert.equal(
        bad,
        -1,
        `answer ${i} (${sizes[i]} bytes) changed after later answers arrived: byte ${bad} is ${view[bad]}, was ${want}`,
      );
    });
  } finally {
    c.close();
  }
});
