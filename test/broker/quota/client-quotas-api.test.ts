// DescribeClientQuotas / AlterClientQuotas through our Admin: a round trip of user, client-id,
// user+client-id and default entities (persisted across a restart), Kafka's filters and strict
// rule, validateOnly, and hostile input answered with Kafka's errors while the broker keeps serving.

import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { Admin, type ClientQuotaEntry, KafkaResponseError } from '../../../src/client/index.js';
import { startTestBroker, type TestBroker } from '../../../src/testkit/index.js';

let broker: TestBroker;
let admin: Admin;

before(async () => {
  broker = await startTestBroker();
  admin = new Admin({ bootstrapServers: broker.bootstrap });
});
after(async () => {
  await admin?.close();
  await broker?.close();
});

const key = (e: ClientQuotaEntry) =>
  e.entity
    .map((c) => `${c.entityType}=${c.name ?? '<default>'}`)
    .sort()
    .join(',');

async function describeAll(strict = false): Promise<Map<string, Record<string, number>>> {
  const entries = await admin.describeClientQuotas({ components: [], strict });
  return new Map(entries.map((e) => [key(e), e.values]));
}

async function refusal(p: Promise<unknown>): Promise<KafkaResponseError> {
  try {
    await p;
  } catch (e) {
    assert.ok(e instanceof KafkaResponseError, String(e));
    return e;
  }
  assert.fail('expected a refusal');
}

test('alter then describe: every entity kind, defaults, removal', async () => {
  await admin.alterClientQuotas([
    { entity: [{ entityType: 'user', name: 'alice' }], ops: [{ key: 'producer_byte_rate', value: 1024 }] },
    {
      entity: [{ entityType: 'client-id', name: 'app-1' }],
      ops: [{ key: 'consumer_byte_rate', value: 2048 }],
    },
    {
      entity: [
        { entityType: 'user', name: 'alice' },
        { entityType: 'client-id', name: 'app-1' },
      ],
      ops: [{ key: 'request_percentage', value: 12.5 }],
    },
    { entity: [{ entityType: 'user', name: null }], ops: [{ key: 'producer_byte_rate', value: 4096 }] },
    { entity: [{ entityType: 'client-id', name: null }], ops: [{ key: 'producer_byte_rate', value: 8192 }] },
    {
      entity: [{ entityType: 'ip', name: '10.0.0.1' }],
      ops: [{ key: 'connection_creation_rate', value: 5 }],
    },
  ]);
  const all = await describeAll();
  assert.deepEqual(all.get('user=alice'), { producer_byte_rate: 1024 });
  assert.deepEqual(all.get('client-id=app-1'), { consumer_byte_rate: 2048 });
  assert.deepEqual(all.get('client-id=app-1,user=alice'), { request_percentage: 12.5 });
  assert.deepEqual(all.get('user=<default>'), { producer_byte_rate: 4096 });
  assert.deepEqual(all.get('client-id=<default>'), { producer_byte_rate: 8192 });
  assert.deepEqual(all.get('ip=10.0.0.1'), { connection_creation_rate: 5 });

  const exact = await admin.describeClientQuotas({
    components: [{ entityType: 'user', matchType: 'exact', match: 'alice' }],
  });
  assert.deepEqual(exact.map(key).sort(), ['client-id=app-1,user=alice', 'user=alice']);
  const strict = await admin.describeClientQuotas({
    components: [{ entityType: 'user', matchType: 'exact', match: 'alice' }],
    strict: true,
  });
  assert.deepEqual(strict.map(key), ['user=alice']);
  const defaults = await admin.describeClientQuotas({
    components: [{ entityType: 'user', matchType: 'default' }],
    strict: true,
  });
  assert.deepEqual(defaults.map(key), ['user=<default>']);
  const anyClient = await admin.describeClientQuotas({
    components: [{ entityType: 'client-id', matchType: 'any' }],
    strict: true,
  });
  assert.deepEqual(anyClient.map(key).sort(), ['client-id=<default>', 'client-id=app-1']);

  // removal of the last key makes the entity disappear
  await admin.alterClientQuotas([
    { entity: [{ entityType: 'client-id', name: null }], ops: [{ key: 'producer_byte_rate', value: null }] },
  ]);
  assert.equal((await describeAll()).has('client-id=<default>'), false);
});

