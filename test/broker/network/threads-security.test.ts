// Network threads with several listeners (`num.network.threads` = 3: two network threads, the
// listeners dealt between them): TLS and SASL connections are served by a network thread while
// their sessions stay on the event loop — kcat round trips over SSL and SASL_PLAINTEXT, a wrong
// password is refused, a large frame before authentication and a request other than the SASL
// exchange close the connection, and connection limits (max.connections.per.ip) still hold.

import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { after, before, test } from 'node:test';
import { connect, type TLSSocket } from 'node:tls';
import { runningNetworkThreads } from '../../../src/broker/network/threads/network-threads.js';
import { apiVersionsApi } from '../../../src/protocol/messages/generated/api-versions.js';
import { metadataApi } from '../../../src/protocol/messages/generated/metadata.js';
import { startTestBroker, type TestBroker } from '../../../src/testkit/index.js';
import { exec } from '../../interop/support/exec.js';
import { scaled } from '../../support/timeouts.js';
import { makeTestCerts, type TestCerts } from '../../support/tls-certs.js';
import { PASSWORDS, plainJaas } from '../sasl/support.js';
import { RawClient } from '../support/raw-client.js';

let certs: TestCerts;
let broker: TestBroker;

before(async () => {
  certs = makeTestCerts();
  broker = await startTestBroker({
    overrides: {
      'num.network.threads': 3,
      listeners: 'PLAINTEXT://127.0.0.1:0,SSL://127.0.0.1:0,SASL_PLAINTEXT://127.0.0.1:0',
      'sasl.enabled.mechanisms': 'PLAIN',
      'sasl.jaas.config': plainJaas(),
      'ssl.keystore.type': 'PEM',
      'ssl.keystore.location': certs.brokerPem,
      'max.connections.per.ip': 20,
    },
  });
});
after(async () => {
  await broker?.close();
  certs?.remove();
});

const port = (listener: string) => Number(broker.bootstrapFor(listener).split(':').at(-1));

test('the listeners are dealt to two network threads', () => {
  const threads = runningNetworkThreads()[0]!;
  assert.notEqual(threads.workerOf(0), null);
  assert.notEqual(threads.workerOf(1), null);
  assert.deepEqual(
    threads.listeners.map((l) => [l.listener.name, l.port]),
    [
      ['PLAINTEXT', port('PLAINTEXT')],
      ['SSL', port('SSL')],
      ['SASL_PLAINTEXT', port('SASL_PLAINTEXT')],
    ],
  );
});

async function kcatRoundTrip(args: string[], topic: string): Promise<void> {
  const p = await exec('kcat', [...args, '-P', '-t', topic], {
    input: 'one\ntwo\n',
    timeoutMs: scaled(30_000),
  });
  assert.equal(p.code, 0, p.stderr.toString());
  const c = await exec('kcat', [...args, '-C', '-t', topic, '-o', 'beginning', '-e', '-c', '2'], {
    timeoutMs: scaled(30_000),
  });
  assert.equal(c.code, 0, c.stderr.toString());
  assert.equal(c.stdout.toString(), 'one\ntwo\n');
}

test('kcat over SSL', async () => {
  await kcatRoundTrip(
    [
      '-b',
      broker.bootstrapFor('SSL'),
      '-X',
      'security.protocol=ssl',
      '-X',
      `ssl.ca.location=${certs.caCert}`,
    ],
    'over-ssl',
  );
});

const sasl = (user: string, password: string) => [
  '-b',
  broker.bootstrapFor('SASL_PLAINTEXT'),
  '-X',
  'security.protocol=sasl_plaintext',
  '-X',
  'sasl.mechanisms=PLAIN',
  '-X',
  `sasl.username=${user}`,
  '-X',
  `sasl.password=${password}`,
];

test('kcat over SASL_PLAINTEXT (PLAIN); a wrong password is refused', async () => {
  await kcatRoundTrip(sasl('alice', PASSWORDS.alice), 'over-sasl');
  const r = await exec('kcat', [...sasl('alice', 'wrong'), '-L', '-m', '5'], { timeoutMs: scaled(30_000) });
  assert.notEqual(r.code, 0);
  assert.match(r.stderr.toString(), /Authentication failed|SASL authentication error/i);
});

test('before authentication: a frame over sasl.server.max.receive.size, or a Metadata request, closes the connection', async () => {
  const big = await RawClient.connect(port('SASL_PLAINTEXT'));
  const prefix = Buffer.alloc(8);
  prefix.writeInt32BE(600_000, 0); // default limit 524288
  big.send(prefix);
  assert.equal(await big.waitClosed(), true);

  const early = await RawClient.connect(port('SASL_PLAINTEXT'));
  const v = await early.request(apiVersionsApi, 3, { clientSoftwareName: 't', clientSoftwareVersion: '1' });
  assert.equal(v.errorCode, 0, 'ApiVersions is allowed before the exchange');
  early.sendRequest(metadataApi, 9, {
    topics: [],
    allowAutoTopicCreation: false,
    includeClusterAuthorizedOperations: false,
    includeTopicAuthorizedOperations: false,
  });
  assert.equal(await early.waitClosed(), true);

  // The plaintext listener, on the other network thread, is unaffected.
  const plain = await RawClient.connect(port('PLAINTEXT'));
  const ok = await plain.request(apiVersionsApi, 3, { clientSoftwareName: 't', clientSoftwareVersion: '1' });
  assert.equal(ok.errorCode, 0);
  plain.close();
});

test('max.connections.per.ip holds across network threads', async () => {
  const open: RawClient[] = [];
  const tlsOpen: TLSSocket[] = [];
  try {
    // 20 per address, counted on the event loop whichever thread accepted them: 10 TLS
    // connections on one network thread, 10 plaintext ones on the other.
    const ca = readFileSync(certs.caCert);
    for (let i = 0; i < 10; i++)
      tlsOpen.push(
        await new Promise<TLSSocket>((resolve, reject) => {
          const s = connect({ host: '127.0.0.1', port: port('SSL'), ca, servername: 'localhost' }, () =>
            resolve(s),
          );
          s.once('error', reject);
        }),
      );
    for (let i = 0; i < 10; i++) open.push(await RawClient.connect(port('PLAINTEXT')));
    for (const c of open.slice(0, 10)) {
      const r = await c.request(apiVersionsApi, 3, { clientSoftwareName: 't', clientSoftwareVersion: '1' });
      assert.equal(r.errorCode, 0);
    }
    const over = await RawClient.connect(port('PLAINTEXT'));
    assert.equal(await over.waitClosed(), true, 'the 21st connection from 127.0.0.1 is closed');
    open[0]!.close();
    await new Promise((r) => setTimeout(r, 200));
    const again = await RawClient.connect(port('PLAINTEXT'));
    const r = await again.request(apiVersionsApi, 3, { clientSoftwareName: 't', clientSoftwareVersion: '1' });
    assert.equal(r.errorCode, 0, 'a freed slot is given again');
    again.close();
  } finally {
    for (const c of open) c.close();
    for (const s of tlsOpen) s.destroy();
  }
});
