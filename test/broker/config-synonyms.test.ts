// DescribeConfigs synonyms follow Kafka's ConfigHelper.configSynonyms: every source of the broker
// synonyms (DynamicBrokerConfig.brokerConfigSynonyms), ordered dynamic per-broker, dynamic
// default, static, default, then only the entries from the first one with the described name on.
// A topic key is described through its primary broker key (ServerTopicConfigSynonyms), so a
// topic's retention.ms never lists log.retention.hours unless log.retention.ms is set somewhere.

import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { buildBrokerConfig } from '../../src/broker/config/broker-config.js';
import { ConfigSource } from '../../src/broker/config/config-def.js';
import {
  brokerSynonyms,
  ConfigResolver,
  type DynamicBrokerConfigs,
} from '../../src/broker/config/config-resolver.js';
import { describeConfigsApi } from '../../src/protocol/messages/generated/describe-configs.js';
import { incrementalAlterConfigsApi } from '../../src/protocol/messages/generated/incremental-alter-configs.js';
import { startTestBroker, type TestBroker } from '../../src/testkit/index.js';
import { RawClient } from './support/raw-client.js';
import { createTopic } from './support/wire.js';

const S = ConfigSource;

function resolver(
  staticProps: [string, string][],
  dynamic: DynamicBrokerConfigs = { cluster: {}, broker: {} },
) {
  return new ConfigResolver(buildBrokerConfig(new Map(staticProps)).props, () => dynamic);
}

const rows = (e: { synonyms: readonly { name: string; value: string | null; source: number }[] }) =>
  e.synonyms.map((s) => [s.name, s.value, s.source]);

test("Kafka's broker synonym groups", () => {
  assert.deepEqual(brokerSynonyms('log.retention.hours'), [
    'log.retention.ms',
    'log.retention.minutes',
    'log.retention.hours',
  ]);
  assert.deepEqual(brokerSynonyms('log.roll.ms'), ['log.roll.ms', 'log.roll.hours']);
  assert.deepEqual(brokerSynonyms('log.roll.jitter.hours'), ['log.roll.jitter.ms', 'log.roll.jitter.hours']);
  assert.deepEqual(brokerSynonyms('log.flush.interval.ms'), [
    'log.flush.interval.ms',
    'log.flush.scheduler.interval.ms',
  ]);
  assert.deepEqual(brokerSynonyms('log.flush.scheduler.interval.ms'), ['log.flush.scheduler.interval.ms']);
  assert.deepEqual(brokerSynonyms('num.partitions'), ['num.partitions']);
});

test('topic retention.ms: nothing from log.retention.hours unless log.retention.ms is set', () => {
  // Defaults only: the value is 7 days (from log.retention.hours=168), no synonyms, DEFAULT_CONFIG.
  const [plain] = resolver([]).describeTopic({}, ['retention.ms']);
  assert.equal(plain!.value, '604800000');
  assert.equal(plain!.source, S.DEFAULT_CONFIG);
  assert.deepEqual(rows(plain!), []);

  // log.retention.hours set statically: the value follows it, the synonyms still do not list it.
  const [hours] = resolver([['log.retention.hours', '24']]).describeTopic({}, ['retention.ms']);
  assert.equal(hours!.value, '86400000');
  assert.equal(hours!.source, S.DEFAULT_CONFIG);
  assert.deepEqual(rows(hours!), []);

  // A topic override comes first; still no log.retention.hours after it.
  const [override] = resolver([['log.retention.hours', '24']]).describeTopic({ 'retention.ms': '1000' }, [
    'retention.ms',
  ]);
  assert.equal(override!.source, S.TOPIC_CONFIG);
  assert.deepEqual(rows(override!), [['retention.ms', '1000', S.TOPIC_CONFIG]]);

  // log.retention.ms set: it and every later synonym, in Kafka's source-then-name order.
  const [ms] = resolver([
    ['log.retention.ms', '5000'],
    ['log.retention.hours', '24'],
  ]).describeTopic({}, ['retention.ms']);
  assert.equal(ms!.value, '5000');
  assert.equal(ms!.source, S.STATIC_BROKER_CONFIG);
  assert.deepEqual(rows(ms!), [
    ['log.retention.ms', '5000', S.STATIC_BROKER_CONFIG],
    ['log.retention.hours', '24', S.STATIC_BROKER_CONFIG],
    ['log.retention.hours', '168', S.DEFAULT_CONFIG],
  ]);
});

