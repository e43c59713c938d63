// Versions Kafka added after the schema snapshot (tools/gen-protocol/later-versions.ts): the
// loader widens the ranges and inserts the added fields where Kafka's schema has them, the codecs
// put those fields on the wire at that place (bytes worked out by hand from the Kafka 4 schemas,
// not from our writer), and a refreshed schema that has such a field already is refused.
import assert from 'node:assert/strict';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import {
  type ConsumerGroupDescribeResponse,
  consumerGroupDescribeApi,
} from '../../../src/protocol/messages/generated/consumer-group-describe.js';
import {
  type DescribeGroupsResponse,
  describeGroupsApi,
} from '../../../src/protocol/messages/generated/describe-groups.js';
import { Reader } from '../../../src/protocol/primitives/reader.js';
import { Writer } from '../../../src/protocol/primitives/writer.js';
import { loadMessage } from '../../../tools/gen-protocol/schema.js';
import { SCHEMA_DIR } from './schemas.js';

const h = (s: string) => Buffer.from(s.replace(/\s+/g, ''), 'hex');

function body<Res>(
  api: { writeResponse(w: Writer, v: number, r: Res): void },
  version: number,
  res: Res,
): Buffer {
  const w = new Writer();
  api.writeResponse(w, version, res);
  return Buffer.concat(w.finish());
}

test('the loader widens the ranges and inserts the added fields after the ones Kafka puts them after', () => {
  const dg = loadMessage(`${SCHEMA_DIR}messages/DescribeGroupsResponse.json`);
  assert.deepEqual([dg.validVersions.lo, dg.validVersions.hi], [0, 6]);
  const group = dg.structs.find((s) => s.name === 'DescribedGroup')!;
  assert.deepEqual(
    group.fields.slice(0, 3).map((f) => f.name),
    ['ErrorCode', 'ErrorMessage', 'GroupId'],
  );
  const message = group.fields[1]!;
  assert.deepEqual(
    [message.versions.lo, message.nullableVersions.lo, message.type],
    [6, 6, { kind: 'primitive', name: 'string' }],
  );
  const cgd = loadMessage(`${SCHEMA_DIR}messages/ConsumerGroupDescribeResponse.json`);
  assert.deepEqual([cgd.validVersions.lo, cgd.validVersions.hi], [0, 1]);
  const member = cgd.structs.find((s) => s.name === 'Member')!;
  assert.deepEqual(
    member.fields.slice(-2).map((f) => [f.name, f.versions.lo, f.default]),
    [
      ['TargetAssignment', 0, undefined],
      ['MemberType', 1, '-1'],
    ],
  );
  const requests = ['DescribeGroupsRequest', 'ConsumerGroupDescribeRequest'].map(
    (n) => loadMessage(`${SCHEMA_DIR}messages/${n}.json`).validVersions.hi,
  );
  assert.deepEqual(requests, [6, 1]);
});

test('DescribeGroups v6: the error message right after the error code; v5 has none', () => {
  const res: DescribeGroupsResponse = {
    throttleTimeMs: 0,
    groups: [
      {
        errorCode: 69,
        errorMessage: 'no',
        groupId: 'g',
        groupState: 'Dead',
        protocolType: '',
        protocolData: '',
        members: [],
        authorizedOperations: -2147483648,
      },
    ],
  };
  const v6 = h(`00000000 02 0045 03 6e6f 02 67 05 44656164 01 01 01 80000000 00 00`);
  assert.deepEqual(body(describeGroupsApi, 6, res), v6);
  assert.deepEqual(describeGroupsApi.readResponse(new Reader(v6), 6), res);
  const v5 = h(`00000000 02 0045 02 67 05 44656164 01 01 01 80000000 00 00`);
  assert.deepEqual(body(describeGroupsApi, 5, res), v5);
  assert.equal(describeGroupsApi.readResponse(new Reader(v5), 5).groups[0]!.errorMessage, null);
});

test('ConsumerGroupDescribe v1: MemberType is the last field of a member; v0 reads it as -1', () => {
  const res: ConsumerGroupDescribeResponse = {
    throttleTimeMs: 0,
    groups: [
      {
        errorCode: 0,
        errorMessage: null,
        groupId: 'g',
        groupState: 'Stable',
        groupEpoch: 3,
        assignmentEpoch: 3,
        assignorName: 'uniform',
        members: [
          {
            memberId: 'm',
            instanceId: null,
            rackId: null,
            memberEpoch: 3,
            clientId: 'c',
            clientHost: '/h',
            subscribedTopicNames: [],
            subscribedTopicRegex: null,
            assignment: { topicPartitions: [] },
            targetAssignment: { topicPartitions: [] },
            memberType: 0,
          },
        ],
        authorizedOperations: -2147483648,
      },
    ],
  };
  const member = `02 6d 00 00 00000003 02 63 03 2f68 01 00 01 00 01 00`;
  const group = `0000 00 02 67 07 537461626c65 00000003 00000003 08 756e69666f726d`;
  const v1 = h(`00000000 02 ${group} 02 ${member} 00 00 80000000 00 00`);
  assert.deepEqual(body(consumerGroupDescribeApi, 1, res), v1);
  assert.deepEqual(consumerGroupDescribeApi.readResponse(new Reader(v1), 1), res);
  const v0 = h(`00000000 02 ${group} 02 ${member} 00 80000000 00 00`);
  assert.deepEqual(body(consumerGroupDescribeApi, 0, res), v0);
  assert.equal(
    consumerGroupDescribeApi.readResponse(new Reader(v0), 0).groups[0]!.members[0]!.memberType,
    -1,
  );
});

test('a schema that already has a field listed in LATER_FIELDS is refused', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'later-fields-'));
  try {
    const file = join(dir, 'DescribeGroupsResponse.json');
    await writeFile(
      file,
      JSON.stringify({
        apiKey: 15,
        type: 'response',
        name: 'DescribeGroupsResponse',
        validVersions: '0-6',
        flexibleVersions: '5+',
        fields: [
          {
            name: 'Groups',
            type: '[]DescribedGroup',
            versions: '0+',
            fields: [
              { name: 'ErrorCode', type: 'int16', versions: '0+' },
              { name: 'ErrorMessage', type: 'string', versions: '6+', nullableVersions: '6+' },
            ],
          },
        ],
      }),
    );
    assert.throws(
      () => loadMessage(file),
      /ErrorMessage is in the schema already; drop it from LATER_FIELDS/,
    );
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});
