// Fetches overlap the application's polling: the next Fetch's answer is read (and the one after
// it sent) while buffered records are still being polled, in order, within maxBufferedBytes,
// and a connection lost mid-pipeline costs neither a record nor a duplicate. The broker is
// reached through a proxy it advertises, so the test can cut every connection at will.
import assert from 'node:assert/strict';
import net from 'node:net';
import { after, before, test } from 'node:test';
import type { Consumer, ConsumerOptions } from '../../../src/client/consumer/index.js';
import { startTestBroker, type TestBroker } from '../../../src/testkit/index.js';
import { scaled } from '../../support/timeouts.js';
import { consumer, createTopic, produce, str } from './support.js';

/** Forwards connections to the broker; `cut()` closes all of them (clients reconnect). */
class Proxy {
  readonly server: net.Server;
  readonly #open = new Set<net.Socket>();
  target = 0;
  constructor() {
    this.server = net.createServer((client) => {
      const upstream = net.connect({ host: '127.0.0.1', port: this.target });
      for (const s of [client, upstream]) {
        this.#open.add(s);
        s.on('error', () => {});
        s.on('close', () => this.#open.delete(s));
      }
      client.pipe(upstream).pipe(client);
    });
  }
  get port(): number {
    return (this.server.address() as net.AddressInfo).port;
  }
  cut(): void {
    for (const s of this.#open) s.destroy();
  }
}

const N = 30_000;
let b: TestBroker;
const proxy = new Proxy();
before(async () => {
  await new Promise<void>((r) => proxy.server.listen(0, '127.0.0.1', r));
  b = await startTestBroker({
    overrides: {
      listeners: 'PLAINTEXT://127.0.0.1:0',
      'advertised.listeners': `PLAINTEXT://127.0.0.1:${proxy.port}`,
    },
  });
  proxy.target = b.listener.port; // b.bootstrap is what it advertises: the proxy
  await createTopic(b, 'pipe', 1);
  // Fixed-size batches of 4 KiB: a Fetch of 16–64 KiB carries several, and there are many Fetches.
  await produce(b, 'pipe', N, 1, 0, { batchSize: 4096, batchMaxSize: 4096 });
});
after(async () => {
  proxy.cut();
  proxy.server.close();
  await b?.close();
});

function viaProxy(extra: Partial<ConsumerOptions> = {}): Consumer {
  const c = consumer<Buffer | null, Buffer | null>(b, extra);
  c.assign([{ topic: 'pipe', partition: 0 }]);
  return c;
}

/**
 * Polls every record in a loop that awaits nothing but poll() — as a busy application does —
 * checking order and counting the polls that found a new Fetch answer although records were
 * still buffered (its answer was read between two polls, not after the buffer ran dry).
 */
async function pollAll(c: Consumer, onPoll: (i: number) => void = () => {}) {
  let next = 0;
  let overlapped = 0;
  let peakBuffered = 0;
  const deadline = Date.now() + scaled(120_000);
  for (let i = 0; next < N; i++) {
    assert.ok(Date.now() < deadline, `timed out at offset ${next} of ${N}`);
    onPoll(i);
    const buffered = c.bufferedBytes;
    const fetches = c.metrics()['fetch-total'];
    const records = await c.poll(scaled(5000));
    if (buffered > 0 && records.length > 0 && c.metrics()['fetch-total'] > fetches) overlapped++;
    peakBuffered = Math.max(peakBuffered, c.bufferedBytes);
    for (const r of records) {
      assert.equal(r.offset, BigInt(next), 'in order, exactly once');
      assert.equal(str(r.value), `value-${next}`);
      next++;
    }
  }
  return { overlapped, peakBuffered };
}

test('the next Fetch is answered while buffered records are polled; order kept', async () => {
  const c = viaProxy({ maxPollRecords: 5, maxPartitionFetchBytes: 64 * 1024 });
  try {
    const { overlapped } = await pollAll(c);
    assert.ok(overlapped > 0, 'no Fetch answer was read while records were buffered');
  } finally {
    await c.close();
  }
});

test('pipelining stays within maxBufferedBytes', async () => {
  const bound = 48 * 1024;
  const c = viaProxy({ maxPollRecords: 3, maxPartitionFetchBytes: 16 * 1024, maxBufferedBytes: bound });
  try {
    const { peakBuffered } = await pollAll(c);
    // KIP-74 lets one batch per broker exceed the limits; our producer's batches are ≤ 16 KiB.
    assert.ok(peakBuffered <= bound + 16 * 1024, `peak buffered ${peakBuffered}`);
  } finally {
    await c.close();
  }
});

test('connections cut while a Fetch is in flight and records are buffered: nothing lost or repeated', async () => {
  const c = viaProxy({ maxPollRecords: 7, maxPartitionFetchBytes: 32 * 1024, reconnectBackoffMs: 10 });
  try {
    // Every 300 polls the proxy drops the connection, mid-answer or between answers.
    await pollAll(c, (i) => {
      if (i > 0 && i % 300 === 0) proxy.cut();
    });
  } finally {
    await c.close();
  }
});
