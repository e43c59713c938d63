// Version negotiation against a fake broker that speaks just enough protocol: the KIP-511
// fallback (ApiVersions v3 answered with a v0 error body), highest-common-version selection,
// refusal of versions the broker does not offer, and reconnect after the connection drops.
import assert from 'node:assert/strict';
import net from 'node:net';
import { after, test } from 'node:test';
import {
  BrokerLink,
  type BrokerLinkOptions,
  CLIENT_SOFTWARE_NAME,
  CLIENT_SOFTWARE_VERSION,
} from '../../src/net/broker-link.js';
import { UnsupportedVersionError } from '../../src/net/errors.js';
import { apiVersionsApi } from '../../src/protocol/messages/generated/api-versions.js';
import { metadataApi } from '../../src/protocol/messages/generated/metadata.js';
import { produceApi } from '../../src/protocol/messages/generated/produce.js';
import { decodeRequestHeader, encodeResponse } from '../../src/protocol/messages/index.js';

const servers: net.Server[] = [];
after(() => {
  for (const s of servers) s.close();
});

interface Seen {
  key: number;
  version: number;
  clientId: string | null;
  /** ApiVersions v3+: `clientSoftwareName/clientSoftwareVersion`. */
  software?: string;
}

/** A broker offering ApiVersions up to `maxApiVersions`, Metadata 0-5 and Produce 0-2. */
async function fakeBroker(
  maxApiVersions: number,
  seen: Seen[],
): Promise<{ port: number; sockets: net.Socket[] }> {
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
        const { header, reader } = decodeRequestHeader(frame);
        const s: Seen = {
          key: header.requestApiKey,
          version: header.requestApiVersion,
          clientId: header.clientId,
        };
        if (s.key === 18 && s.version >= 3) {
          const req = apiVersionsApi.readRequest(reader, s.version);
          s.software = `${req.clientSoftwareName}/${req.clientSoftwareVersion}`;
        }
        seen.push(s);
        const corr = header.correlationId;
        if (header.requestApiKey === 18) {
          const keys = [
            { apiKey: 18, minVersion: 0, maxVersion: maxApiVersions },
            { apiKey: 3, minVersion: 0, maxVersion: 5 },
            { apiKey: 0, minVersion: 0, maxVersion: 2 },
          ];
          const tooNew = header.requestApiVersion > maxApiVersions;
          const body = {
            errorCode: tooNew ? 35 : 0,
            apiKeys: tooNew ? [keys[0]!] : keys,
            throttleTimeMs: 0,
            supportedFeatures: [],
            finalizedFeaturesEpoch: -1n,
            finalizedFeatures: [],
            zkMigrationReady: false,
          };
          for (const c of encodeResponse(apiVersionsApi, tooNew ? 0 : header.requestApiVersion, corr, body))
            socket.write(c);
        } else if (header.requestApiKey === 3) {
          const body = {
            throttleTimeMs: 0,
            brokers: [{ nodeId: 7, host: 'h', port: 1, rack: null }],
            clusterId: 'c',
            controllerId: 7,
            topics: [],
            clusterAuthorizedOperations: -2147483648,
          };
          for (const c of encodeResponse(metadataApi, header.requestApiVersion, corr, body)) socket.write(c);
        }
      }
    });
  });
  servers.push(server);
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return { port: (server.address() as net.AddressInfo).port, sockets };
}

const opts: BrokerLinkOptions = { clientId: 'neg-test', reconnectBackoffMs: 10 };

test('KIP-511: an old broker answers ApiVersions v3 with a v0 error body; the client retries with its max', async () => {
  const seen: Seen[] = [];
  const { port } = await fakeBroker(2, seen);
  const link = new BrokerLink(-1, '127.0.0.1', port, opts);
  const md = await link.request(metadataApi, {
    topics: null,
    allowAutoTopicCreation: false,
    includeClusterAuthorizedOperations: false,
    includeTopicAuthorizedOperations: false,
  });
  assert.equal(md.controllerId, 7);
  assert.deepEqual(
    seen.map((s) => [s.key, s.version]),
    [
      [18, 3],
      [18, 2],
      [3, 5],
    ],
    'ApiVersions v3 → v2, then Metadata at the highest common version (5)',
  );
  assert.ok(seen.every((s) => s.clientId === 'neg-test'));
  link.close();
});

test('a request with no common version fails with UnsupportedVersionError before anything is sent', async () => {
  const seen: Seen[] = [];
  const { port } = await fakeBroker(3, seen);
  const link = new BrokerLink(-1, '127.0.0.1', port, opts);
  await assert.rejects(
    link.request(
      produceApi,
      { transactionalId: null, acks: 1, timeoutMs: 1000, topicData: [] },
      { minVersion: 3 },
    ),
    UnsupportedVersionError,
  );
  assert.deepEqual(
    seen.map((s) => s.key),
    [18],
  );
  link.close();
});

test('after the broker drops the connection the link reconnects and negotiates again', async () => {
  const seen: Seen[] = [];
  const { port, sockets } = await fakeBroker(3, seen);
  const link = new BrokerLink(-1, '127.0.0.1', port, opts);
  const req = {
    topics: null,
    allowAutoTopicCreation: false,
    includeClusterAuthorizedOperations: false,
    includeTopicAuthorizedOperations: false,
  };
  await link.request(metadataApi, req);
  for (const s of sockets) s.destroy();
  await new Promise((r) => setTimeout(r, 20));
  assert.equal(link.connected, false);
  await link.request(metadataApi, req);
  assert.deepEqual(
    seen.map((s) => s.key),
    [18, 3, 18, 3],
  );
  link.close();
});

test('options of its own: a broker-side link sends its client id and software name, defaults for the rest', async () => {
  const seen: Seen[] = [];
  const { port } = await fakeBroker(3, seen);
  const link = new BrokerLink(2, '127.0.0.1', port, {
    clientId: 'broker-1-fetcher-0',
    clientSoftwareName: 'samsa-broker',
    clientSoftwareVersion: '9.9.9',
  });
  await link.request(metadataApi, {
    topics: null,
    allowAutoTopicCreation: false,
    includeClusterAuthorizedOperations: false,
    includeTopicAuthorizedOperations: false,
  });
  assert.deepEqual(
    seen.map((s) => [s.key, s.clientId, s.software]),
    [
      [18, 'broker-1-fetcher-0', 'samsa-broker/9.9.9'],
      [3, 'broker-1-fetcher-0', undefined],
    ],
  );
  link.close();
});

test('the default software name and version go out in ApiVersions', async () => {
  const seen: Seen[] = [];
  const { port } = await fakeBroker(3, seen);
  const link = new BrokerLink(-1, '127.0.0.1', port, opts);
  await link.ready();
  assert.equal(seen[0]?.software, `${CLIENT_SOFTWARE_NAME}/${CLIENT_SOFTWARE_VERSION}`);
  link.close();
});