test('validateOnly checks without writing', async () => {
  await admin.alterClientQuotas(
    [{ entity: [{ entityType: 'user', name: 'bob' }], ops: [{ key: 'producer_byte_rate', value: 10 }] }],
    { validateOnly: true },
  );
  assert.equal((await describeAll()).has('user=bob'), false);
  const e = await refusal(
    admin.alterClientQuotas(
      [{ entity: [{ entityType: 'user', name: 'bob' }], ops: [{ key: 'nope', value: 10 }] }],
      { validateOnly: true },
    ),
  );
  assert.equal(e.errorCode, 42);
});

test("hostile input gets Kafka's errors and the broker stays up", async () => {
  const bad: [string, Parameters<Admin['alterClientQuotas']>[0], RegExp][] = [
    [
      'unknown key',
      [{ entity: [{ entityType: 'user', name: 'x' }], ops: [{ key: 'bytes', value: 1 }] }],
      /Invalid configuration key bytes/,
    ],
    [
      'negative',
      [{ entity: [{ entityType: 'user', name: 'x' }], ops: [{ key: 'producer_byte_rate', value: -5 }] }],
      /must be greater than 0/,
    ],
    [
      'zero',
      [{ entity: [{ entityType: 'user', name: 'x' }], ops: [{ key: 'producer_byte_rate', value: 0 }] }],
      /must be greater than 0/,
    ],
    [
      'NaN',
      [
        {
          entity: [{ entityType: 'user', name: 'x' }],
          ops: [{ key: 'request_percentage', value: Number.NaN }],
        },
      ],
      /must be a number/,
    ],
    [
      'fraction of a LONG',
      [
        {
          entity: [{ entityType: 'client-id', name: 'x' }],
          ops: [{ key: 'producer_byte_rate', value: 1.5 }],
        },
      ],
      /cannot be a fractional value/,
    ],
    [
      'empty entity',
      [{ entity: [], ops: [{ key: 'producer_byte_rate', value: 1 }] }],
      /Invalid empty client quota entity/,
    ],
    [
      'empty name',
      [{ entity: [{ entityType: 'user', name: '' }], ops: [{ key: 'producer_byte_rate', value: 1 }] }],
      /Empty user not supported/,
    ],
    [
      'ip with user',
      [
        {
          entity: [
            { entityType: 'user', name: 'x' },
            { entityType: 'ip', name: '1.2.3.4' },
          ],
          ops: [],
        },
      ],
      /IP entity should not be used/,
    ],
    [
      'ip key on a user',
      [{ entity: [{ entityType: 'user', name: 'x' }], ops: [{ key: 'connection_creation_rate', value: 1 }] }],
      /Invalid configuration key/,
    ],
  ];
  for (const [what, alteration, message] of bad) {
    const e = await refusal(admin.alterClientQuotas(alteration));
    assert.equal(e.errorCode, 42, what);
    assert.match(e.message, message, what);
  }
  // An unknown entity type, sent as a raw string past the client's types.
  const e = await refusal(
    admin.alterClientQuotas([
      {
        entity: [{ entityType: 'group' as 'user', name: 'g' }],
        ops: [{ key: 'producer_byte_rate', value: 1 }],
      },
    ]),
  );
  assert.match(e.message, /Unhandled client quota entity type: group/);
  const d = await refusal(
    admin.describeClientQuotas({ components: [{ entityType: 'topic' as 'user', matchType: 'any' }] }),
  );
  assert.equal(d.errorCode, 35); // UNSUPPORTED_VERSION: custom entity types, as Kafka
  const dup = await refusal(
    admin.describeClientQuotas({
      components: [
        { entityType: 'user', matchType: 'any' },
        { entityType: 'user', matchType: 'default' },
      ],
    }),
  );
  assert.equal(dup.errorCode, 42);
  // nothing of the refused alterations was written, and the broker still answers
  assert.equal((await describeAll()).has('user=x'), false);
  assert.ok((await admin.describeCluster()).brokers.length === 1);
});

test('quotas survive a restart (local store)', async () => {
  await admin.alterClientQuotas([
    {
      entity: [
        { entityType: 'user', name: 'carol' },
        { entityType: 'client-id', name: 'c/1 x' },
      ],
      ops: [{ key: 'producer_byte_rate', value: 77 }],
    },
  ]);
  await admin.close();
  await broker.stop();
  broker = await startTestBroker({ dataDir: broker.dataDir });
  admin = new Admin({ bootstrapServers: broker.bootstrap });
  assert.deepEqual((await describeAll()).get('client-id=c/1 x,user=carol'), { producer_byte_rate: 77 });
  assert.equal(broker.services.quotas?.produce.quotaFor({ user: 'carol', clientId: 'c/1 x' }), 77);
});
