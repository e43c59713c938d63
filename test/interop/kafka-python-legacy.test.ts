// kafka-python 2.0.2 (via /usr/bin/python3) pinned to old protocol versions against a real
// broker: api_version=(0,9) produces magic-0 message sets with Produce v1 and fetches with
// Fetch v1; (0,10) uses Produce v2 / Fetch v2 (magic 1); a probing client uses RecordBatch v2.
// Every producer's records are read back by every consumer: up-conversion on write,
// down-conversion for old fetchers (no timestamps for magic 0, no headers before v2).

import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { startTestBroker, type TestBroker } from '../../src/testkit/index.js';
import { repoFile } from '../support/repo.js';
import { scaled } from '../support/timeouts.js';
import { exec } from './support/exec.js';

const SCRIPT = repoFile('test/interop/python/kafka_python_legacy.py');
let broker: TestBroker;

before(async () => {
  broker = await startTestBroker({ overrides: { 'auto.create.topics.enable': true } });
});
after(async () => {
  await broker.close();
});

// kafka-python here has no snappy/lz4 modules: none and gzip.
for (const codec of ['none', 'gzip']) {
  test(`kafka-python old and new protocol versions round trip, ${codec}`, {
    timeout: scaled(180_000),
  }, async () => {
    const n = 1000;
    const r = await exec('/usr/bin/python3', [SCRIPT, broker.bootstrap, `kp-${codec}`, String(n), codec], {
      timeoutMs: 170_000,
    });
    assert.equal(r.code, 0, r.stderr.toString());
    const summary = JSON.parse(r.stdout.toString()) as {
      produced: Record<string, { count: number; in_order: boolean }>;
      errors: string[];
      consumed: Record<string, { count: number; in_order: boolean; bad: string[] }>;
    };
    assert.deepEqual(summary.errors, []);
    for (const p of ['v09', 'v010', 'modern'])
      assert.deepEqual(summary.produced[p], { count: n, in_order: true }, p);
    for (const [pair, got] of Object.entries(summary.consumed))
      assert.deepEqual(got, { count: n, in_order: true, bad: [] }, pair);
    assert.equal(Object.keys(summary.consumed).length, 9);
  });
}
