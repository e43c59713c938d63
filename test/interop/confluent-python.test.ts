// confluent-kafka-python 1.7.0 (librdkafka 2.0.2, via /usr/bin/python3): idempotent producer
// with acks=all and keys/headers per codec, consumer with assign() (no group), all verified.

import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { startTestBroker, type TestBroker } from '../../src/testkit/index.js';
import { repoFile } from '../support/repo.js';
import { exec } from './support/exec.js';

const SCRIPT = repoFile('test/interop/python/confluent_roundtrip.py');
let broker: TestBroker;

before(async () => {
  broker = await startTestBroker({ overrides: { 'num.partitions': 2 } });
});
after(async () => {
  await broker.close();
});

for (const codec of ['none', 'gzip', 'snappy', 'lz4', 'zstd']) {
  test(`confluent-kafka-python produce + assign/consume round trip, ${codec}`, {
    timeout: 90_000,
  }, async () => {
    const n = 20_000;
    const r = await exec('/usr/bin/python3', [SCRIPT, broker.bootstrap, `py-${codec}`, String(n), codec], {
      timeoutMs: 80_000,
    });
    assert.equal(r.code, 0, r.stderr);
    const summary = JSON.parse(r.stdout.toString()) as {
      unflushed: number;
      delivery_errors: string[];
      consumed: number;
      distinct_ok: boolean;
      bad: string[];
    };
    assert.deepEqual(summary, { unflushed: 0, delivery_errors: [], consumed: n, distinct_ok: true, bad: [] });
  });
}
