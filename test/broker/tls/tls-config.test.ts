// Listener and TLS config rules without a socket: Kafka's listener validation and messages, the
// SASL refusal, per-listener `listener.name.<l>.ssl.*` resolution, store loading (PEM, PKCS12,
// JKS refused), cipher-suite names, and Kafka's principal mapping of certificate subjects.

import assert from 'node:assert/strict';
import { X509Certificate } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { buildBrokerConfig, ConfigError } from '../../../src/broker/config/broker-config.js';
import { listenerSslConfig } from '../../../src/broker/config/listener-ssl-config.js';
import { prepareListeners } from '../../../src/broker/network/broker-listeners.js';
import { interBrokerLinkSecurity } from '../../../src/broker/network/inter-broker-link.js';
import {
  mapPrincipalName,
  parsePrincipalMappingRules,
  rfc2253Subject,
  sslPrincipal,
} from '../../../src/broker/network/principal-mapper.js';
import { opensslCipherName, tlsVersionRange } from '../../../src/net/tls-settings.js';
import { loadKeyStore, loadTrustStore } from '../../../src/net/tls-stores.js';
import { makeTestCerts, STORE_PASSWORD, type TestCerts } from '../../support/tls-certs.js';

let certs: TestCerts;
before(() => {
  certs = makeTestCerts();
});
after(() => certs.remove());

const config = (props: Record<string, string>) =>
  buildBrokerConfig(new Map(Object.entries({ 'log.dirs': '/tmp/x', ...props })));

function refused(props: Record<string, string>, message: RegExp): void {
  assert.throws(
    () => config(props),
    (e: unknown) => e instanceof ConfigError && message.test(e.message) && !e.message.includes('\n'),
  );
}

test('several named listeners, a protocol map, advertised listeners and the inter-broker listener', () => {
  const c = config({
    listeners: 'PLAINTEXT://:9092,SSL://127.0.0.1:9093,internal://[::1]:9095',
    'listener.security.protocol.map': 'PLAINTEXT:PLAINTEXT,SSL:SSL,INTERNAL:SSL',
    'advertised.listeners': 'PLAINTEXT://kafka.example:9092,INTERNAL://10.0.0.5:0',
    'inter.broker.listener.name': 'internal',
  });
  assert.deepEqual(c.listeners.listeners, [
    { name: 'PLAINTEXT', securityProtocol: 'PLAINTEXT', host: '', port: 9092 },
    { name: 'SSL', securityProtocol: 'SSL', host: '127.0.0.1', port: 9093 },
    { name: 'INTERNAL', securityProtocol: 'SSL', host: '::1', port: 9095 },
  ]);
  assert.deepEqual(
    c.listeners.advertised.map((a) => a.name),
    ['PLAINTEXT', 'INTERNAL'],
  );
  assert.equal(c.listeners.interBrokerListener, 'INTERNAL');
  assert.equal(c.host, '0.0.0.0');
  assert.equal(c.advertisedHost, 'kafka.example');
});

test("Kafka's listener rules, with Kafka's messages", () => {
  refused(
    { listeners: 'PLAINTEXT://:9092,PLAINTEXT://:9093' },
    /^Each listener must have a different name, listeners: /,
  );
  refused(
    { listeners: 'PLAINTEXT://:9092,SSL://:9092', 'security.inter.broker.protocol': 'PLAINTEXT' },
    /^Each listener must have a different port/,
  );
  refused(
    { listeners: 'TRACE://:9092' },
    /^Error creating broker listeners from 'TRACE:\/\/:9092': No security protocol defined for listener TRACE$/,
  );
  refused({ listeners: 'PLAINTEXT:9092' }, /Unable to parse PLAINTEXT:9092 to a broker endpoint/);
  refused(
    { 'listener.security.protocol.map': 'PLAINTEXT:PLAINTEXT,X:TLS' },
    /^Invalid value .* for configuration listener\.security\.protocol\.map: unknown security protocol TLS/,
  );
  refused(
    { listeners: 'PLAINTEXT://:9092', 'advertised.listeners': 'PLAINTEXT://a:9092,SSL://a:9093' },
    /^advertised\.listeners listener names must be equal to or a subset of the ones defined in listeners\. Found SSL\./,
  );
  refused(
    { listeners: 'SSL://:9093' },
    /^inter\.broker\.listener\.name must be a listener name defined in advertised\.listeners\. The valid options based on currently configured listeners are SSL$/,
  );
  refused(
    {
      listeners: 'SSL://:9093',
      'inter.broker.listener.name': 'SSL',
      'security.inter.broker.protocol': 'SSL',
    },
    /^Only one of inter\.broker\.listener\.name and security\.inter\.broker\.protocol should be set\.$/,
  );
  refused({ 'advertised.listeners': 'PLAINTEXT://0.0.0.0:9092' }, /nonroutable meta-address 0\.0\.0\.0/);
});

