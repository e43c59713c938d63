// Kafka 3.9's classification of broker keys (issue 14, item 5), over the wire for the whole
// table: DescribeConfigs reports `readOnly` exactly for the keys DynamicBrokerConfig does not
// list; AlterConfigs refuses every read-only Kafka key with ZkAdminManager's message; every
// dynamic key is accepted on the broker's id, per-broker ones are refused on the cluster default,
// the SSL store keys only with a listener prefix; accepted values are stored and described with
// their dynamic source, and log keys reach the logs. Raw requests, our admin client, kafka-python.
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { ConfigSource } from '../../src/broker/config/config-def.js';
import {
  DYNAMIC_BROKER_KEYS,
  dynamicMode,
  LISTENER_PREFIX_ONLY,
} from '../../src/broker/config/dynamic-broker-keys.js';
import { DESCRIBED_BROKER_CONFIGS } from '../../src/broker/config/inert-broker-configs.js';
import { KAFKA_BROKER_KEYS } from '../../src/broker/config/kafka-broker-keys.js';
import { Admin, KafkaResponseError } from '../../src/client/index.js';
import { ErrorCode } from '../../src/protocol/errors.js';
import { alterConfigsApi } from '../../src/protocol/messages/generated/alter-configs.js';
import { describeConfigsApi } from '../../src/protocol/messages/generated/describe-configs.js';
import { incrementalAlterConfigsApi } from '../../src/protocol/messages/generated/incremental-alter-configs.js';
import { startTestBroker, type TestBroker } from '../../src/testkit/index.js';
import { exec } from '../interop/support/exec.js';
import { repoFile } from '../support/repo.js';
import { scaled } from '../support/timeouts.js';
import { RawClient } from './support/raw-client.js';

const BROKER = 4;
const PY_SCRIPT = repoFile('test/broker/python/kafka_python_broker_configs.py');
let broker: TestBroker;
let raw: RawClient;
let id: string;

before(async () => {
  broker = await startTestBroker();
  raw = await RawClient.connect(broker.port);
  id = String(broker.nodeId);
});
after(async () => {
  raw?.socket.destroy();
  await broker?.close();
});

/** A value Kafka's type and validator accept (the default where there is one). */
function sample(name: string): string {
  if (name === 'advertised.listeners') return `PLAINTEXT://${broker.bootstrap}`;
  const def = DESCRIBED_BROKER_CONFIGS.get(name);
  if (def?.default != null) return def.default;
  switch (def?.type) {
    case 'password':
      return 'secret';
    case 'class':
      return 'org.example.Plugin';
    case 'long':
      return '86400000';
    case 'int':
    case 'short':
      return '1';
    default:
      return 'value';
  }
}

const refusal = (entity: string, text: string, keys: string[]) =>
  `Invalid config value for resource ConfigResource(type=BROKER, name='${entity}'): ${text}: Set(${keys.join(', ')})`;

async function incremental(entity: string, configs: Record<string, string>, validateOnly: boolean) {
  const res = await raw.request(incrementalAlterConfigsApi, 1, {
    resources: [
      {
        resourceType: BROKER,
        resourceName: entity,
        configs: Object.entries(configs).map(([name, value]) => ({ name, configOperation: 0, value })),
      },
    ],
    validateOnly,
  });
  return res.responses[0]!;
}

async function describe(entity: string, keys: string[] | null) {
  const res = await raw.request(describeConfigsApi, 4, {
    resources: [{ resourceType: BROKER, resourceName: entity, configurationKeys: keys }],
    includeSynonyms: false,
    includeDocumentation: false,
  });
  assert.equal(res.results[0]!.errorCode, 0);
  return new Map(res.results[0]!.configs.map((c) => [c.name, c]));
}

test("the table holds Kafka 3.9's classification, including the keys the issue names", () => {
  const modes = [...DYNAMIC_BROKER_KEYS.values()];
  // AllDynamicConfigs of Kafka 3.9 (89 keys) plus DynamicConfig.Broker's three quota keys.
  assert.equal(DYNAMIC_BROKER_KEYS.size, 92);
  assert.equal(modes.filter((m) => m === 'per-broker').length, 37);
  assert.equal(dynamicMode('advertised.listeners'), 'per-broker');
  assert.equal(dynamicMode('sasl.kerberos.min.time.before.relogin'), 'per-broker');
  assert.equal(dynamicMode('listener.name.internal.ssl.keystore.location'), 'per-broker');
  assert.equal(dynamicMode('listener.name.internal.max.connections'), 'cluster-wide');
  assert.equal(dynamicMode('log.retention.ms'), 'cluster-wide');
  assert.equal(dynamicMode('num.io.threads'), 'cluster-wide');
  for (const readOnly of ['log.dirs', 'log.retention.hours', 'log.roll.hours', 'num.partitions', 'broker.id'])
    assert.equal(dynamicMode(readOnly), null, readOnly);
});

