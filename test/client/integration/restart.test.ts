// A broker restart in the middle of a large idempotent send loses nothing and duplicates
// nothing: the producer reconnects (with backoff), resends unacknowledged batches with their
// original sequences, and the broker deduplicates what it had already appended.
// SAMSA_RESTART_RECORDS overrides the record count (the figure is 1,000,000).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { Admin, Producer } from '../../../src/client/index.js';
import { startBroker } from '../../../src/index.js';
import { kcatRead, testBroker } from './helpers.js';

const N = Number(process.env['SAMSA_RESTART_RECORDS'] ?? 200_000);

test(`broker restart during a ${N}-record idempotent send: no loss, no duplicates, order kept`, {
  timeout: 600_000,
}, async () => {
  const tb = await testBroker();
  let broker = tb.broker;
  const { port } = broker;
  const bootstrap = broker.bootstrap;
  const admin = new Admin({ bootstrapServers: bootstrap });
  await admin.createTopics([{ name: 'restart', numPartitions: 2, replicationFactor: 1 }]);
  await admin.close();
  const producer = new Producer({
    bootstrapServers: bootstrap,
    lingerMs: 5,
    reconnectBackoffMs: 20,
    reconnectBackoffMaxMs: 200,
    requestTimeoutMs: 10_000,
    deliveryTimeoutMs: 120_000,
  });
  let acked = 0;
  let firstError: Error | null = null;
  let restarted = false;
  const restart = async (): Promise<void> => {
    await broker.close();
    broker = await startBroker({ host: '127.0.0.1', port, dataDir: tb.dataDir });
  };
  let restartDone: Promise<void> = Promise.resolve();
  let unackedAtRestart = 0;
  for (let i = 0; i < N; i++) {
    const ok = producer.send({ topic: 'restart', key: `k${i % 2}`, value: String(i) }, (err) => {
      if (err !== null) firstError ??= err;
      else acked++;
    });
    if (!ok) await producer.bufferAvailable();
    else if ((i & 1023) === 1023) await new Promise((r) => setImmediate(r));
    if (!restarted && i >= N / 2) {
      restarted = true;
      unackedAtRestart = i + 1 - acked;
      restartDone = restart();
    }
  }
  await restartDone;
  await producer.flush();
  await producer.close();
  assert.ok(unackedAtRestart > 0, 'records were in flight or buffered when the broker stopped');
  assert.equal(firstError, null);
  assert.equal(acked, N);
  const records = await kcatRead(bootstrap, 'restart');
  assert.equal(records.length, N, 'every record exactly once');
  const last = new Map<string, number>();
  for (const r of records) {
    const v = Number(r.value);
    assert.ok((last.get(r.key) ?? -1) < v, `order kept for key ${r.key}`);
    last.set(r.key, v);
  }
  await broker.close();
  tb.broker = broker;
  await tb.stop();
});
