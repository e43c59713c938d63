// message.format.version (topic) and log.message.format.version (broker) as Kafka 3.9 takes
// them: accepted when they are a valid MetadataVersion, described with Kafka's default, ignored
// (batches stay v2), and warned about with Kafka's text when they name a format before v2.

import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import {
  brokerMessageFormatWarning,
  metadataVersionIndex,
  recordVersionOf,
  topicMessageFormatWarning,
  validateMetadataVersion,
} from '../../src/broker/config/message-format-version.js';
import type { Logger } from '../../src/broker/logger.js';
import { configKeyReport } from '../../src/cli/config-warnings.js';
import { alterConfigsApi } from '../../src/protocol/messages/generated/alter-configs.js';
import { createTopicsApi } from '../../src/protocol/messages/generated/create-topics.js';
import { describeConfigsApi } from '../../src/protocol/messages/generated/describe-configs.js';
import { startTestBroker, type TestBroker } from '../../src/testkit/index.js';
import { entry, k, produceLegacy, storedHeaders } from './support/legacy.js';
import { RawClient } from './support/raw-client.js';
import { createTopic } from './support/wire.js';

describe('MetadataVersion strings (MetadataVersionValidator)', () => {
  test('Kafka 3.9 accepts versions, releases and longer forms cut to the release', () => {
    for (const v of [
      '0.8.0',
      '0.8.2',
      '0.9.0',
      '0.9.0.1',
      '0.10.0',
      '0.10.0-IV1',
      '0.10.2.2',
      '0.11.0',
      '1.0',
      '2.8',
      '2.8.1',
      '3.0-IV1',
      '3.9',
      '3.9.0',
      '4.0-IV0',
    ])
      assert.equal(validateMetadataVersion(v), null, v);
    for (const v of ['0.7', '4.0', '3.10', 'abc', '', '1', '0.10.3'])
      assert.equal(validateMetadataVersion(v), `Version ${v} is not a valid version`, v);
    assert.equal(
      metadataVersionIndex('0.10.0'),
      metadataVersionIndex('0.10.0-IV1'),
      'a release = its last version',
    );
  });

  test('message format per version: v0 before 0.10.0, v1 before 0.11.0', () => {
    assert.deepEqual(
      ['0.8.2', '0.9.0', '0.10.0-IV0', '0.10.2', '0.11.0-IV0', '2.8', '3.0-IV1'].map(recordVersionOf),
      [0, 0, 1, 1, 2, 2, 2],
    );
  });

  test("Kafka's warning texts, only for formats before v2", () => {
    assert.equal(
      topicMessageFormatWarning('t', { 'message.format.version': '0.10.2' }, null),
      'Topic configuration message.format.version with value `0.10.2` is ignored for `t` because the ' +
        'inter-broker protocol version `3.9-IV0` is greater or equal than 3.0. This configuration is ' +
        'deprecated and it will be removed in Apache Kafka 4.0.',
    );
    assert.equal(topicMessageFormatWarning('t', { 'message.format.version': '2.8' }, null), null);
    assert.equal(topicMessageFormatWarning('t', {}, null), null);
    assert.equal(
      brokerMessageFormatWarning('0.9.0', '3.5'),
      'Broker configuration log.message.format.version with value 0.9.0 is ignored because the ' +
        'inter-broker protocol version `3.5` is greater or equal than 3.0. This configuration is ' +
        'deprecated and it will be removed in Apache Kafka 4.0.',
    );
    assert.equal(brokerMessageFormatWarning('3.0-IV1', null), null);
  });

  test('samsa start no longer calls log.message.format.version a key without effect', () => {
    const r = configKeyReport(['log.message.format.version', 'message.format.version']);
    assert.deepEqual(r.noEffect, []);
    assert.match(
      r.unknown[0] ?? '',
      /message.format.version is a topic config; its broker-wide default is log.message.format.version/,
    );
  });
});