test("a SASL inter-broker listener: the broker's own identity from the listener's JAAS line, or a one-line refusal", () => {
  const jaas = (opts: string) => `org.apache.kafka.common.security.plain.PlainLoginModule required ${opts};`;
  const base = {
    listeners: 'INTERNAL://:9094',
    'listener.security.protocol.map': 'INTERNAL:SASL_PLAINTEXT',
    'inter.broker.listener.name': 'INTERNAL',
    'sasl.enabled.mechanisms': 'PLAIN,SCRAM-SHA-512',
    'sasl.jaas.config': jaas('user_a="pw-7"'),
  };
  const security = (extra: Record<string, string>) => {
    const broker = config({ ...base, ...extra });
    const listener = broker.listeners.advertised.find((l) => l.name === 'INTERNAL')!;
    return interBrokerLinkSecurity(listener, broker.props);
  };
  const fails = (extra: Record<string, string>, message: RegExp) =>
    assert.throws(
      () => security(extra),
      (e: unknown) => e instanceof ConfigError && message.test(e.message) && !e.message.includes('pw-7'),
    );
  // Kafka's default mechanism between brokers is GSSAPI, which samsa lacks.
  fails({}, /^inter-broker listener INTERNAL: sasl\.mechanism\.inter\.broker\.protocol GSSAPI is not supported/);
  fails(
    { 'sasl.mechanism.inter.broker.protocol': 'SCRAM-SHA-256' },
    /SCRAM-SHA-256 must be included in sasl\.enabled\.mechanisms/,
  );
  fails(
    { 'sasl.mechanism.inter.broker.protocol': 'PLAIN', 'sasl.jaas.config': jaas('user_a="pw-7"') },
    /needs the broker's own username="\.\.\." and password="\.\.\."/,
  );
  fails(
    { 'sasl.mechanism.inter.broker.protocol': 'SCRAM-SHA-512', 'sasl.jaas.config': jaas('user_a="pw-7"') },
    /set listener\.name\.internal\.scram-sha-512\.sasl\.jaas\.config|needs the broker's own/,
  );
  const ok = security({
    'sasl.mechanism.inter.broker.protocol': 'plain',
    'sasl.jaas.config': jaas('user_a="pw-7"'),
    'listener.name.internal.plain.sasl.jaas.config': jaas('username="b" password="pw-7" user_b="pw-7"'),
  });
  assert.deepEqual(ok, { sasl: { mechanism: 'PLAIN', username: 'b', password: 'pw-7' } });
});

test('listener.name.<l>.ssl.* wins key by key over ssl.*', () => {
  const props = new Map([
    ['ssl.keystore.location', '/a.p12'],
    ['ssl.keystore.password', 'pw'],
    ['ssl.client.auth', 'requested'],
    ['listener.name.internal.ssl.keystore.location', '/internal.p12'],
    ['listener.name.internal.ssl.client.auth', 'required'],
  ]);
  const internal = listenerSslConfig(props, 'INTERNAL');
  assert.equal(internal.keystore.location, '/internal.p12');
  assert.equal(internal.keystore.password, 'pw');
  assert.equal(internal.clientAuth, 'required');
  const ssl = listenerSslConfig(props, 'SSL');
  assert.equal(ssl.keystore.location, '/a.p12');
  assert.equal(ssl.clientAuth, 'requested');
  assert.equal(ssl.keystore.type, 'JKS', "Kafka's default type");
  assert.deepEqual(ssl.enabledProtocols, ['TLSv1.2', 'TLSv1.3']);
});

test('an SSL listener without a keystore refuses to start, naming the listener', () => {
  const c = config({ listeners: 'PLAINTEXT://:0,SSL://:0' });
  assert.throws(
    () => prepareListeners(c),
    /listener SSL \(SSL\) has no keystore: set ssl\.keystore\.location/,
  );
});

