// confluent-kafka-python 1.7.0 (librdkafka 2.0.2, via /usr/bin/python3): idempotent producer
// with acks=all and keys/headers per codec, consumer with assign() (no group), all verified.

import { after, before, test } from 'node:test';
import { startTestBroker, type TestBroker } from '../../src/testkit/index.js';
import { confluentRoundTrip } from './support/client-roundtrips.js';

let broker: TestBroker;

before(async () => {
  broker = await startTestBroker({ overrides: { 'num.partitions': 2 } });
});
after(async () => {
  await broker.close();
});

for (const codec of ['none', 'gzip', 'snappy', 'lz4', 'zstd']) {
  test(`confluent-kafka-python produce + assign/consume round trip, ${codec}`, {
    timeout: 120_000,
  }, async () => {
    await confluentRoundTrip(broker.bootstrap, `py-${codec}`, 20_000, codec);
  });
}