describe('on a broker', () => {
  let broker: TestBroker;
  let c: RawClient;
  const warnings: string[] = [];
  const logger: Logger = {
    log(level, msg) {
      if (level === 'warn') warnings.push(msg);
    },
  };

  before(async () => {
    broker = await startTestBroker({ overrides: { 'log.message.format.version': '0.10.2' }, logger });
    c = await RawClient.connect(broker.port);
  });
  after(async () => {
    c.close();
    await broker.close();
  });

  const create = async (name: string, value: string) =>
    (
      await c.request(createTopicsApi, 5, {
        topics: [
          {
            name,
            numPartitions: 1,
            replicationFactor: 1,
            assignments: [],
            configs: [{ name: 'message.format.version', value }],
          },
        ],
        timeoutMs: 5000,
        validateOnly: false,
      })
    ).topics[0]!;

  const describeTopic = async (name: string) =>
    (
      await c.request(describeConfigsApi, 4, {
        resources: [{ resourceType: 2, resourceName: name, configurationKeys: ['message.format.version'] }],
        includeSynonyms: true,
        includeDocumentation: false,
      })
    ).results[0]!.configs[0]!;

  test('the broker key starts the broker, with the warning', () => {
    assert.ok(
      warnings.includes(
        'Broker configuration log.message.format.version with value 0.10.2 is ignored because the ' +
          'inter-broker protocol version `3.9-IV0` is greater or equal than 3.0. This configuration is ' +
          'deprecated and it will be removed in Apache Kafka 4.0.',
      ),
      warnings.join('\n'),
    );
  });

  test('CreateTopics takes message.format.version; the log stays v2; DescribeConfigs shows it', async () => {
    const r = await create('mfv-old', '0.10.0');
    assert.equal(r.errorCode, 0, r.errorMessage ?? '');
    assert.ok(
      warnings.some((w) =>
        w.startsWith(
          'Topic configuration message.format.version with value `0.10.0` is ignored for `mfv-old`',
        ),
      ),
    );
    assert.equal(
      (await produceLegacy(c, 2, 'mfv-old', entry(0n, 1, 0, k('k'), k('v'), BigInt(Date.now())))).errorCode,
      0,
    );
    assert.deepEqual(
      (await storedHeaders(c, 'mfv-old')).map((h) => h.magic),
      [2],
      'still RecordBatch v2',
    );
    const d = await describeTopic('mfv-old');
    assert.deepEqual([d.value, d.configSource], ['0.10.0', 1]);
    // A topic without it inherits the broker's (ignored) value through the synonym.
    assert.equal(await createTopic(c, 'mfv-new'), 0);
    const inherited = await c.request(describeConfigsApi, 4, {
      resources: [{ resourceType: 2, resourceName: 'mfv-new', configurationKeys: null }],
      includeSynonyms: true,
      includeDocumentation: false,
    });
    const e = inherited.results[0]!.configs.find((x) => x.name === 'message.format.version')!;
    assert.deepEqual([e.value, e.configSource], ['0.10.2', 4]);
    assert.equal(await createTopic(c, 'mfv-3', 1, { 'message.format.version': '3.0' }), 0);
    assert.ok(!warnings.some((w) => w.includes('`mfv-3`')), 'no warning for a v2 format');
  });

  test('an invalid version is INVALID_CONFIG with Kafka’s message; AlterConfigs takes a valid one', async () => {
    const bad = await create('mfv-bad', '0.7.1');
    assert.equal(bad.errorCode, 40);
    assert.match(
      bad.errorMessage ?? '',
      /Invalid value 0.7.1 for configuration message.format.version: Version 0.7.1 is not a valid version/,
    );
    const alter = await c.request(alterConfigsApi, 1, {
      resources: [
        {
          resourceType: 2,
          resourceName: 'mfv-new',
          configs: [{ name: 'message.format.version', value: '0.9.0' }],
        },
      ],
      validateOnly: false,
    });
    assert.equal(alter.responses[0]!.errorCode, 0);
    assert.equal((await describeTopic('mfv-new')).value, '0.9.0');
    const deadline = Date.now() + 5000;
    while (!warnings.some((w) => w.includes('`0.9.0` is ignored for `mfv-new`')) && Date.now() < deadline)
      await new Promise((r) => setTimeout(r, 20));
    assert.ok(
      warnings.some((w) => w.includes('`0.9.0` is ignored for `mfv-new`')),
      'warned on the change',
    );
  });

  test('the broker key is described with Kafka’s default when unset elsewhere', async () => {
    const r = await c.request(describeConfigsApi, 4, {
      resources: [
        {
          resourceType: 4,
          resourceName: String(broker.nodeId),
          configurationKeys: ['log.message.format.version'],
        },
      ],
      includeSynonyms: true,
      includeDocumentation: false,
    });
    const e = r.results[0]!.configs[0]!;
    assert.deepEqual([e.value, e.configSource], ['0.10.2', 4]);
    assert.deepEqual(
      e.synonyms.map((s) => [s.value, s.source]),
      [
        ['0.10.2', 4],
        ['3.0-IV1', 5],
      ],
    );
  });
});
