// Expandable batches against a real broker: with Kafka's batch.size a burst of 1 KiB records is
// sent in batches up to batch.max.size, and on a topic whose max.message.bytes is below that the
// refused batches are split and still delivered — in order, exactly once, read back by kcat.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { Producer } from '../../../src/client/index.js';
import { createTopics, kcatRead, type TestBroker, testBroker } from './helpers.js';

let tb: TestBroker;
let bootstrap: string;
before(async () => {
  tb = await testBroker();
  bootstrap = tb.broker.bootstrap;
  await createTopics(bootstrap, [
    { name: 'grow-default', numPartitions: 1 },
    { name: 'grow-small', numPartitions: 1, configs: { 'max.message.bytes': '20000' } },
  ]);
});
after(async () => {
  await tb.stop();
});

/** Sends `n` records of ~1 KiB in one synchronous burst; resolves with the callbacks' errors. */
async function burst(producer: Producer, topic: string, n: number): Promise<Error[]> {
  const errors: Error[] = [];
  for (let i = 0; i < n; i++) {
    const value = `${topic}-${String(i).padStart(6, '0')}-`.padEnd(1024, 'x');
    if (!producer.send({ topic, value }, (err) => err && errors.push(err))) await producer.bufferAvailable();
  }
  await producer.flush();
  return errors;
}

function assertInOrder(values: string[], topic: string, n: number): void {
  assert.equal(values.length, n, `${topic}: ${values.length} of ${n} records`);
  for (let i = 0; i < n; i++)
    assert.ok(
      values[i]!.startsWith(`${topic}-${String(i).padStart(6, '0')}-`),
      `${topic}: record ${i} in place`,
    );
}

test('a burst of 1 KiB records leaves in batches larger than batch.size, in order', async () => {
  const producer = new Producer({ bootstrapServers: bootstrap, acks: 1 });
  await sendAndReadBack(producer, 'grow-default', () => {
    const largest = producer.metrics()['batch-size-max'];
    assert.ok(largest > 16384 && largest <= 1 << 20, `largest batch ${largest} bytes`);
  });
});

test('max.message.bytes below the grown size: batches are split and delivered exactly once', async () => {
  // Idempotent, acks=all (the defaults): the pieces keep the refused batch's sequences.
  await sendAndReadBack(new Producer({ bootstrapServers: bootstrap }), 'grow-small', () => {});
});

/** 3000 records in one burst, no delivery error, then all read back by kcat in order. */
async function sendAndReadBack(producer: Producer, topic: string, check: () => void): Promise<void> {
  try {
    assert.deepEqual(await burst(producer, topic, 3000), []);
    check();
  } finally {
    await producer.close();
  }
  const read = await kcatRead(bootstrap, topic);
  assertInOrder(
    read.map((r) => r.value),
    topic,
    3000,
  );
}