test('DescribeConfigs reports readOnly for exactly the keys Kafka cannot change at runtime', async () => {
  const described = await describe(id, null);
  for (const name of DESCRIBED_BROKER_CONFIGS.keys()) {
    const entry = described.get(name);
    if (DESCRIBED_BROKER_CONFIGS.get(name)!.describedWhenUnset === false) {
      assert.equal(entry, undefined, `${name} is listed only once set`);
      continue;
    }
    assert.ok(entry, `${name} is described`);
    assert.equal(entry.readOnly, dynamicMode(name) === null, `${name} readOnly`);
  }
  assert.equal(described.get('advertised.listeners')!.readOnly, false);
  assert.equal(described.get('ssl.keystore.password')!.isSensitive, true);
});

test("AlterConfigs refuses every read-only Kafka key with Kafka's message, changing nothing", async () => {
  const readOnly = [...new Set([...DESCRIBED_BROKER_CONFIGS.keys(), ...KAFKA_BROKER_KEYS])].filter(
    (k) => dynamicMode(k) === null,
  );
  assert.ok(readOnly.length > 150, 'the whole Kafka key list is covered');
  for (const key of readOnly) {
    for (const entity of [id, '']) {
      const res = await raw.request(alterConfigsApi, 2, {
        resources: [
          { resourceType: BROKER, resourceName: entity, configs: [{ name: key, value: sample(key) }] },
        ],
        validateOnly: false,
      });
      const r = res.responses[0]!;
      assert.deepEqual(
        [r.errorCode, r.errorMessage],
        [ErrorCode.INVALID_CONFIG, refusal(entity, 'Cannot update these configs dynamically', [key])],
        key,
      );
    }
  }
  assert.equal((await describe('', null)).size, 0, 'no override was stored');
});

test('every dynamic key is accepted on the broker; per-broker keys are refused cluster-wide', async () => {
  for (const [key, mode] of DYNAMIC_BROKER_KEYS) {
    const onBroker = await incremental(id, { [key]: sample(key) }, true);
    const onDefault = await incremental('', { [key]: sample(key) }, true);
    if (LISTENER_PREFIX_ONLY.has(key)) {
      const text =
        'These security configs can be dynamically updated only per-listener using the listener prefix';
      assert.equal(onBroker.errorMessage, refusal(id, text, [key]), key);
      assert.equal(onDefault.errorMessage, refusal('', text, [key]), key);
      const prefixed = `listener.name.plaintext.${key}`;
      assert.equal((await incremental(id, { [prefixed]: sample(key) }, true)).errorCode, 0, prefixed);
      assert.equal(
        (await incremental('', { [prefixed]: sample(key) }, true)).errorCode,
        ErrorCode.INVALID_CONFIG,
      );
      continue;
    }
    assert.deepEqual([onBroker.errorCode, onBroker.errorMessage], [0, null], key);
    if (mode === 'cluster-wide')
      assert.deepEqual([onDefault.errorCode, onDefault.errorMessage], [0, null], key);
    else {
      const text = 'Cannot update these configs at default cluster level, broker id must be specified';
      assert.deepEqual(
        [onDefault.errorCode, onDefault.errorMessage],
        [ErrorCode.INVALID_CONFIG, refusal('', text, [key])],
        key,
      );
    }
  }
  const bad = await incremental(id, { 'log.cleaner.threads': 'many' }, true);
  assert.equal(bad.errorCode, ErrorCode.INVALID_CONFIG);
  assert.match(bad.errorMessage ?? '', /Invalid value many for configuration log.cleaner.threads/);
});

