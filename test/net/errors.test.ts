// The transport errors are defined once, in src/net, and re-exported unchanged by the client's
// public modules: the same class objects whichever path they are imported from, so `instanceof`
// checks in user code and in the client keep working across the layer boundary.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import * as clientErrors from '../../src/client/errors.js';
import * as client from '../../src/client/index.js';
import * as pkg from '../../src/index.js';
import * as netErrors from '../../src/net/errors.js';
import * as net from '../../src/net/index.js';

// [name, from src/net/errors, from src/client/errors, from src/client, from src/net]
const MOVED: [string, unknown, unknown, unknown, unknown][] = [
  [
    'KafkaClientError',
    netErrors.KafkaClientError,
    clientErrors.KafkaClientError,
    client.KafkaClientError,
    net.KafkaClientError,
  ],
  [
    'KafkaResponseError',
    netErrors.KafkaResponseError,
    clientErrors.KafkaResponseError,
    client.KafkaResponseError,
    net.KafkaResponseError,
  ],
  [
    'ConnectionError',
    netErrors.ConnectionError,
    clientErrors.ConnectionError,
    client.ConnectionError,
    net.ConnectionError,
  ],
  [
    'RequestTimeoutError',
    netErrors.RequestTimeoutError,
    clientErrors.RequestTimeoutError,
    client.RequestTimeoutError,
    net.RequestTimeoutError,
  ],
  [
    'ClientClosedError',
    netErrors.ClientClosedError,
    clientErrors.ClientClosedError,
    client.ClientClosedError,
    net.ClientClosedError,
  ],
  [
    'UnsupportedVersionError',
    netErrors.UnsupportedVersionError,
    clientErrors.UnsupportedVersionError,
    client.UnsupportedVersionError,
    net.UnsupportedVersionError,
  ],
  ['errorClass', netErrors.errorClass, clientErrors.errorClass, client.errorClass, net.errorClass],
];

test('the moved error classes are the same objects from src/net, src/client/errors and src/client', () => {
  for (const [name, defined, viaClientErrors, viaClient, viaNet] of MOVED) {
    assert.equal(typeof defined, 'function', name);
    assert.equal(viaClientErrors, defined, `client/errors ${name}`);
    assert.equal(viaClient, defined, `client ${name}`);
    assert.equal(viaNet, defined, `net ${name}`);
  }
  assert.equal(pkg.KafkaClientError, netErrors.KafkaClientError);
});

test('a transport error is a KafkaClientError with its stable code, name and retriable flag', () => {
  const e = new client.ConnectionError('boom', new Error('cause'));
  assert.ok(e instanceof netErrors.ConnectionError);
  assert.ok(e instanceof pkg.KafkaClientError);
  assert.equal(e.name, 'ConnectionError');
  assert.equal(e.code, 'CONNECTION');
  assert.equal(e.retriable, true);
  assert.equal(client.isRetriable(e), true);
  assert.equal(new netErrors.RequestTimeoutError('t').code, 'REQUEST_TIMED_OUT');
  assert.equal(new netErrors.ClientClosedError().message, 'client closed');
  assert.equal(new netErrors.UnsupportedVersionError('u').retriable, false);
  // A client-only class built on the moved base is still one.
  assert.ok(new client.ConfigError('c') instanceof netErrors.KafkaClientError);
});
