// ssl.client.auth=required (PKCS12 keystore and truststore on the broker): a client with a
// certificate from the broker's CA is served; one without a certificate, with one from another
// CA, or with an expired one is refused at the handshake, and the broker keeps serving the
// others. `requested` lets a client without a certificate in, never one with a bad certificate.
// The client side is configured from Kafka properties (PKCS12 keystore/truststore).

import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { sslFromKafkaProperties } from '../../../src/client/index.js';
import { BrokerLink, type TlsConnectOptions } from '../../../src/net/index.js';
import { metadataApi } from '../../../src/protocol/messages/generated/metadata.js';
import { startTestBroker, type TestBroker } from '../../../src/testkit/index.js';
import { scaled } from '../../support/timeouts.js';
import { makeTestCerts, STORE_PASSWORD, type TestCerts } from '../../support/tls-certs.js';

let certs: TestCerts;
let required: TestBroker;
let requested: TestBroker;

function overrides(clientAuth: string): Record<string, string> {
  return {
    listeners: 'SSL://127.0.0.1:0',
    'security.inter.broker.protocol': 'SSL',
    'ssl.keystore.location': certs.brokerP12,
    'ssl.keystore.type': 'PKCS12',
    'ssl.keystore.password': STORE_PASSWORD,
    'ssl.key.password': STORE_PASSWORD,
    'ssl.truststore.location': certs.truststoreP12,
    'ssl.truststore.type': 'PKCS12',
    'ssl.truststore.password': STORE_PASSWORD,
    'listener.name.ssl.ssl.client.auth': clientAuth,
  };
}

before(async () => {
  certs = makeTestCerts();
  required = await startTestBroker({ overrides: overrides('required') });
  requested = await startTestBroker({ overrides: overrides('requested') });
});
after(async () => {
  await required?.close();
  await requested?.close();
  certs?.remove();
});

const METADATA = {
  topics: [],
  allowAutoTopicCreation: false,
  includeTopicAuthorizedOperations: false,
  includeClusterAuthorizedOperations: false,
};

async function metadata(broker: TestBroker, tls: TlsConnectOptions): Promise<number> {
  const l = new BrokerLink(-1, '127.0.0.1', broker.port, {
    clientId: 'mtls',
    tls,
    connectionTimeoutMs: scaled(10_000),
    requestTimeoutMs: scaled(10_000),
  });
  try {
    return (await l.request(metadataApi, METADATA)).brokers.length;
  } finally {
    l.close();
  }
}

const ca = () => certs.read(certs.caCert);
const withCert = (cert: string, key: string): TlsConnectOptions => ({
  ca: ca(),
  cert: certs.read(cert),
  key: certs.read(key),
});

test('a client certificate from the trusted CA is served (client configured from Kafka properties)', async () => {
  const tls = sslFromKafkaProperties({
    'security.protocol': 'SSL',
    'ssl.truststore.location': certs.truststoreP12,
    'ssl.truststore.type': 'PKCS12',
    'ssl.truststore.password': STORE_PASSWORD,
    'ssl.keystore.location': certs.clientP12,
    'ssl.keystore.type': 'PKCS12',
    'ssl.keystore.password': STORE_PASSWORD,
  });
  assert.ok(tls);
  assert.equal(await metadata(required, tls), 1);
});

for (const [name, tls] of [
  ['no certificate', () => ({ ca: ca() })],
  ['a certificate from another CA', () => withCert(certs.foreignCert, certs.foreignKey)],
  ['an expired certificate', () => withCert(certs.expiredCert, certs.expiredKey)],
] as const) {
  test(`required: ${name} is refused, the broker keeps serving others`, async () => {
    await assert.rejects(metadata(required, tls()));
    assert.equal(await metadata(required, withCert(certs.clientCert, certs.clientKey)), 1);
  });
}

test('requested: no certificate is served; a foreign or expired one is refused', async () => {
  assert.equal(await metadata(requested, { ca: ca() }), 1);
  await assert.rejects(metadata(requested, withCert(certs.foreignCert, certs.foreignKey)));
  await assert.rejects(metadata(requested, withCert(certs.expiredCert, certs.expiredKey)));
  assert.equal(await metadata(requested, withCert(certs.clientCert, certs.clientKey)), 1);
});
