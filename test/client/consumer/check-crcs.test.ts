// checkCrcs (Kafka's check.crcs) end to end: a batch that went bad on the broker's disk after it
// was written is refused by default (CORRUPT_MESSAGE, position kept before it) and delivered as
// it is with checkCrcs: false (what kafkajs always does). The broker does not check CRCs on
// the read path, as Kafka's does not; its recovery after a clean shutdown checks only the
// batches after the last index entry of a log over 1 MiB (smaller logs are scanned whole), so
// the bad batch, first of a 1.2 MiB log with an index entry on each later batch, is served.
import assert from 'node:assert/strict';
import { readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { Consumer, type ConsumerRecord } from '../../../src/client/consumer/index.js';
import { KafkaResponseError } from '../../../src/client/errors.js';
import { Producer } from '../../../src/client/index.js';
import { type BrokerHandle, startBroker } from '../../../src/index.js';
import { ErrorCode } from '../../../src/protocol/errors.js';
import { scaled, TestTimeoutError } from '../../support/timeouts.js';
import { createTopics, testBroker } from '../integration/helpers.js';

const TOPIC = 'crc-check';
const FILLERS = 12;
const filler = (i: number) => Buffer.alloc(100 * 1024, `filler-${i}|`);

function findLogFile(dir: string): string | null {
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) {
      const found = findLogFile(path);
      if (found !== null) return found;
    } else if (name.endsWith('.log') && dir.endsWith(`${TOPIC}-0`)) return path;
  }
  return null;
}

/** Polls until `n` records arrived or poll throws; returns what came and the error, if any. */
async function consume(
  bootstrap: string,
  checkCrcs: boolean | undefined,
  n: number,
): Promise<{ records: ConsumerRecord[]; error: unknown }> {
  const consumer = new Consumer({
    bootstrapServers: bootstrap,
    autoOffsetReset: 'earliest',
    ...(checkCrcs === undefined ? {} : { checkCrcs }),
  });
  const records: ConsumerRecord[] = [];
  const limit = scaled(30_000);
  const deadline = Date.now() + limit;
  try {
    consumer.assign([{ topic: TOPIC, partition: 0 }]);
    while (records.length < n) {
      if (Date.now() > deadline) throw new TestTimeoutError(`${n} records`, limit);
      try {
        records.push(...(await consumer.poll(1000)));
      } catch (error) {
        return { records, error };
      }
    }
    return { records, error: null };
  } finally {
    await consumer.close();
  }
}

test('checkCrcs: a batch corrupted on disk is refused by default and delivered with checkCrcs false', {
  timeout: scaled(120_000),
}, async () => {
  // An index entry for every batch after the first (log.index.interval.bytes = 0).
  const tb = await testBroker({ 'log.index.interval.bytes': 0 });
  let broker = tb.broker;
  let restarted: BrokerHandle | null = null;
  try {
    await createTopics(broker.bootstrap, [{ name: TOPIC, numPartitions: 1 }]);
    const producer = new Producer({ bootstrapServers: broker.bootstrap, lingerMs: 0 });
    await producer.send({ topic: TOPIC, value: 'victim-value' });
    for (let i = 1; i <= FILLERS; i++) await producer.send({ topic: TOPIC, value: filler(i) });
    await producer.close();
    const port = broker.port;
    await broker.close();
    const file = findLogFile(tb.dataDir);
    assert.ok(file !== null, 'the partition has a segment file');
    const bytes = readFileSync(file);
    const at = bytes.indexOf('victim-value');
    assert.ok(at > 0 && at < bytes.indexOf('filler-1|'), 'the first batch holds the first value');
    bytes[at] = 'V'.charCodeAt(0);
    writeFileSync(file, bytes);
    restarted = await startBroker({ host: '127.0.0.1', port, dataDir: tb.dataDir });
    broker = restarted;

    for (const checkCrcs of [undefined, true]) {
      const { records, error } = await consume(broker.bootstrap, checkCrcs, FILLERS + 1);
      assert.equal(records.length, 0, `checkCrcs ${checkCrcs}: nothing from or after the bad batch`);
      assert.ok(
        error instanceof KafkaResponseError && error.errorCode === ErrorCode.CORRUPT_MESSAGE,
        `checkCrcs ${checkCrcs}: CORRUPT_MESSAGE, got ${String(error)}`,
      );
    }
    const { records, error } = await consume(broker.bootstrap, false, FILLERS + 1);
    assert.equal(error, null);
    assert.deepEqual(
      records.map((r) => r.offset),
      Array.from({ length: FILLERS + 1 }, (_, i) => BigInt(i)),
    );
    assert.equal(records[0]!.value!.toString(), 'Victim-value');
    for (let i = 1; i <= FILLERS; i++) assert.ok(records[i]!.value!.equals(filler(i)), `record ${i}`);
  } finally {
    await restarted?.close();
    await tb.stop(); // closes the first broker again (a no-op) and removes the data dir
  }
});
