// Admin commands and a lost store connection: an admin request waits for the connection to come
// back within its timeout (Kafka's broker blocks an admin write until ZooKeeper is back), while
// auto-creation fails at once and leaves the retry to the client's next Metadata request.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { MockClock } from '../../../src/broker/coordinator/runtime/clock.js';
import { silentLogger } from '../../../src/broker/logger.js';
import { MemoryMetadataService } from '../../../src/broker/metadata/store/memory-store.js';
import {
  type CreateTopicSpec,
  type LocalMetadataView,
  TopicCommands,
} from '../../../src/broker/metadata/topic-commands.js';
import { ErrorCode, KafkaError } from '../../../src/protocol/errors.js';
import { scaled } from '../../support/timeouts.js';

const LIVENESS_MS = scaled(60_000);

async function setup() {
  const service = new MemoryMetadataService({ clock: new MockClock(), sessionTimeoutMs: 600_000 });
  const store = service.connect();
  await store.registerBroker({
    nodeId: 1,
    host: 'localhost',
    port: 9091,
    rack: null,
    endpoints: [{ listener: 'PLAINTEXT', securityProtocol: 'PLAINTEXT', host: 'localhost', port: 9091 }],
  });
  // This broker's own metadata is not under test: it "sees" every change at once.
  const view: LocalMetadataView = {
    topic: () => undefined,
    brokerConfigs: () => ({}),
    waitFor: async () => true,
  };
  const commands = new TopicCommands({
    store,
    view,
    config: { numPartitions: 1, defaultReplicationFactor: 1, deleteTopicEnable: true },
    logger: silentLogger,
  });
  return { service, store, commands };
}

const spec = (name: string): CreateTopicSpec => ({
  name,
  numPartitions: 1,
  replicationFactor: 1,
  assignments: [],
  configs: {},
});

const timedOut = (what: RegExp) => (e: unknown) =>
  e instanceof KafkaError && e.code === ErrorCode.REQUEST_TIMED_OUT && what.test(e.message);

test('a lost store connection: admin commands wait for it within their timeout, auto-creation does not', async () => {
  const { service, store, commands } = await setup();
  service.disconnect(store);

  // Auto-creation and internal topics call createTopic without a store wait: they fail at once.
  await assert.rejects(commands.createTopic(spec('auto')), timedOut(/metadata store unavailable/));

  // An admin request's wait that ends before the connection returns: REQUEST_TIMED_OUT.
  await assert.rejects(commands.deleteTopic('none', 50), timedOut(/metadata store unavailable/));
  await assert.rejects(commands.planTopic(spec('plan'), 50), timedOut(/metadata store unavailable/));

  // A wait that sees the connection back: the command completes.
  let settled = false;
  const created = commands.createTopic(spec('admin'), LIVENESS_MS, LIVENESS_MS).finally(() => {
    settled = true;
  });
  const grown = commands.createPartitions('existing', 2, null, false, LIVENESS_MS).catch((e) => e);
  await new Promise((r) => setTimeout(r, 100));
  assert.equal(settled, false, 'still waiting while disconnected');
  service.reconnect(store);
  await created;
  assert.deepEqual(await store.topicNames(), ['admin']);
  const err = await grown;
  assert.ok(
    err instanceof KafkaError && err.code === ErrorCode.UNKNOWN_TOPIC_OR_PARTITION,
    `read after the reconnect: ${err}`,
  );
  await commands.deleteTopic('admin', LIVENESS_MS);
  assert.deepEqual(await store.pendingTopicDeletions(), ['admin']);
});
