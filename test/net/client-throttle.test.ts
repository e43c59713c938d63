// Client-side throttling (KIP-219) against a fake broker: after a response with
// throttle_time_ms > 0 (in a version where Kafka's broker answers before throttling), the link
// writes nothing to that broker until the time has passed — other APIs (a Heartbeat) included —
// and then sends everything it held, in order; a reconnect inherits the rest of the throttle; a
// response version below the KIP-219 bump is not throttled by the client; held requests fail
// when the link closes. Bounds are one-sided (a request arrives no earlier than the throttle
// allows): nothing here asserts speed.
import assert from 'node:assert/strict';
import net from 'node:net';
import { after, test } from 'node:test';
import { BrokerLink, clientThrottles, type ThrottleEvent } from '../../src/net/broker-link.js';
import { ClientClosedError } from '../../src/net/errors.js';
import { apiVersionsApi } from '../../src/protocol/messages/generated/api-versions.js';
import { heartbeatApi } from '../../src/protocol/messages/generated/heartbeat.js';
import { metadataApi } from '../../src/protocol/messages/generated/metadata.js';
import { decodeRequestHeader, encodeResponse } from '../../src/protocol/messages/index.js';

const servers: net.Server[] = [];
after(() => {
  for (const s of servers) s.close();
});

interface Arrival {
  key: number;
  version: number;
  at: number;
}

/**
 * A broker offering ApiVersions 0-3, Metadata 0-12 and Heartbeat 0-4. Metadata responses carry
 * the next value of `throttles` (0 once empty); `sentAt` records when each throttled one left.
 */
async function fakeBroker(throttles: number[]) {
  const arrivals: Arrival[] = [];
  const sentAt: number[] = [];
  const sockets: net.Socket[] = [];
  const server = net.createServer((socket) => {
    sockets.push(socket);
    let buf = Buffer.alloc(0);
    socket.on('error', () => {});
    socket.on('data', (chunk) => {
      buf = Buffer.concat([buf, chunk]);
      while (buf.length >= 4 && buf.length >= 4 + buf.readInt32BE(0)) {
        const frame = buf.subarray(4, 4 + buf.readInt32BE(0));
        buf = buf.subarray(4 + frame.length);
        const { header } = decodeRequestHeader(frame);
        const key = header.requestApiKey;
        const version = header.requestApiVersion;
        const corr = header.correlationId;
        arrivals.push({ key, version, at: Date.now() });
        let out: Buffer[];
        if (key === 18) {
          out = encodeResponse(apiVersionsApi, version, corr, {
            errorCode: 0,
            apiKeys: [
              { apiKey: 18, minVersion: 0, maxVersion: 3 },
              { apiKey: 3, minVersion: 0, maxVersion: 12 },
              { apiKey: 12, minVersion: 0, maxVersion: 4 },
            ],
            throttleTimeMs: 0,
            supportedFeatures: [],
            finalizedFeaturesEpoch: -1n,
            finalizedFeatures: [],
            zkMigrationReady: false,
          });
        } else if (key === 3) {
          const throttleTimeMs = throttles.shift() ?? 0;
          if (throttleTimeMs > 0) sentAt.push(Date.now());
          out = encodeResponse(metadataApi, version, corr, {
            throttleTimeMs,
            brokers: [{ nodeId: 1, host: 'h', port: 1, rack: null }],
            clusterId: 'c',
            controllerId: 1,
            topics: [],
            clusterAuthorizedOperations: -2147483648,
          });
        } else {
          out = encodeResponse(heartbeatApi, version, corr, { throttleTimeMs: 0, errorCode: 0 });
        }
        for (const c of out) socket.write(c);
      }
    });
  });
  servers.push(server);
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return { port: (server.address() as net.AddressInfo).port, arrivals, sentAt, sockets };
}

const METADATA = {
  topics: null,
  allowAutoTopicCreation: false,
  includeClusterAuthorizedOperations: false,
  includeTopicAuthorizedOperations: false,
};
const HEARTBEAT = { groupId: 'g', generationId: 1, memberId: 'm', groupInstanceId: null };

