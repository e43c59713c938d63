import assert from 'node:assert/strict';
import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { ErrorCode, KafkaError } from '../../src/protocol/errors.js';
import {
  DEFAULT_LOG_CONFIG,
  logConfigFromProperties,
  logConfigToProperties,
} from '../../src/storage/index.js';
import type { UnifiedLog } from '../../src/storage/unified-log.js';
import { batch, openManager, TOPIC_ID, tempDir } from './helpers.js';

test('logConfigFromProperties understands Kafka topic keys and rejects bad values', () => {
  const cfg = logConfigFromProperties({
    'retention.ms': '3600000',
    'cleanup.policy': 'delete,compact',
    'segment.bytes': '1048576',
    'flush.messages': '9223372036854775807',
    'message.timestamp.type': 'LogAppendTime',
    'min.cleanable.dirty.ratio': '0.1',
    'min.insync.replicas': '2',
  });
  assert.deepEqual(cfg, {
    retentionMs: 3_600_000,
    cleanupPolicy: 'compact,delete',
    segmentBytes: 1_048_576,
    flushMessages: Number.POSITIVE_INFINITY,
    messageTimestampType: 'LogAppendTime',
    minCleanableDirtyRatio: 0.1,
  });
  assert.equal(logConfigFromProperties(new Map([['retention.bytes', '-1']])).retentionBytes, -1);
  for (const [k, v] of [
    ['retention.ms', 'soon'],
    ['segment.bytes', '5'],
    ['cleanup.policy', 'forever'],
    ['segment.bytes', '99999999999'],
    ['min.cleanable.dirty.ratio', '2'],
  ]) {
    assert.throws(
      () => logConfigFromProperties({ [k!]: v! }),
      (e: unknown) => e instanceof KafkaError && e.code === ErrorCode.INVALID_CONFIG,
      `${k}=${v}`,
    );
  }
  const props = logConfigToProperties(DEFAULT_LOG_CONFIG);
  assert.equal(props['segment.bytes'], '1073741824');
  assert.equal(props['flush.ms'], '9223372036854775807');
  assert.deepEqual(logConfigFromProperties(props), { ...DEFAULT_LOG_CONFIG });
});

test('background tasks: flush.ms moves the recovery point, retention runs, checkpoints are written', async () => {
  const { dir, cleanup } = tempDir();
  try {
    let now = Date.now();
    const mgr = await openManager(dir, {
      now: () => now,
      flushCheckIntervalMs: 10,
      retentionCheckIntervalMs: 10,
      checkpointIntervalMs: 10,
    });
    const log = (await mgr.createLog('t', 0, {
      topicId: TOPIC_ID,
      config: { flushMs: 20, segmentBytes: 300, retentionMs: 1000 },
    })) as UnifiedLog;
    for (let i = 0; i < 10; i++) await log.appendAsLeader(batch(2, `v${i}`, { timestamp: now }), 0);
    log.setHighWatermark(log.logEndOffset);
    assert.ok(log.recoveryPoint < log.logEndOffset || log.segmentCount > 1);
    mgr.startBackgroundTasks();
    now += 50;
    const deadline = Date.now() + 5000;
    while (log.recoveryPoint < log.logEndOffset && Date.now() < deadline)
      await new Promise((r) => setTimeout(r, 10));
    assert.equal(log.recoveryPoint, log.logEndOffset, 'flush.ms flushed');
    now += 5000;
    while (log.logStartOffset === 0n && Date.now() < deadline) await new Promise((r) => setTimeout(r, 10));
    assert.ok(log.logStartOffset > 0n, 'retention ran in the background');
    await mgr.close();
  } finally {
    cleanup();
  }
});

test('updateConfig, deleteLog, several log dirs, topic ids', async () => {
  const root = tempDir();
  try {
    const dirs = [join(root.dir, 'a'), join(root.dir, 'b')];
    const mgr = await openManager(dirs.join(','));
    const logs = await Promise.all([0, 1, 2, 3].map((p) => mgr.createLog('t', p, { topicId: TOPIC_ID })));
    assert.deepEqual(
      dirs.map((d) => readdirSync(d).filter((f) => f.startsWith('t-')).length),
      [2, 2],
    );
    assert.equal(
      await mgr.createLog('t', 0, { topicId: TOPIC_ID }),
      logs[0],
      'createLog returns the existing log',
    );
    mgr.updateConfig('t', { retentionMs: 5, cleanupPolicy: 'compact' });
    assert.equal(logs[1]!.config.retentionMs, 5);
    assert.equal(logs[1]!.config.segmentBytes, DEFAULT_LOG_CONFIG.segmentBytes);
    assert.equal(mgr.topicConfig('t').cleanupPolicy, 'compact');
    await logs[2]!.appendAsLeader(batch(1), 0);
    const where = logs[2]!.dir;
    await mgr.deleteLog('t', 2);
    assert.equal(mgr.getLog('t', 2), undefined);
    assert.ok(!existsSync(where));
    await assert.rejects(
      logs[2]!.appendAsLeader(batch(1), 0),
      (e: unknown) => e instanceof KafkaError && e.code === ErrorCode.KAFKA_STORAGE_ERROR,
    );
    await mgr.close();
    const again = await openManager(dirs);
    assert.deepEqual(
      again
        .allLogs()
        .map((l) => l.partition)
        .sort(),
      [0, 1, 3],
    );
    assert.equal(again.getLog('t', 3)!.topicId, TOPIC_ID);
    await assert.rejects(
      again.createLog('bad topic!', 0, { topicId: TOPIC_ID }),
      (e: unknown) => e instanceof KafkaError,
    );
    await again.close();
    await assert.rejects(
      again.createLog('t', 9, { topicId: TOPIC_ID }),
      (e: unknown) => e instanceof KafkaError,
    );
  } finally {
    root.cleanup();
  }
});