test('the cut is at the first entry with the name, across sources', () => {
  // Dynamic log.retention.hours sorts before static log.retention.ms, so it is dropped.
  const r = resolver([['log.retention.ms', '5000']], { cluster: {}, broker: { 'log.retention.hours': '1' } });
  const [topic] = r.describeTopic({}, ['retention.ms']);
  assert.equal(topic!.value, '5000');
  assert.deepEqual(rows(topic!), [
    ['log.retention.ms', '5000', S.STATIC_BROKER_CONFIG],
    ['log.retention.hours', '168', S.DEFAULT_CONFIG],
  ]);
  // Broker keys follow the same rule: describing log.retention.hours keeps everything from its
  // first entry on (other names included), log.retention.ms drops the dynamic hours before it.
  const [hours, ms] = r.describeBroker(['log.retention.hours', 'log.retention.ms']);
  assert.equal(hours!.value, '1');
  assert.equal(hours!.source, S.DYNAMIC_BROKER_CONFIG);
  assert.deepEqual(rows(hours!), [
    ['log.retention.hours', '1', S.DYNAMIC_BROKER_CONFIG],
    ['log.retention.ms', '5000', S.STATIC_BROKER_CONFIG],
    ['log.retention.hours', '168', S.DEFAULT_CONFIG],
  ]);
  assert.deepEqual(rows(ms!), [
    ['log.retention.ms', '5000', S.STATIC_BROKER_CONFIG],
    ['log.retention.hours', '168', S.DEFAULT_CONFIG],
  ]);
});

test('segment.ms and flush.ms use their synonym lists; one-key synonyms are unchanged', () => {
  const r = resolver([
    ['log.roll.hours', '2'],
    ['log.segment.bytes', '1000'],
  ]);
  const [segmentMs, flushMs, segmentBytes] = r.describeTopic({}, ['segment.ms', 'flush.ms', 'segment.bytes']);
  assert.equal(segmentMs!.value, String(2 * 3600_000));
  assert.deepEqual(rows(segmentMs!), []);
  assert.deepEqual(rows(flushMs!), []);
  assert.deepEqual(rows(segmentBytes!), [
    ['log.segment.bytes', '1000', S.STATIC_BROKER_CONFIG],
    ['log.segment.bytes', '1073741824', S.DEFAULT_CONFIG],
  ]);
  const [roll] = resolver([['log.roll.ms', '60000']]).describeTopic({}, ['segment.ms']);
  assert.deepEqual(rows(roll!), [
    ['log.roll.ms', '60000', S.STATIC_BROKER_CONFIG],
    ['log.roll.hours', '168', S.DEFAULT_CONFIG],
  ]);
});

test('negative log.retention.hours means unlimited retention (-1), as Kafka', () => {
  const [e] = resolver([['log.retention.hours', '-5']]).describeTopic({}, ['retention.ms']);
  assert.equal(e!.value, '-1');
});

let broker: TestBroker;
let c: RawClient;
before(async () => {
  broker = await startTestBroker({ overrides: { 'log.retention.hours': 24 } });
  c = await RawClient.connect(broker.port);
  assert.equal(await createTopic(c, 'syn'), 0);
});
after(async () => {
  c?.close();
  await broker?.close();
});

test('DescribeConfigs on the wire: retention.ms does not list log.retention.hours', async () => {
  const r = await c.request(describeConfigsApi, 4, {
    resources: [{ resourceType: 2, resourceName: 'syn', configurationKeys: ['retention.ms'] }],
    includeSynonyms: true,
    includeDocumentation: false,
  });
  const [entry] = r.results[0]!.configs;
  assert.equal(entry!.value, '86400000');
  assert.equal(entry!.configSource, S.DEFAULT_CONFIG);
  assert.deepEqual(entry!.synonyms, []);
  const b = await c.request(describeConfigsApi, 4, {
    resources: [
      { resourceType: 4, resourceName: String(broker.nodeId), configurationKeys: ['log.retention.hours'] },
    ],
    includeSynonyms: true,
    includeDocumentation: false,
  });
  assert.deepEqual(
    b.results[0]!.configs[0]!.synonyms.map((s) => [s.name, s.value, s.source]),
    [
      ['log.retention.hours', '24', S.STATIC_BROKER_CONFIG],
      ['log.retention.hours', '168', S.DEFAULT_CONFIG],
    ],
  );
});

test('DescribeConfigs of the cluster default lists only cluster-default synonyms', async () => {
  const set = await c.request(incrementalAlterConfigsApi, 1, {
    resources: [
      {
        resourceType: 4,
        resourceName: '',
        configs: [{ name: 'log.retention.ms', configOperation: 0, value: '7200000' }],
      },
    ],
    validateOnly: false,
  });
  assert.equal(set.responses[0]!.errorCode, 0);
  const describe = async (name: string) =>
    (
      await c.request(describeConfigsApi, 4, {
        resources: [{ resourceType: 4, resourceName: name, configurationKeys: ['log.retention.ms'] }],
        includeSynonyms: true,
        includeDocumentation: false,
      })
    ).results[0]!.configs[0]!.synonyms.map((s) => [s.name, s.value, s.source]);
  assert.deepEqual(await describe(''), [['log.retention.ms', '7200000', S.DYNAMIC_DEFAULT_BROKER_CONFIG]]);
  assert.deepEqual(await describe(String(broker.nodeId)), [
    ['log.retention.ms', '7200000', S.DYNAMIC_DEFAULT_BROKER_CONFIG],
    ['log.retention.hours', '24', S.STATIC_BROKER_CONFIG],
    ['log.retention.hours', '168', S.DEFAULT_CONFIG],
  ]);
});
