// Broker configuration: `.properties` parsing, Kafka keys/defaults, flag precedence,
// validation messages, and DescribeConfigs-style value/source resolution.

import assert from 'node:assert/strict';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import {
  buildBrokerConfig,
  ConfigError,
  loadBrokerConfig,
  parseListener,
} from '../../src/broker/config/broker-config.js';
import { ConfigSource } from '../../src/broker/config/config-def.js';
import { ConfigResolver } from '../../src/broker/config/config-resolver.js';
import { parseProperties } from '../../src/broker/config/properties.js';

test('properties: separators, comments, continuations, escapes', () => {
  const p = parseProperties(
    [
      '# comment',
      '! also comment',
      'a=1',
      'b : two',
      'c three',
      '  d=x\\',
      '   y',
      'e=tab\\tand\\u0041',
      'empty=',
      'f\\=g=h',
    ].join('\n'),
  );
  assert.deepEqual(Object.fromEntries(p), {
    a: '1',
    b: 'two',
    c: 'three',
    d: 'xy',
    e: 'tab\tandA',
    empty: '',
    'f=g': 'h',
  });
});

test('defaults are the embedded ones: 127.0.0.1:9092, ./data, node 1', () => {
  const c = loadBrokerConfig();
  assert.equal(c.host, '127.0.0.1');
  assert.equal(c.port, 9092);
  assert.deepEqual(c.logDirs, ['./data']);
  assert.equal(c.nodeId, 1);
  assert.equal(c.socketRequestMaxBytes, 104857600);
  assert.equal(c.numPartitions, 1);
  assert.equal(c.autoCreateTopicsEnable, true);
});

test('a server.properties file is read and flags override it', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'samsa-cfg-'));
  try {
    const file = join(dir, 'server.properties');
    await writeFile(
      file,
      'node.id=7\nlisteners=PLAINTEXT://0.0.0.0:9999\nlog.dirs=/a,/b\nnum.partitions=3\nsome.unknown.key=kept\n',
    );
    const fromFile = loadBrokerConfig({ configFile: file });
    assert.equal(fromFile.nodeId, 7);
    assert.equal(fromFile.host, '0.0.0.0');
    assert.equal(fromFile.port, 9999);
    assert.deepEqual(fromFile.logDirs, ['/a', '/b']);
    assert.equal(fromFile.numPartitions, 3);
    assert.equal(fromFile.props.get('some.unknown.key'), 'kept');
    const flagged = loadBrokerConfig({
      configFile: file,
      port: 0,
      nodeId: 2,
      dataDir: '/c',
      overrides: { 'num.partitions': 5 },
    });
    assert.equal(flagged.port, 0);
    assert.equal(flagged.host, '0.0.0.0');
    assert.equal(flagged.nodeId, 2);
    assert.deepEqual(flagged.logDirs, ['/c']);
    assert.equal(flagged.numPartitions, 5);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});

test('invalid values are rejected with Kafka-style messages', () => {
  assert.throws(
    () => loadBrokerConfig({ overrides: { 'num.partitions': 0 } }),
    (e: unknown) =>
      e instanceof ConfigError && /num\.partitions/.test(e.message) && /at least 1/.test(e.message),
  );
  assert.throws(() => loadBrokerConfig({ overrides: { 'auto.create.topics.enable': 'yes' } }), ConfigError);
  assert.throws(() => loadBrokerConfig({ overrides: { 'message.max.bytes': '12x' } }), ConfigError);
  assert.throws(() => loadBrokerConfig({ overrides: { listeners: 'nonsense' } }), ConfigError);
  assert.throws(() => loadBrokerConfig({ configFile: '/nonexistent/server.properties' }), ConfigError);
});

test('listener parsing: IPv6 and empty host', () => {
  assert.deepEqual(parseListener('PLAINTEXT://[::1]:9092'), { name: 'PLAINTEXT', host: '::1', port: 9092 });
  assert.deepEqual(parseListener('PLAINTEXT://:9093'), { name: 'PLAINTEXT', host: '0.0.0.0', port: 9093 });
});

test('topic config resolution: override > dynamic broker > dynamic default > static > default', () => {
  const staticProps = buildBrokerConfig(
    new Map([
      ['log.retention.hours', '24'],
      ['log.segment.bytes', '1000'],
    ]),
  ).props;
  let dynamic = { cluster: {} as Record<string, string>, broker: {} as Record<string, string> };
  const r = new ConfigResolver(staticProps, () => dynamic);
  assert.equal(r.topicValue('retention.ms', {}), String(24 * 3600_000));
  assert.equal(r.topicValue('segment.bytes', {}), '1000');
  assert.equal(r.topicValue('cleanup.policy', {}), 'delete');
  dynamic = { cluster: { 'log.segment.bytes': '2000' }, broker: {} };
  assert.equal(r.topicValue('segment.bytes', {}), '2000');
  dynamic = { cluster: { 'log.segment.bytes': '2000' }, broker: { 'log.segment.bytes': '3000' } };
  assert.equal(r.topicValue('segment.bytes', {}), '3000');
  assert.equal(r.topicValue('segment.bytes', { 'segment.bytes': '4000' }), '4000');
  const [entry] = r.describeTopic({ 'segment.bytes': '4000' }, ['segment.bytes']);
  assert.equal(entry!.source, ConfigSource.TOPIC_CONFIG);
  assert.deepEqual(
    entry!.synonyms.map((s) => [s.name, s.value, s.source]),
    [
      ['segment.bytes', '4000', ConfigSource.TOPIC_CONFIG],
      ['log.segment.bytes', '3000', ConfigSource.DYNAMIC_BROKER_CONFIG],
      ['log.segment.bytes', '2000', ConfigSource.DYNAMIC_DEFAULT_BROKER_CONFIG],
      ['log.segment.bytes', '1000', ConfigSource.STATIC_BROKER_CONFIG],
      ['log.segment.bytes', '1073741824', ConfigSource.DEFAULT_CONFIG],
    ],
  );
  // The value comes from log.retention.hours, but Kafka reports synonyms only from the primary
  // broker key (log.retention.ms) on, so the source is DEFAULT_CONFIG (see config-synonyms.test.ts).
  const [retention] = r.describeTopic({}, ['retention.ms']);
  assert.equal(retention!.source, ConfigSource.DEFAULT_CONFIG);
  assert.equal(retention!.value, '86400000');
  const [minIsr] = r.describeTopic({}, ['min.insync.replicas']);
  assert.equal(minIsr!.source, ConfigSource.DEFAULT_CONFIG);
  assert.equal(minIsr!.value, '1');
});
