// The HTTP listener alone: readiness before the broker is ready, and `http.listener` parsing;
// plus a broker without `http.listener` (no listener, nothing counted).

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { loadBrokerConfig } from '../../src/broker/config/broker-config.js';
import { HttpListener } from '../../src/broker/http/http-listener.js';
import { silentLogger } from '../../src/broker/logger.js';
import { startTestBroker } from '../../src/testkit/index.js';

test('before ready: live 200, ready and metrics 503; after: 200', async () => {
  const http = await HttpListener.open({ host: '127.0.0.1', port: 0, logger: silentLogger });
  try {
    const base = `http://127.0.0.1:${http.address.port}`;
    const status = async (path: string) => {
      const res = await fetch(`${base}${path}`);
      await res.text();
      return res.status;
    };
    assert.equal(await status('/health/live'), 200);
    assert.equal(await status('/health/ready'), 503);
    assert.equal(await status('/metrics'), 503);
    http.serveMetrics({ contentType: 'text/plain; version=0.0.4', metrics: async () => 'up 1\n' });
    http.setReady(true);
    assert.equal(await status('/health/ready'), 200);
    assert.equal(await status('/metrics'), 200);
    http.setReady(false);
    assert.equal(await status('/health/ready'), 503);
  } finally {
    await http.close();
  }
});

test('http.listener takes HOST:PORT, [v6]:PORT or :PORT; empty or unset = none', () => {
  const listener = (v?: string) =>
    loadBrokerConfig({ overrides: v === undefined ? {} : { 'http.listener': v } }).httpListener;
  assert.equal(listener(), null);
  assert.equal(listener(''), null);
  assert.deepEqual(listener('127.0.0.1:9404'), { host: '127.0.0.1', port: 9404 });
  assert.deepEqual(listener('[::1]:9404'), { host: '::1', port: 9404 });
  assert.deepEqual(listener(':9404'), { host: '0.0.0.0', port: 9404 });
  for (const bad of ['9404', 'host', 'h:70000', 'a:b:1', 'http://h:1'])
    assert.throws(() => listener(bad), /HOST:PORT/, bad);
});

test('without http.listener the broker opens no HTTP port and counts nothing', async () => {
  const broker = await startTestBroker();
  try {
    assert.equal(broker.http, null);
    assert.equal(broker.services.metrics, undefined);
  } finally {
    await broker.close();
  }
});
