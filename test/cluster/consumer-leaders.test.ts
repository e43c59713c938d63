// Our consumer reads partitions led by different brokers side by side. Regression: the fetcher
// gave the first broker's Fetch all of the prefetch room (maxBufferedBytes), so no request went to
// any other leader, and that first leader — asked again each time its long-poll answer came back —
// starved the other partitions for good: a consumer assigned a topic spread over three brokers
// read one partition and then nothing more.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { Admin, Consumer, Producer } from '../../src/client/index.js';
import { startTestCluster, type TestCluster } from '../../src/testkit/cluster.js';
import { scaled, TestTimeoutError } from '../support/timeouts.js';

let cluster: TestCluster;

before(async () => {
  cluster = await startTestCluster({ brokers: 3, mode: 'in-process' });
});
after(async () => {
  await cluster?.close();
});

test('an assigned consumer reads every partition to its end when the leaders are three brokers', {
  timeout: scaled(300_000),
}, async () => {
  const admin = new Admin({ bootstrapServers: cluster.bootstrap() });
  await admin.createTopics([{ name: 'spread', replicaAssignment: { 0: [1], 1: [2], 2: [3] } }]);
  await admin.close();
  const producer = new Producer({ bootstrapServers: cluster.bootstrap() });
  await Promise.all(
    Array.from({ length: 900 }, (_, i) =>
      producer.send({ topic: 'spread', partition: i % 3, value: `v-${i}` }),
    ),
  );
  await producer.close();

  const tps = [0, 1, 2].map((partition) => ({ topic: 'spread', partition }));
  for (const options of [{}, { maxBufferedBytes: 64 * 1024, maxPartitionFetchBytes: 4096 }]) {
    const consumer = new Consumer({ bootstrapServers: cluster.bootstrap(), ...options });
    try {
      consumer.assign(tps);
      consumer.seekToBeginning(tps);
      const counts = [0, 0, 0];
      const ms = scaled(60_000);
      const deadline = Date.now() + ms;
      while (counts.some((n) => n < 300)) {
        if (Date.now() > deadline)
          throw new TestTimeoutError(
            `every partition read (${JSON.stringify(options)})`,
            ms,
            `read ${counts}`,
          );
        for (const r of await consumer.poll(500)) counts[r.partition]!++;
      }
      assert.deepEqual(counts, [300, 300, 300]);
    } finally {
      await consumer.close();
    }
  }
});