test('stores: PEM file, inline PEM, PKCS12 (Kafka default type JKS reads it too), PKCS12 truststore', () => {
  const pem = loadKeyStore({ type: 'PEM', location: certs.brokerPem });
  assert.ok(
    pem && 'cert' in pem && pem.cert.includes('BEGIN CERTIFICATE') && pem.key.includes('PRIVATE KEY'),
  );
  const inline = loadKeyStore({
    type: 'PEM',
    certificateChain: certs.read(certs.brokerCert),
    key: certs.read(certs.brokerKey),
  });
  assert.ok(inline && 'cert' in inline);
  for (const type of ['PKCS12', null]) {
    const p12 = loadKeyStore({ type, location: certs.brokerP12, password: STORE_PASSWORD });
    assert.ok(p12 && 'pfx' in p12);
  }
  assert.deepEqual(
    loadTrustStore({ type: 'PKCS12', location: certs.truststoreP12, password: STORE_PASSWORD }),
    [certs.read(certs.caCert)],
  );
  assert.throws(
    () => loadTrustStore({ type: 'PKCS12', location: certs.truststoreP12, password: 'wrong' }),
    /wrong password/,
  );
  assert.throws(
    () => loadKeyStore({ type: 'JKS', certificateChain: 'x', key: 'y' }),
    /need ssl\.keystore\.type=PEM/,
  );
});

test('a JKS store is refused with the keytool command that converts it', () => {
  const jks = join(certs.dir, 'server.keystore.jks');
  writeFileSync(jks, Buffer.from('feedfeed0000000200000001', 'hex'));
  assert.throws(
    () => loadKeyStore({ type: 'JKS', location: jks, password: 'x' }),
    /is a JKS file, which Node cannot read: convert it to PKCS12 with "keytool -importkeystore -srckeystore .*server\.keystore\.jks -srcstoretype JKS -destkeystore .*server\.keystore\.p12 -deststoretype PKCS12"/,
  );
  assert.throws(() => loadTrustStore({ location: jks }), /JKS file/);
});

test('TLS versions and cipher suite names', () => {
  assert.deepEqual(tlsVersionRange(['TLSv1.3']), { minVersion: 'TLSv1.3', maxVersion: 'TLSv1.3' });
  assert.deepEqual(tlsVersionRange([]), { minVersion: 'TLSv1.2', maxVersion: 'TLSv1.3' });
  assert.throws(() => tlsVersionRange(['SSLv3']), /unsupported protocol SSLv3/);
  assert.equal(opensslCipherName('TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256'), 'ECDHE-RSA-AES128-GCM-SHA256');
  assert.equal(
    opensslCipherName('TLS_ECDHE_ECDSA_WITH_CHACHA20_POLY1305_SHA256'),
    'ECDHE-ECDSA-CHACHA20-POLY1305',
  );
  assert.equal(opensslCipherName('TLS_RSA_WITH_AES_256_CBC_SHA'), 'AES256-SHA');
  assert.equal(opensslCipherName('TLS_AES_256_GCM_SHA384'), 'TLS_AES_256_GCM_SHA384');
  assert.equal(opensslCipherName('ECDHE-RSA-AES256-GCM-SHA384'), 'ECDHE-RSA-AES256-GCM-SHA384');
});

test("principals: Kafka's RFC 2253 subject, DEFAULT and RULE mappings", () => {
  const cert = new X509Certificate(certs.read(certs.clientCert));
  assert.equal(rfc2253Subject(cert), certs.clientSubject);
  assert.equal(sslPrincipal(parsePrincipalMappingRules('DEFAULT'), cert), `User:${certs.clientSubject}`);
  assert.equal(sslPrincipal(parsePrincipalMappingRules('DEFAULT'), undefined), 'User:ANONYMOUS');
  const rules = parsePrincipalMappingRules(
    'RULE:^CN=(.*?),OU=(.*?),O=(.*?),C=(.*?)$/$1@$2/U, RULE:^CN=([^,]*).*$/$1/L, DEFAULT',
  );
  assert.equal(mapPrincipalName(rules, 'CN=client,OU=eng,O=Samsa,C=US'), 'CLIENT@ENG');
  assert.equal(mapPrincipalName(rules, 'CN=Other,O=X'), 'other');
  assert.throws(
    () => mapPrincipalName(parsePrincipalMappingRules('RULE:^CN=a$/a/'), 'CN=b'),
    /No rules apply to CN=b/,
  );
  assert.throws(() => parsePrincipalMappingRules('RULE:broken'), /Invalid rule/);
});
