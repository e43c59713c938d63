// Protocol edges found by probing the broker: a 32,767-character topic name (the longest string
// the protocol carries) is answered with INVALID_TOPIC_EXCEPTION and a bounded message instead of
// the broker failing to encode its own error and dropping the connection; requests refused as
// malformed are logged once each at warn with the client's address, at most 10 per minute.

import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import type { Logger, LogLevel } from '../../src/broker/logger.js';
import { RejectionLog } from '../../src/broker/network/rejection-log.js';
import { ErrorCode } from '../../src/protocol/errors.js';
import { createPartitionsApi } from '../../src/protocol/messages/generated/create-partitions.js';
import { createTopicsApi } from '../../src/protocol/messages/generated/create-topics.js';
import { describeConfigsApi } from '../../src/protocol/messages/generated/describe-configs.js';
import { incrementalAlterConfigsApi } from '../../src/protocol/messages/generated/incremental-alter-configs.js';
import { metadataApi } from '../../src/protocol/messages/generated/metadata.js';
import { startTestBroker, type TestBroker } from '../../src/testkit/index.js';
import { scaled } from '../support/timeouts.js';
import { RawClient } from './support/raw-client.js';
import { createTopic } from './support/wire.js';

const LONG = 'a'.repeat(32767);
const logs: { level: LogLevel; msg: string; fields?: Record<string, unknown> }[] = [];
const logger: Logger = {
  log: (level, msg, fields) => logs.push({ level, msg, ...(fields ? { fields } : {}) }),
};

let broker: TestBroker;
let c: RawClient;
before(async () => {
  broker = await startTestBroker({ logger });
  c = await RawClient.connect(broker.port);
  assert.equal(await createTopic(c, 'ok'), 0);
});
after(async () => {
  c?.close();
  await broker?.close();
});

test('CreateTopics with a 32,767-character name: INVALID_TOPIC_EXCEPTION, bounded message, connection kept', async () => {
  const r = await c.request(createTopicsApi, 5, {
    topics: [{ name: LONG, numPartitions: 1, replicationFactor: 1, assignments: [], configs: [] }],
    timeoutMs: 5000,
    validateOnly: false,
  });
  const t = r.topics[0]!;
  assert.equal(t.errorCode, ErrorCode.INVALID_TOPIC_EXCEPTION);
  assert.ok(
    t.errorMessage !== null && t.errorMessage.length < 1200,
    `message of ${t.errorMessage?.length} chars`,
  );
  assert.match(t.errorMessage!, /can't be longer than 249 characters/);
  assert.match(t.errorMessage!, /32767 characters/);
  assert.equal(t.name, LONG);
  // Same connection, next request.
  const m = await c.request(metadataApi, 9, {
    topics: [{ name: 'ok', topicId: 'AAAAAAAAAAAAAAAAAAAAAA' }],
    allowAutoTopicCreation: false,
    includeClusterAuthorizedOperations: false,
    includeTopicAuthorizedOperations: false,
  });
  assert.equal(m.topics[0]!.errorCode, 0);
});

test('DescribeConfigs, CreatePartitions and IncrementalAlterConfigs with the long name are answered', async () => {
  const d = await c.request(describeConfigsApi, 4, {
    resources: [{ resourceType: 2, resourceName: LONG, configurationKeys: null }],
    includeSynonyms: false,
    includeDocumentation: false,
  });
  assert.equal(d.results[0]!.errorCode, ErrorCode.INVALID_TOPIC_EXCEPTION);
  assert.ok((d.results[0]!.errorMessage ?? '').length < 1200);
  // Messages that quote the name some other way are bounded by the dispatcher.
  const p = await c.request(createPartitionsApi, 3, {
    topics: [{ name: LONG, count: 2, assignments: null }],
    timeoutMs: 5000,
    validateOnly: false,
  });
  assert.notEqual(p.results[0]!.errorCode, 0);
  assert.ok((p.results[0]!.errorMessage ?? '').length < 1200);
  const a = await c.request(incrementalAlterConfigsApi, 1, {
    resources: [
      {
        resourceType: 2,
        resourceName: 'ok',
        configs: [{ name: 'retention.ms', configOperation: 0, value: LONG }],
      },
    ],
    validateOnly: false,
  });
  assert.equal(a.responses[0]!.errorCode, ErrorCode.INVALID_CONFIG);
  assert.ok((a.responses[0]!.errorMessage ?? '').length < 1200);
  assert.equal(logs.filter((l) => l.level === 'error').length, 0, 'no handler failure');
});

test('a rejected request is logged at warn with the client address', async () => {
  const before = logs.length;
  const raw = await RawClient.connect(broker.port);
  const local = `${raw.socket.localAddress}:${raw.socket.localPort}`;
  raw.send(Buffer.from('GET / HTTP/1.1\r\nHost: x\r\n\r\n'));
  assert.equal(await raw.waitClosed(scaled(30_000)), true);
  const warned = logs.slice(before).filter((l) => l.level === 'warn');
  assert.equal(warned.length, 1, JSON.stringify(warned));
  assert.equal(warned[0]!.fields?.client, local);
  assert.match(String(warned[0]!.fields?.reason), /invalid request size/);
});

test('rejections are rate-limited: 10 lines per window, then one count', () => {
  const lines: { msg: string; fields?: Record<string, unknown> }[] = [];
  let now = 0;
  const r = new RejectionLog(
    { log: (level, msg, fields) => level === 'warn' && lines.push({ msg, ...(fields ? { fields } : {}) }) },
    10,
    60_000,
    () => now,
  );
  for (let i = 0; i < 25; i++) r.report(`10.0.0.1:${1000 + i}`, 'unknown API key 9999');
  assert.equal(lines.length, 10);
  assert.equal(lines[0]!.fields?.client, '10.0.0.1:1000');
  now = 60_000;
  r.report('10.0.0.2:1', 'unknown API key 9999');
  assert.equal(lines.length, 12);
  assert.equal(lines[10]!.fields?.count, 15);
  assert.equal(lines[11]!.fields?.client, '10.0.0.2:1');
});
