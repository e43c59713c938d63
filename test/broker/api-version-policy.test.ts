// The version policy (docs/design.md, "Version policy"): every implemented API advertises exactly
// Kafka 3.9's range, except the listed deviations; ApiVersions answers exactly the registry.

import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { ALL_HANDLERS } from '../../src/broker/apis/index.js';
import { DEVIATIONS, KAFKA_3_9_RANGES, policyRange } from '../../src/broker/apis/version-policy.js';
import { apiVersionsApi } from '../../src/protocol/messages/generated/api-versions.js';
import { startTestBroker, type TestBroker } from '../../src/testkit/index.js';
import { RawClient } from './support/raw-client.js';

let broker: TestBroker;
let c: RawClient;
before(async () => {
  broker = await startTestBroker();
  c = await RawClient.connect(broker.port);
});
after(async () => {
  c.close();
  await broker.close();
});

test('every handler declares the policy range (Kafka 3.9, or a listed deviation)', () => {
  const wrong: string[] = [];
  for (const h of ALL_HANDLERS) {
    const want = policyRange(h.api.key);
    if (want === undefined) wrong.push(`${h.api.name} (key ${h.api.key}) is not an API of Kafka 3.9`);
    else if (want.min !== h.minVersion || want.max !== h.maxVersion)
      wrong.push(`${h.api.name}: v${h.minVersion}-${h.maxVersion}, policy v${want.min}-${want.max}`);
  }
  assert.deepEqual(wrong, []);
  for (const key of DEVIATIONS.keys())
    assert.ok(KAFKA_3_9_RANGES.has(key), `deviation ${key} is a Kafka API`);
});

test('the old versions Kafka 3.9 still serves are all here: Produce v0, Fetch v0, ApiVersions v4', () => {
  const byKey = new Map(ALL_HANDLERS.map((h) => [h.api.key, h]));
  // Produce up to v12: Kafka 4.0's transaction protocol v2 (KIP-890), a listed deviation.
  assert.deepEqual([byKey.get(0)?.minVersion, byKey.get(0)?.maxVersion], [0, 12]);
  assert.deepEqual([byKey.get(1)?.minVersion, byKey.get(1)?.maxVersion], [0, 17]);
  assert.deepEqual([byKey.get(18)?.minVersion, byKey.get(18)?.maxVersion], [0, 4]);
  assert.deepEqual([byKey.get(75)?.minVersion, byKey.get(75)?.maxVersion], [0, 0]);
});

test('ApiVersions v0-v4 answer exactly the registry', async () => {
  const expected = ALL_HANDLERS.map((h) => [h.api.key, h.minVersion, h.maxVersion]).sort(
    (a, b) => a[0]! - b[0]!,
  );
  for (const v of [0, 1, 2, 3, 4]) {
    const r = await c.request(apiVersionsApi, v, {
      clientSoftwareName: 'policy-test',
      clientSoftwareVersion: '1',
    });
    assert.equal(r.errorCode, 0);
    assert.deepEqual(
      r.apiKeys.map((k) => [k.apiKey, k.minVersion, k.maxVersion]),
      expected,
      `v${v}`,
    );
  }
});
