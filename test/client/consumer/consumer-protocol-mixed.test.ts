// One KIP-848 group, two clients: our consumer and a @platformatic/kafka 1.35 consumer, both
// with groupProtocol 'consumer', share the partitions the coordinator assigns; every record is
// read once (each committed as it is read); when ours leaves, the other gets everything and
// nothing already committed is read again.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import {
  type MessagesStream,
  Consumer as PlatformaticConsumer,
  stringDeserializers,
} from '@platformatic/kafka';
import type { TestBroker } from '../../../src/testkit/index.js';
import { until } from './group-worker.js';
import { broker, consumer, createTopic, produce, sleep } from './support.js';

let b: TestBroker;
before(async () => {
  b = await broker({ 'group.consumer.heartbeat.interval.ms': 200 });
});
after(async () => {
  await b?.close();
});

test('our member and a @platformatic/kafka member share a consumer group', async () => {
  const topic = 'cp-mixed';
  const group = 'cp-mixed-group';
  await createTopic(b, topic, 4);
  const seen = new Map<string, number>();
  const note = (k: string) => seen.set(k, (seen.get(k) ?? 0) + 1);

  const ours = consumer(b, { groupId: group, groupProtocol: 'consumer', enableAutoCommit: false });
  ours.subscribe([topic], {
    // Commit what was read before a partition moves to the other member.
    onPartitionsRevoked: async () => {
      await ours.commitSync().catch(() => {});
    },
  });
  let stop = false;
  let oursRead = 0;
  const loop = (async () => {
    while (!stop) {
      const recs = await ours.poll(100);
      for (const r of recs) note(r.key!.toString());
      oursRead += recs.length;
      if (recs.length > 0) await ours.commitSync().catch(() => {});
    }
  })();
  await until(() => ours.assignment().length === 4, 30000, 'our member owns all 4 partitions');

  const theirs = new PlatformaticConsumer({
    clientId: 'cp-mixed-platformatic',
    groupId: group,
    groupProtocol: 'consumer',
    bootstrapBrokers: [b.bootstrap],
    deserializers: stringDeserializers,
    autocommit: false,
    maxWaitTime: 100,
  });
  let stream: MessagesStream<string, string, string, string> | null = null;
  let theirsRead = 0;
  try {
    stream = await theirs.consume({ topics: [topic], mode: 'committed', fallbackMode: 'earliest' });
    stream.on('data', (m) => {
      note(m.key);
      theirsRead++;
      void m.commit();
    });
    const theirCount = () => theirs.assignments?.[0]?.partitions.length ?? 0;
    await until(
      () => ours.assignment().length === 2 && theirCount() === 2,
      30000,
      'the two members share the partitions',
    );
    await produce(b, topic, 80, 4);
    await until(() => seen.size === 80, 30000, 'all 80 records');
    assert.ok(oursRead > 0 && theirsRead > 0, `both read: ours=${oursRead} theirs=${theirsRead}`);

    // Ours leaves (after committing through the revoke listener): theirs takes everything.
    await sleep(300);
    stop = true;
    await loop;
    await ours.close();
    await until(() => theirCount() === 4, 30000, 'the @platformatic/kafka member owns all 4');
    await produce(b, topic, 40, 4, 80);
    await until(() => seen.size === 120, 30000, 'all 120 records');
    await sleep(300);
    const twice = [...seen].filter(([, n]) => n > 1).map(([k]) => k);
    assert.deepEqual(twice, [], 'nothing read twice');
  } finally {
    stop = true;
    await loop;
    await ours.close();
    await stream?.close();
    await theirs.close();
  }
});
