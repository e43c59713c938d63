// The group coordinator's writes are acks=all under __consumer_offsets' min.insync.replicas, as
// Kafka's: with the offsets topic on two brokers and min.insync.replicas=2, an offset commit is
// refused with COORDINATOR_NOT_AVAILABLE (retriable) while one of them is down, never
// acknowledged on a single copy, and accepted again once the broker is back in the ISR.

import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { Admin } from '../../src/client/index.js';
import { BrokerLink } from '../../src/net/index.js';
import { ErrorCode } from '../../src/protocol/errors.js';
import { findCoordinatorApi } from '../../src/protocol/messages/generated/find-coordinator.js';
import { offsetCommitApi } from '../../src/protocol/messages/generated/offset-commit.js';
import { startTestCluster, type TestCluster } from '../../src/testkit/index.js';
import { scaled } from '../support/timeouts.js';

const GROUP = 'min-isr-group';
let cluster: TestCluster;

before(async () => {
  cluster = await startTestCluster({
    brokers: 2,
    mode: 'in-process',
    overrides: {
      'offsets.topic.replication.factor': 2,
      'offsets.topic.num.partitions': 1,
      'min.insync.replicas': 2,
    },
  });
  const admin = new Admin({ bootstrapServers: cluster.bootstrap() });
  try {
    await admin.createTopics([{ name: 'min-isr-data', numPartitions: 1, replicationFactor: 1 }]);
  } finally {
    await admin.close();
  }
});
after(async () => {
  await cluster?.close();
});

/** FindCoordinator then OffsetCommit (generation -1, as admin tools commit), on any live broker. */
async function commit(offset: bigint): Promise<number> {
  for (const id of cluster.nodeIds) {
    const b = cluster.broker(id);
    if (!b.running) continue;
    const any = new BrokerLink(-1, '127.0.0.1', b.port!, { clientId: 'min-isr', requestTimeoutMs: 60_000 });
    try {
      const found = await any.request(
        findCoordinatorApi,
        { key: GROUP, keyType: 0, coordinatorKeys: [] },
        { maxVersion: 3 },
      );
      if (found.errorCode !== ErrorCode.NONE) return found.errorCode;
      const coordinator = cluster.broker(found.nodeId);
      if (!coordinator.running) return ErrorCode.COORDINATOR_NOT_AVAILABLE;
      const link = new BrokerLink(found.nodeId, '127.0.0.1', coordinator.port!, {
        clientId: 'min-isr',
        requestTimeoutMs: 60_000,
      });
      try {
        const r = await link.request(offsetCommitApi, {
          groupId: GROUP,
          generationIdOrMemberEpoch: -1,
          memberId: '',
          groupInstanceId: null,
          retentionTimeMs: -1n,
          topics: [
            {
              name: 'min-isr-data',
              partitions: [
                {
                  partitionIndex: 0,
                  committedOffset: offset,
                  committedLeaderEpoch: -1,
                  commitTimestamp: -1n,
                  committedMetadata: null,
                },
              ],
            },
          ],
        });
        return r.topics[0]!.partitions[0]!.errorCode;
      } finally {
        link.close();
      }
    } catch {
      // a broker going away; ask another
    } finally {
      any.close();
    }
  }
  return -1;
}

/** Commits until `wanted` is answered; every other answer must be one of `allowed`. */
async function commitUntil(offset: bigint, wanted: number, allowed: readonly number[]): Promise<void> {
  const deadline = Date.now() + scaled(120_000);
  const seen: number[] = [];
  for (;;) {
    const code = await commit(offset);
    if (code === wanted) return;
    seen.push(code);
    assert.ok(allowed.includes(code) || code === -1, `unexpected answer ${code} (seen ${seen.join(',')})`);
    assert.ok(Date.now() < deadline, `timed out waiting for error code ${wanted}; seen ${seen.join(',')}`);
    await new Promise((r) => setTimeout(r, 250));
  }
}

const LOADING = [
  ErrorCode.COORDINATOR_LOAD_IN_PROGRESS,
  ErrorCode.COORDINATOR_NOT_AVAILABLE,
  ErrorCode.NOT_COORDINATOR,
];

test('offset commits need min.insync.replicas copies of __consumer_offsets', async () => {
  await commitUntil(1n, ErrorCode.NONE, LOADING);
  // Stop the broker that does not coordinate: the coordinator stays, its ISR shrinks to itself.
  const any = new BrokerLink(-1, '127.0.0.1', cluster.broker(1).port!, { clientId: 'min-isr' });
  const found = await any.request(
    findCoordinatorApi,
    { key: GROUP, keyType: 0, coordinatorKeys: [] },
    { maxVersion: 3 },
  );
  any.close();
  const other = cluster.nodeIds.find((id) => id !== found.nodeId)!;
  await cluster.stop(other);
  // Never NONE from here on: one copy is not enough.
  await commitUntil(2n, ErrorCode.COORDINATOR_NOT_AVAILABLE, [ErrorCode.NOT_COORDINATOR]);
  await cluster.restart(other);
  await commitUntil(3n, ErrorCode.NONE, LOADING);
});
