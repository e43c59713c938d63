// Replication traffic in /metrics, as Kafka's ReplicationBytesInPerSec (the follower: record
// bytes appended from its leader) and ReplicationBytesOutPerSec (the leader: record bytes its
// followers read), apart from the consumers' BytesOut; and the follower's reads in the leader's
// TotalFetchRequests. Two real brokers in this process (support/cluster.ts).

import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { BrokerHandle } from '../../../src/broker/broker.js';
import { ErrorCode } from '../../../src/protocol/errors.js';
import { parsePrometheusText, sampleValue } from '../../support/prometheus-text.js';
import { scaled } from '../../support/timeouts.js';
import { batch } from '../../storage/helpers.js';
import { RawClient } from '../support/raw-client.js';
import { fetchAll } from '../support/wire.js';
import { InProcessCluster, produceTo, waitUntil } from './support/cluster.js';

async function scrape(b: BrokerHandle) {
  assert.ok(b.http);
  const res = await fetch(`http://127.0.0.1:${b.http.port}/metrics`, {
    signal: AbortSignal.timeout(scaled(20_000)),
  });
  assert.equal(res.status, 200);
  return parsePrometheusText(await res.text());
}

const family = (name: string) => `kafka_server_brokertopicmetrics_${name}_total`;

test('replication bytes in on the follower and out on the leader equal the bytes produced; consumers count as bytes out', async () => {
  const c = await InProcessCluster.start([1, 2], {
    'replica.fetch.backoff.ms': 100,
    'http.listener': '127.0.0.1:0',
  });
  try {
    const b1 = c.broker(1);
    await b1.services.commands.createTopic({
      name: 'rm',
      numPartitions: -1,
      replicationFactor: -1,
      assignments: [{ partitionIndex: 0, brokerIds: [1, 2] }],
      configs: {},
    });
    await waitUntil('the leader on 1, the follower on 2', () => {
      const f = c.partition(2, 'rm');
      return c.partition(1, 'rm')?.isLeader === true && f?.leaderId === 1;
    });
    let bytes = 0;
    for (let i = 0; i < 10; i++) {
      const records = batch(4, 'x', { values: Array.from({ length: 4 }, (_, j) => `v${i}-${j}`) });
      bytes += records.length;
      assert.equal((await produceTo(b1, 'rm', 0, records, 1)).errorCode, ErrorCode.NONE);
    }
    const follower = c.partition(2, 'rm')!;
    await waitUntil('the follower has every record', () => follower.log.logEndOffset === 40n);

    const onFollower = await scrape(c.broker(2));
    assert.equal(sampleValue(onFollower, family('replicationbytesin')), bytes);
    assert.equal(sampleValue(onFollower, family('replicationbytesout')), 0);
    // At least what the follower appended (a fetch answer the follower dropped, e.g. across a
    // LeaderAndIsr, is sent again and counted again, as in Kafka).
    await waitUntil('the leader counted every byte its follower read', async () => {
      const e = await scrape(b1);
      return sampleValue(e, family('replicationbytesout')) >= bytes;
    });
    const onLeader = await scrape(b1);
    const replicatedOut = sampleValue(onLeader, family('replicationbytesout'));
    assert.equal(sampleValue(onLeader, family('replicationbytesin')), 0);
    assert.equal(
      sampleValue(onLeader, family('bytesout'), { topic: 'rm' }),
      0,
      'followers are not consumers',
    );
    assert.ok(
      sampleValue(onLeader, family('totalfetchrequests'), { topic: 'rm' }) > 0,
      "the follower's reads",
    );
    assert.equal(sampleValue(onLeader, family('failedfetchrequests'), { topic: 'rm' }), 0);

    const consumer = await RawClient.connect(b1.port);
    try {
      assert.equal((await fetchAll(consumer, 'rm', 0)).length, 40);
    } finally {
      consumer.close();
    }
    const after = await scrape(b1);
    assert.equal(sampleValue(after, family('bytesout'), { topic: 'rm' }), bytes);
    assert.equal(
      sampleValue(after, family('replicationbytesout')),
      replicatedOut,
      'a consumer is not a follower',
    );
  } finally {
    await c.close();
  }
});