test('accepted values are stored, described with their dynamic source, and log keys reach the logs', async () => {
  const admin = new Admin({ bootstrapServers: broker.bootstrap });
  try {
    await admin.createTopics([{ name: 'dyn-conf', numPartitions: 1, replicationFactor: 1 }]);
    const perBroker = [...DYNAMIC_BROKER_KEYS].filter(
      ([k, m]) => m === 'per-broker' && !LISTENER_PREFIX_ONLY.has(k),
    );
    const clusterWide = [...DYNAMIC_BROKER_KEYS].filter(([, m]) => m === 'cluster-wide');
    const set = (keys: [string, unknown][], value = (k: string) => sample(k)) =>
      keys.map(([key]) => ({ key, op: 'set' as const, value: value(key) }));
    await admin.incrementalAlterConfigs([
      { type: 'broker', name: id, ops: set(perBroker) },
      {
        type: 'broker',
        name: '',
        ops: set(clusterWide, (k) => (k === 'log.retention.ms' ? '3600000' : sample(k))),
      },
    ]);
    const [mine] = await admin.describeConfigs([{ type: 'broker', name: id }]);
    const byName = new Map(mine!.entries.map((e) => [e.name, e]));
    for (const [key] of perBroker) assert.equal(byName.get(key)?.source, 'DYNAMIC_BROKER_CONFIG', key);
    for (const [key] of clusterWide)
      assert.equal(byName.get(key)?.source, 'DYNAMIC_DEFAULT_BROKER_CONFIG', key);
    const defaults = await describe('', null);
    assert.deepEqual([...defaults.keys()].sort(), clusterWide.map(([k]) => k).sort());
    for (const e of defaults.values())
      assert.equal(e.configSource, ConfigSource.DYNAMIC_DEFAULT_BROKER_CONFIG);
    assert.equal(broker.services.logs.getLog('dyn-conf', 0)!.config.retentionMs, 3_600_000);
    await assert.rejects(
      admin.incrementalAlterConfigs([
        { type: 'broker', name: id, ops: [{ key: 'log.dirs', op: 'set', value: '/x' }] },
      ]),
      (e: unknown) => e instanceof KafkaResponseError && e.errorCode === ErrorCode.INVALID_CONFIG,
    );
  } finally {
    await admin.close();
  }
});

test('kafka-python 2.0.2 sees the same classification and answers', {
  timeout: scaled(300_000),
}, async () => {
  const readOnly = [...DESCRIBED_BROKER_CONFIGS.keys()].filter((k) => dynamicMode(k) === null);
  const perBroker = Object.fromEntries(
    [...DYNAMIC_BROKER_KEYS]
      .filter(([k, m]) => m === 'per-broker' && !LISTENER_PREFIX_ONLY.has(k))
      .map(([k]) => [k, sample(k)]),
  );
  const clusterWide = Object.fromEntries(
    [...DYNAMIC_BROKER_KEYS].filter(([, m]) => m === 'cluster-wide').map(([k]) => [k, sample(k)]),
  );
  const spec = join(tmpdir(), `samsa-broker-configs-${process.pid}.json`);
  writeFileSync(spec, JSON.stringify({ readOnly, perBroker, clusterWide }));
  const r = await exec('/usr/bin/python3', [PY_SCRIPT, broker.bootstrap, id, spec], { timeoutMs: 240_000 });
  assert.equal(r.code, 0, r.stderr);
  const out = JSON.parse(r.stdout.toString()) as {
    readOnly: Record<string, boolean>;
    refused: Record<string, { error: number; message: string }>;
    perBroker: { error: number };
    clusterWide: { error: number };
    after: Record<string, { value: string | null; source: number } | null>;
  };
  for (const [name, ro] of Object.entries(out.readOnly)) assert.equal(ro, dynamicMode(name) === null, name);
  for (const key of readOnly) {
    assert.deepEqual(
      out.refused[key],
      {
        error: ErrorCode.INVALID_CONFIG,
        message: refusal(id, 'Cannot update these configs dynamically', [key]),
      },
      key,
    );
  }
  assert.deepEqual([out.perBroker.error, out.clusterWide.error], [0, 0]);
  for (const key of Object.keys(perBroker))
    assert.equal(out.after[key]?.source, ConfigSource.DYNAMIC_BROKER_CONFIG, key);
  for (const key of Object.keys(clusterWide))
    assert.equal(out.after[key]?.source, ConfigSource.DYNAMIC_DEFAULT_BROKER_CONFIG, key);
});
