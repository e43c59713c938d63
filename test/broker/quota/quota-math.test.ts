// Rate windows, throttle-time arithmetic and quota precedence on a deterministic clock.

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ClientQuotaManager } from '../../../src/broker/quota/client-quota-manager.js';
import { SampledRate, throttleTimeMs } from '../../../src/broker/quota/sampled-rate.js';

const W = { samples: 11, windowMs: 1000 };

test('rate: a first burst is divided by at least samples-1 windows', () => {
  const r = new SampledRate(W, 0);
  r.record(10_000, 0);
  // 10 full windows assumed (plus 0 ms of the current one): 1000 B/s
  assert.equal(r.measure(0), 1000);
  assert.equal(r.windowSizeMs(500), 10_500);
  assert.ok(Math.abs(r.measure(500) - 10_000 / 10.5) < 1e-9);
});

test('rate: samples older than the whole span are dropped', () => {
  const r = new SampledRate(W, 0);
  r.record(5000, 0);
  for (let t = 1000; t <= 11_000; t += 1000) r.record(0, t);
  // the first sample's last event is 11 s old at 11 000: purged
  assert.equal(r.measure(11_000), 0);
});

test('rate: negative records take a value back', () => {
  const r = new SampledRate(W, 0);
  r.record(4000, 100);
  r.record(-4000, 100);
  assert.equal(r.measure(100), 0);
});

test("throttle time is Kafka's (observed - bound) / bound * window", () => {
  assert.equal(throttleTimeMs(2000, 1000, 10_000), 10_000);
  assert.equal(throttleTimeMs(1500, 1000, 10_000), 5000);
  assert.equal(throttleTimeMs(1000, 1000, 10_000), 0);
  assert.equal(throttleTimeMs(900, 1000, 10_000), 0);
  assert.equal(throttleTimeMs(3000, 1000, 10_000, 1000), 1000, 'bounded');
});

test('manager: record past the quota returns the throttle, within it 0', () => {
  const m = new ClientQuotaManager(W);
  m.update(undefined, 'c1', 1000);
  const who = { user: 'ANONYMOUS', clientId: 'c1' };
  assert.equal(m.recordAndGetThrottleTimeMs(who, 9000, 0), 0); // 900 B/s over 10 s
  // 20000 B over 10 s = 2000 B/s: (2000-1000)/1000 * 10000 ms
  assert.equal(m.recordAndGetThrottleTimeMs(who, 11_000, 0), 10_000);
  // another client id has no quota
  assert.equal(m.recordAndGetThrottleTimeMs({ user: 'ANONYMOUS', clientId: 'c2' }, 1e9, 0), 0);
  assert.equal(m.maxValueInWindow(who), 10_000);
});

test('average: the mean of the values in the retained windows; 0 without any', () => {
  const r = new SampledRate(W, 0);
  assert.equal(r.average(0), 0);
  r.record(100, 0);
  r.record(300, 500);
  r.record(800, 2500);
  assert.equal(r.average(2500), 400);
  assert.equal(r.average(13_500), 0, 'every window expired (11 windows after the last value)');
});

test('manager: readings give each live rate with the mean throttle given, by its metric tags', () => {
  const m = new ClientQuotaManager(W);
  m.update(undefined, 'c1', 1000);
  const who = { user: 'ANONYMOUS', clientId: 'c1' };
  assert.deepEqual(m.readings(0), []);
  const throttle = m.recordAndGetThrottleTimeMs(who, 20_000, 0);
  m.recordThrottle(who, throttle, 0);
  m.recordThrottle(who, 2 * throttle, 0);
  m.recordThrottle({ user: 'ANONYMOUS', clientId: 'free' }, 5, 0); // no quota: no rate
  assert.deepEqual(m.readings(0), [{ user: '', clientId: 'c1', rate: 2000, throttleTimeMs: 1.5 * throttle }]);
});

test("precedence follows Kafka's order", () => {
  const m = new ClientQuotaManager(W);
  const D = '<default>';
  const q = (user: string, clientId: string) => m.quotaFor({ user, clientId });
  m.update(undefined, D, 8);
  assert.equal(q('u', 'c'), 8, 'default client');
  m.update(undefined, 'c', 7);
  assert.equal(q('u', 'c'), 7, 'client');
  m.update(D, undefined, 6);
  assert.equal(q('u', 'c'), 6, 'default user beats client');
  m.update(D, D, 5);
  assert.equal(q('u', 'c'), 5, 'default user + default client');
  m.update(D, 'c', 4);
  assert.equal(q('u', 'c'), 4, 'default user + client');
  m.update('u', undefined, 3);
  assert.equal(q('u', 'c'), 3, 'user');
  m.update('u', D, 2);
  assert.equal(q('u', 'c'), 2, 'user + default client');
  m.update('u', 'c', 1);
  assert.equal(q('u', 'c'), 1, 'user + client');
  // and back down as they are removed
  m.update('u', 'c', null);
  assert.equal(q('u', 'c'), 2);
  m.update('u', D, null);
  m.update('u', undefined, null);
  assert.equal(q('u', 'c'), 4);
  assert.equal(q('other', 'x'), 5, 'another user: default user + default client');
});

test('a user quota is shared by all its client ids; a client-id quota is per client id', () => {
  const shared = new ClientQuotaManager(W);
  shared.update('alice', undefined, 1000);
  assert.equal(shared.recordAndGetThrottleTimeMs({ user: 'alice', clientId: 'a' }, 10_000, 0), 0);
  assert.ok(shared.recordAndGetThrottleTimeMs({ user: 'alice', clientId: 'b' }, 10_000, 0) > 0);
  const perClient = new ClientQuotaManager(W);
  perClient.update(undefined, '<default>', 1000);
  assert.equal(perClient.recordAndGetThrottleTimeMs({ user: 'alice', clientId: 'a' }, 10_000, 0), 0);
  assert.equal(perClient.recordAndGetThrottleTimeMs({ user: 'alice', clientId: 'b' }, 10_000, 0), 0);
});

test('a changed quota applies to an existing rate', () => {
  const m = new ClientQuotaManager(W);
  const who = { user: 'u', clientId: 'c' };
  m.update(undefined, 'c', 1000);
  assert.equal(m.recordAndGetThrottleTimeMs(who, 10_000, 0), 0);
  m.update(undefined, 'c', 500);
  assert.ok(m.recordAndGetThrottleTimeMs(who, 0, 1) > 0);
  m.update(undefined, 'c', null);
  assert.equal(m.recordAndGetThrottleTimeMs(who, 1e9, 2), 0);
});