test('KIP-219 version table: Kafka shouldClientThrottle bumps', () => {
  assert.equal(clientThrottles(0, 5), false);
  assert.equal(clientThrottles(0, 6), true); // Produce
  assert.equal(clientThrottles(1, 7), false);
  assert.equal(clientThrottles(1, 8), true); // Fetch
  assert.equal(clientThrottles(12, 2), true); // Heartbeat
  assert.equal(clientThrottles(48, 1), false); // DescribeClientQuotas: never
});

test('a throttled response holds every later request (any API) until the throttle ends', async () => {
  const THROTTLE = 400;
  const broker = await fakeBroker([THROTTLE]);
  const events: ThrottleEvent[] = [];
  const link = new BrokerLink(1, '127.0.0.1', broker.port, {
    clientId: 'throttled',
    onThrottle: (e) => events.push(e),
  });
  try {
    const first = await link.request(metadataApi, METADATA);
    assert.equal(first.throttleTimeMs, THROTTLE);
    assert.equal(events.length, 1);
    assert.deepEqual(
      { nodeId: events[0]!.nodeId, apiKey: events[0]!.apiKey, ms: events[0]!.throttleTimeMs },
      { nodeId: 1, apiKey: 3, ms: THROTTLE },
    );
    assert.ok(link.throttledUntil >= broker.sentAt[0]! + THROTTLE);
    const before = broker.arrivals.length;
    // Submitted inside the window: held (and counted as in flight), then sent in order.
    const later = [
      link.request(metadataApi, METADATA),
      link.request(heartbeatApi, HEARTBEAT),
      link.request(metadataApi, METADATA),
    ];
    await new Promise((r) => setImmediate(r));
    assert.equal(link.inFlight, 3);
    const results = await Promise.all(later);
    assert.equal(results.length, 3);
    const sent = broker.arrivals.slice(before);
    assert.deepEqual(
      sent.map((a) => a.key),
      [3, 12, 3],
      'held requests leave in submission order',
    );
    // Nothing reached the broker during the window.
    for (const a of sent)
      assert.ok(
        a.at >= broker.sentAt[0]! + THROTTLE - 1,
        `a request arrived ${a.at - broker.sentAt[0]!} ms after the throttled response`,
      );
  } finally {
    link.close();
  }
});

test('a response version without KIP-219 (Metadata v5) does not throttle the client', async () => {
  const broker = await fakeBroker([5000]);
  const events: ThrottleEvent[] = [];
  const link = new BrokerLink(1, '127.0.0.1', broker.port, {
    clientId: 'old-version',
    onThrottle: (e) => events.push(e),
  });
  try {
    const res = await link.request(metadataApi, METADATA, { maxVersion: 5 });
    assert.equal(res.throttleTimeMs, 5000);
    assert.equal(events.length, 0);
    assert.equal(link.throttledUntil, 0);
    // Would wait 5 s if held; the test's own timeout is far above that anyway.
    await link.request(heartbeatApi, HEARTBEAT);
    assert.ok(link.currentConnection()!.throttledUntil === 0);
  } finally {
    link.close();
  }
});

test('a reconnect inherits the rest of the throttle', async () => {
  const THROTTLE = 400;
  const broker = await fakeBroker([THROTTLE]);
  const link = new BrokerLink(1, '127.0.0.1', broker.port, { clientId: 'reconnect', reconnectBackoffMs: 1 });
  try {
    await link.request(metadataApi, METADATA);
    const conn = link.currentConnection()!;
    const closed = new Promise<void>((r) => conn.onClose(() => r()));
    for (const s of broker.sockets) s.destroy();
    await closed;
    const before = broker.arrivals.length;
    await link.request(heartbeatApi, HEARTBEAT);
    const sent = broker.arrivals.slice(before).filter((a) => a.key !== 18);
    assert.deepEqual(
      sent.map((a) => a.key),
      [12],
    );
    assert.ok(sent[0]!.at >= broker.sentAt[0]! + THROTTLE - 1, 'the heartbeat waited for the throttle');
  } finally {
    link.close();
  }
});

test('requests held by a throttle fail when the link closes', async () => {
  const broker = await fakeBroker([60_000]);
  const link = new BrokerLink(1, '127.0.0.1', broker.port, { clientId: 'close' });
  await link.request(metadataApi, METADATA);
  const held = link.request(heartbeatApi, HEARTBEAT);
  await new Promise((r) => setImmediate(r));
  assert.equal(link.inFlight, 1);
  link.close();
  await assert.rejects(held, ClientClosedError);
});
