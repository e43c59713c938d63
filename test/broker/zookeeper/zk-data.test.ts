// Kafka's znode layout and JSON (ZkData.scala, Kafka 3.x): paths, encodings as Kafka writes them,
// decoding of what Kafka versions write, and strict rejection of malformed or hostile data.
// Pure: no ZooKeeper needed.

import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
  brokerIdPath,
  CONFIG_CHANGE_CREATE_PATH,
  configEntityPath,
  decodeBrokerRegistration,
  decodeClusterId,
  decodeConfigChangeNotification,
  decodeController,
  decodeControllerEpoch,
  decodeEntityConfig,
  decodeFinalizedFeatures,
  decodeIsrChangeNotification,
  decodePartitionState,
  decodePreferredReplicaElection,
  decodeProducerIdBlock,
  decodeReassignPartitions,
  decodeTopicAssignment,
  deleteTopicPath,
  encodeBrokerRegistration,
  encodeClusterId,
  encodeConfigChangeNotification,
  encodeController,
  encodeControllerEpoch,
  encodeEntityConfig,
  encodeFinalizedFeatures,
  encodeIsrChangeNotification,
  encodePartitionState,
  encodePreferredReplicaElection,
  encodeProducerIdBlock,
  encodeReassignPartitions,
  encodeTopicAssignment,
  ISR_CHANGE_CREATE_PATH,
  ISR_CHANGE_PREFIX,
  PERSISTENT_ZK_PATHS,
  partitionStatePath,
  sequenceNumber,
  topicPartitionsPath,
  topicPath,
  ZK_PATHS,
  ZkDataError,
} from '../../../src/broker/metadata/zookeeper/zk-data.js';

const b = (s: string): Buffer => Buffer.from(s, 'utf8');
const json = (buf: Buffer): unknown => JSON.parse(buf.toString('utf8'));
const TOPIC_ID = 'vB8eBgWZR3u3QMbPb8Ce6g';

function rejects(f: () => unknown, re: RegExp): void {
  assert.throws(f, (e: unknown) => {
    assert.ok(e instanceof ZkDataError, `expected ZkDataError, got ${String(e)}`);
    assert.match(e.message, re);
    return true;
  });
}

test('paths are Kafka 3.x ZkData paths', () => {
  assert.equal(ZK_PATHS.clusterId, '/cluster/id');
  assert.equal(ZK_PATHS.controller, '/controller');
  assert.equal(ZK_PATHS.controllerEpoch, '/controller_epoch');
  assert.equal(ZK_PATHS.brokerSequenceId, '/brokers/seqid');
  assert.equal(ZK_PATHS.latestProducerIdBlock, '/latest_producer_id_block');
  assert.equal(ZK_PATHS.feature, '/feature');
  assert.equal(ZK_PATHS.reassignPartitions, '/admin/reassign_partitions');
  assert.equal(ZK_PATHS.preferredReplicaElection, '/admin/preferred_replica_election');
  assert.equal(brokerIdPath(3), '/brokers/ids/3');
  assert.equal(topicPath('orders'), '/brokers/topics/orders');
  assert.equal(topicPartitionsPath('orders'), '/brokers/topics/orders/partitions');
  assert.equal(partitionStatePath('orders', 7), '/brokers/topics/orders/partitions/7/state');
  assert.equal(configEntityPath('topics', 'orders'), '/config/topics/orders');
  assert.equal(configEntityPath('brokers', '<default>'), '/config/brokers/<default>');
  assert.equal(deleteTopicPath('orders'), '/admin/delete_topics/orders');
  assert.equal(CONFIG_CHANGE_CREATE_PATH, '/config/changes/config_change_');
  assert.equal(ISR_CHANGE_CREATE_PATH, '/isr_change_notification/isr_change_');
  assert.equal(
    sequenceNumber('/isr_change_notification/isr_change_0000000042', ISR_CHANGE_PREFIX),
    '0000000042',
  );
  for (const p of [
    '/brokers/ids',
    '/brokers/topics',
    '/config/changes',
    '/admin/delete_topics',
    '/brokers/seqid',
  ])
    assert.ok(PERSISTENT_ZK_PATHS.includes(p), p);
  for (const bad of ['', '.', '..', 'a/b', 'nul\u0000', 'bell\u0007', 'x\ud800'])
    assert.throws(() => topicPath(bad), /invalid topic name/, JSON.stringify(bad));
  assert.throws(() => brokerIdPath(-1), /invalid broker id/);
  assert.throws(() => partitionStatePath('t', 1.5), /invalid partition/);
});

test('/cluster/id: {"version":"1","id":...}', () => {
  assert.deepEqual(json(encodeClusterId('Rx4Tk0aeQ5iDqCGOWnFmcw')), {
    version: '1',
    id: 'Rx4Tk0aeQ5iDqCGOWnFmcw',
  });
  assert.equal(decodeClusterId(b('{"version":"1","id":"Rx4Tk0aeQ5iDqCGOWnFmcw"}')), 'Rx4Tk0aeQ5iDqCGOWnFmcw');
  rejects(() => decodeClusterId(b('{"version":"1","id":7}')), /"id" must be a string/);
  rejects(() => decodeClusterId(b('{"version":"1"}')), /"id" is missing/);
  rejects(() => decodeClusterId(null), /no data/);
});

test('/brokers/ids/<id>: version 5 as Kafka 3.x writes it', () => {
  const data = encodeBrokerRegistration(
    {
      endpoints: [
        { listenerName: 'INTERNAL', host: 'b1.internal', port: 19092, securityProtocol: 'SASL_SSL' },
        { listenerName: 'PLAINTEXT', host: 'b1', port: 9092, securityProtocol: 'PLAINTEXT' },
        { listenerName: 'V6', host: '::1', port: 9093, securityProtocol: 'SSL' },
      ],
      rack: 'dc1',
      features: { 'metadata.version': { minVersion: 1, maxVersion: 7 } },
    },
    1_700_000_000_123,
  );
  assert.deepEqual(json(data), {
    version: 5,
    host: 'b1',
    port: 9092,
    endpoints: ['INTERNAL://b1.internal:19092', 'PLAINTEXT://b1:9092', 'V6://[::1]:9093'],
    jmx_port: -1,
    timestamp: '1700000000123',
    rack: 'dc1',
    listener_security_protocol_map: { INTERNAL: 'SASL_SSL', PLAINTEXT: 'PLAINTEXT', V6: 'SSL' },
    features: { 'metadata.version': { min_version: 1, max_version: 7 } },
  });
  const r = decodeBrokerRegistration(1, data);
  assert.equal(r.version, 5);
  assert.equal(r.rack, 'dc1');
  assert.equal(r.jmxPort, -1);
  assert.equal(r.timestampMs, 1_700_000_000_123);
  assert.deepEqual(r.endpoints[2], { listenerName: 'V6', host: '::1', port: 9093, securityProtocol: 'SSL' });
  assert.deepEqual(r.features, { 'metadata.version': { minVersion: 1, maxVersion: 7 } });

  // No PLAINTEXT listener: host null, port -1 (Kafka's compatibility fields); no rack key.
  const noPlain = json(
    encodeBrokerRegistration({
      endpoints: [{ listenerName: 'SSL', host: 'h', port: 1, securityProtocol: 'SSL' }],
    }),
  ) as Record<string, unknown>;
  assert.equal(noPlain['host'], null);
  assert.equal(noPlain['port'], -1);
  assert.equal('rack' in noPlain, false);
});

test('/brokers/ids/<id>: older versions Kafka still reads', () => {
  const v1 = decodeBrokerRegistration(
    0,
    b('{"version":1,"host":"localhost","port":9092,"jmx_port":9999,"timestamp":"2233345666"}'),
  );
  assert.deepEqual(v1.endpoints, [
    { listenerName: 'PLAINTEXT', host: 'localhost', port: 9092, securityProtocol: 'PLAINTEXT' },
  ]);
  assert.equal(v1.jmxPort, 9999);
  const v2 = decodeBrokerRegistration(
    0,
    b(
      '{"version":2,"host":"h","port":9092,"jmx_port":-1,"timestamp":"1","endpoints":["PLAINTEXT://h:9092","SSL://h:9093"]}',
    ),
  );
  assert.deepEqual(
    v2.endpoints.map((e) => e.securityProtocol),
    ['PLAINTEXT', 'SSL'],
  );
  const v4 = decodeBrokerRegistration(
    0,
    b(
      '{"version":4,"host":"h","port":9092,"jmx_port":-1,"timestamp":"1","rack":null,' +
        '"endpoints":["client://h:9092"],"listener_security_protocol_map":{"CLIENT":"SASL_PLAINTEXT"}}',
    ),
  );
  assert.deepEqual(v4.endpoints, [
    { listenerName: 'CLIENT', host: 'h', port: 9092, securityProtocol: 'SASL_PLAINTEXT' },
  ]);
  assert.equal(v4.rack, null);
  assert.deepEqual(v4.features, {});
});

test('/brokers/ids/<id>: malformed registrations are rejected with the field named', () => {
  const base = {
    version: 5,
    host: 'h',
    port: 1,
    jmx_port: -1,
    timestamp: '1',
    endpoints: ['PLAINTEXT://h:1'],
  };
  const with_ = (o: Record<string, unknown>) => b(JSON.stringify({ ...base, ...o }));
  rejects(() => decodeBrokerRegistration(1, with_({ version: 0 })), /"version" 0 is not a supported/);
  rejects(
    () => decodeBrokerRegistration(1, with_({ jmx_port: '9999' })),
    /"jmx_port" must be a 32-bit integer/,
  );
  rejects(
    () => decodeBrokerRegistration(1, with_({ endpoints: 'PLAINTEXT://h:1' })),
    /"endpoints" must be an array/,
  );
  rejects(
    () => decodeBrokerRegistration(1, with_({ endpoints: ['h:1'] })),
    /"endpoints\[0\]" is not NAME:\/\/host:port/,
  );
  rejects(() => decodeBrokerRegistration(1, with_({ endpoints: [42] })), /"endpoints\[0\]" must be a string/);
  rejects(
    () =>
      decodeBrokerRegistration(
        1,
        with_({ endpoints: ['X://h:1'], listener_security_protocol_map: { Y: 'SSL' } }),
      ),
    /listener X, which has no security protocol/,
  );
  rejects(
    () => decodeBrokerRegistration(1, with_({ listener_security_protocol_map: { PLAINTEXT: 'TLS' } })),
    /is not a security protocol/,
  );
  rejects(() => decodeBrokerRegistration(1, with_({ endpoints: ['PLAINTEXT://h:99999'] })), /bad port/);
  rejects(() => decodeBrokerRegistration(1, with_({ rack: 5 })), /"rack" must be a string or null/);
  rejects(
    () => decodeBrokerRegistration(1, with_({ features: { f: { min_version: 3, max_version: 1 } } })),
    /features\.f\.max_version/,
  );
  rejects(
    () => decodeBrokerRegistration(1, with_({ features: { f: { max_version: 1 } } })),
    /"features\.f\.min_version" is missing/,
  );
  rejects(() => decodeBrokerRegistration(7, b('{"version":5')), /invalid \/brokers\/ids\/7: not JSON/);
});

test('/controller and /controller_epoch', () => {
  assert.deepEqual(json(encodeController(2, 1_700_000_000_000)), {
    version: 2,
    brokerid: 2,
    timestamp: '1700000000000',
    kraftControllerEpoch: -1,
  });
  assert.deepEqual(decodeController(b('{"version":1,"brokerid":3,"timestamp":"1500000000000"}')), {
    brokerId: 3,
    timestampMs: 1_500_000_000_000,
    kraftControllerEpoch: null,
  });
  assert.equal(decodeController(encodeController(9)).brokerId, 9);
  rejects(() => decodeController(b('{"version":1,"brokerid":"3"}')), /"brokerid" must be a 32-bit integer/);
  rejects(() => decodeController(b('{"version":1,"brokerid":3.5}')), /"brokerid" must be a 32-bit integer/);
  rejects(() => decodeController(b('{"version":1}')), /"brokerid" is missing/);

  assert.equal(encodeControllerEpoch(0).toString(), '0');
  assert.equal(encodeControllerEpoch(41).toString(), '41');
  assert.equal(decodeControllerEpoch(b('17')), 17);
  assert.equal(decodeControllerEpoch(b('+5')), 5, 'as Integer.parseInt');
  for (const bad of ['', ' 1', '1 ', '1.0', 'abc', '99999999999', '0x10', '{"epoch":1}'])
    rejects(() => decodeControllerEpoch(b(bad)), /controller_epoch/);
  rejects(() => decodeControllerEpoch(null), /no data/);
  assert.throws(() => encodeControllerEpoch(-1), /invalid controller epoch/);
});

test('/brokers/topics/<t>: version 3 with topic id, adding/removing replicas', () => {
  const data = encodeTopicAssignment({
    topicId: TOPIC_ID,
    partitions: new Map([
      [1, { replicas: [2, 3], addingReplicas: [], removingReplicas: [] }],
      [0, { replicas: [1, 2, 4], addingReplicas: [4], removingReplicas: [3] }],
    ]),
  });
  assert.deepEqual(json(data), {
    version: 3,
    partitions: { '0': [1, 2, 4], '1': [2, 3] },
    adding_replicas: { '0': [4] },
    removing_replicas: { '0': [3] },
    topic_id: TOPIC_ID,
  });
  const a = decodeTopicAssignment('t', data);
  assert.equal(a.topicId, TOPIC_ID);
  assert.deepEqual(a.partitions.get(0), { replicas: [1, 2, 4], addingReplicas: [4], removingReplicas: [3] });
  assert.deepEqual(a.partitions.get(1), { replicas: [2, 3], addingReplicas: [], removingReplicas: [] });
  // Kafka < 2.8 (no topic id) and the original version 1.
  const old = decodeTopicAssignment('t', b('{"version":1,"partitions":{"0":[0],"1":[1]}}'));
  assert.equal(old.topicId, null);
  assert.deepEqual([...old.partitions.keys()], [0, 1]);
  assert.equal(decodeTopicAssignment('t', b('{"version":3}')).partitions.size, 0);

  rejects(
    () => decodeTopicAssignment('t', b('{"version":3,"partitions":{"x":[1]}}')),
    /"partitions\.x" is not a partition number/,
  );
  rejects(
    () => decodeTopicAssignment('t', b('{"version":3,"partitions":{"-1":[1]}}')),
    /not a partition number/,
  );
  rejects(
    () => decodeTopicAssignment('t', b('{"version":3,"partitions":{"0":1}}')),
    /must be an array of integers/,
  );
  rejects(
    () => decodeTopicAssignment('t', b('{"version":3,"partitions":{"0":[1,"2"]}}')),
    /"partitions\.0\[1\]"/,
  );
  rejects(
    () => decodeTopicAssignment('t', b('{"partitions":{},"topic_id":"not-a-uuid"}')),
    /"topic_id" is not a Kafka uuid/,
  );
  rejects(() => decodeTopicAssignment('t', b('{"partitions":[]}')), /"partitions" must be an object/);
  rejects(() => decodeTopicAssignment('t', b('[]')), /expected a JSON object/);
  assert.throws(() => encodeTopicAssignment({ topicId: 'x', partitions: new Map() }), /invalid topic id/);
});

test('partition state: version 1, leader_recovery_state only when recovering', () => {
  const s = { leader: 1, leaderEpoch: 4, isr: [1, 2], controllerEpoch: 3, leaderRecoveryState: 0 as const };
  assert.deepEqual(json(encodePartitionState(s)), {
    version: 1,
    leader: 1,
    leader_epoch: 4,
    controller_epoch: 3,
    isr: [1, 2],
  });
  assert.deepEqual(decodePartitionState('t', 0, encodePartitionState(s)), s);
  const rec = { ...s, leaderRecoveryState: 1 as const };
  assert.equal((json(encodePartitionState(rec)) as Record<string, unknown>)['leader_recovery_state'], 1);
  assert.deepEqual(decodePartitionState('t', 0, encodePartitionState(rec)), rec);
  assert.equal(
    decodePartitionState(
      't',
      0,
      b('{"controller_epoch":1,"leader":-1,"version":1,"leader_epoch":0,"isr":[]}'),
    ).leader,
    -1,
  );
  rejects(
    () =>
      decodePartitionState(
        't',
        0,
        b('{"leader":1,"leader_epoch":0,"isr":[1],"controller_epoch":1,"leader_recovery_state":2}'),
      ),
    /leader_recovery_state" must be 0 or 1/,
  );
  rejects(
    () => decodePartitionState('t', 3, b('{"leader":1,"leader_epoch":0,"isr":"1","controller_epoch":1}')),
    /\/brokers\/topics\/t\/partitions\/3\/state: "isr" must be an array/,
  );
  rejects(
    () => decodePartitionState('t', 0, b('{"leader":1,"leader_epoch":0,"isr":[1]}')),
    /"controller_epoch" is missing/,
  );
});

test('entity configs and config change notifications', () => {
  assert.deepEqual(json(encodeEntityConfig({ 'retention.ms': '1000' })), {
    version: 1,
    config: { 'retention.ms': '1000' },
  });
  assert.deepEqual(decodeEntityConfig('/config/topics/t', encodeEntityConfig({ a: '1', b: '' })), {
    a: '1',
    b: '',
  });
  assert.deepEqual(decodeEntityConfig('/config/topics/t', null), {});
  assert.deepEqual(decodeEntityConfig('/config/topics/t', b('{"version":1}')), {});
  rejects(
    () => decodeEntityConfig('/config/topics/t', b('{"version":1,"config":{"a":1}}')),
    /"config\.a" must be a string/,
  );
  rejects(
    () => decodeEntityConfig('/config/topics/t', b('{"version":1,"config":[]}')),
    /"config" must be an object/,
  );
  const hostile = decodeEntityConfig('/config/topics/t', b('{"config":{"__proto__":"x","constructor":"y"}}'));
  assert.equal(Object.getPrototypeOf(hostile), Object.prototype);
  assert.equal(Object.hasOwn(hostile, '__proto__'), true);
  assert.equal(hostile['constructor'], 'y');

  assert.deepEqual(json(encodeConfigChangeNotification('brokers', '<default>')), {
    version: 2,
    entity_path: 'brokers/<default>',
  });
  assert.deepEqual(decodeConfigChangeNotification('n', encodeConfigChangeNotification('topics', 't')), {
    entityType: 'topics',
    entityName: 't',
  });
  assert.deepEqual(
    decodeConfigChangeNotification('n', b('{"version":2,"entity_path":"users/alice/clients/app"}')),
    { entityType: 'users', entityName: 'alice/clients/app' },
  );
  assert.deepEqual(
    decodeConfigChangeNotification('n', b('{"version":1,"entity_type":"topics","entity_name":"t"}')),
    {
      entityType: 'topics',
      entityName: 't',
    },
  );
  rejects(
    () => decodeConfigChangeNotification('n', b('{"version":1,"entity_type":"brokers","entity_name":"1"}')),
    /entity_type/,
  );
  rejects(
    () => decodeConfigChangeNotification('n', b('{"version":2,"entity_path":"nope/x"}')),
    /entity_path/,
  );
  rejects(
    () => decodeConfigChangeNotification('n', b('{"version":2,"entity_path":"topics"}')),
    /entity_path/,
  );
  rejects(
    () => decodeConfigChangeNotification('n', b('{"version":3,"entity_path":"topics/t"}')),
    /"version" 3/,
  );
});

test('ISR changes, preferred replica election, legacy reassignment', () => {
  const parts = [
    { topic: 'a', partition: 0 },
    { topic: 'b', partition: 2 },
  ];
  assert.deepEqual(json(encodeIsrChangeNotification(parts)), { version: 1, partitions: parts });
  assert.deepEqual(
    decodeIsrChangeNotification('n', encodeIsrChangeNotification([...parts, parts[0]!])),
    parts,
  );
  assert.deepEqual(decodePreferredReplicaElection(encodePreferredReplicaElection(parts)), parts);
  rejects(
    () => decodeIsrChangeNotification('n', b('{"version":1,"partitions":[{"topic":"a"}]}')),
    /"partitions\[0\]\.partition" is missing/,
  );
  rejects(
    () => decodePreferredReplicaElection(b('{"version":1,"partitions":{}}')),
    /"partitions" must be an array/,
  );
  rejects(
    () => decodePreferredReplicaElection(b('{"version":1,"partitions":[7]}')),
    /"partitions\[0\]" must be an object/,
  );

  const re = [{ topic: 't', partition: 1, replicas: [3, 1] }];
  assert.deepEqual(json(encodeReassignPartitions(re)), { version: 1, partitions: re });
  assert.deepEqual(decodeReassignPartitions(encodeReassignPartitions(re)), re);
  rejects(
    () => decodeReassignPartitions(b('{"version":1,"partitions":[{"topic":"t","partition":1}]}')),
    /replicas" is missing/,
  );
});

test('/latest_producer_id_block: ids as decimal strings', () => {
  const block = { brokerId: 1, firstProducerId: 1000n, lastProducerId: 1999n };
  assert.deepEqual(json(encodeProducerIdBlock(block)), {
    version: 1,
    broker: 1,
    block_start: '1000',
    block_end: '1999',
  });
  assert.deepEqual(decodeProducerIdBlock(encodeProducerIdBlock(block)), block);
  const big = {
    brokerId: 2,
    firstProducerId: 9_007_199_254_740_993n,
    lastProducerId: 9_007_199_254_741_992n,
  };
  assert.deepEqual(decodeProducerIdBlock(encodeProducerIdBlock(big)), big, 'no precision lost above 2^53');
  rejects(
    () => decodeProducerIdBlock(b('{"version":1,"broker":1,"block_start":0,"block_end":"999"}')),
    /"block_start" must be a string/,
  );
  rejects(
    () => decodeProducerIdBlock(b('{"version":1,"broker":1,"block_start":"10","block_end":"5"}')),
    /block_end/,
  );
  rejects(
    () =>
      decodeProducerIdBlock(
        b('{"version":1,"broker":1,"block_start":"0","block_end":"99999999999999999999"}'),
      ),
    /decimal integer string|64-bit/,
  );
  rejects(
    () => decodeProducerIdBlock(b('{"version":1,"broker":1,"block_start":"1e3","block_end":"2000"}')),
    /decimal integer/,
  );
});

test('/feature: versions 1 and 2 with Kafka checks', () => {
  const f = { version: 2 as const, enabled: true, features: { 'metadata.version': 7 } };
  assert.deepEqual(json(encodeFinalizedFeatures(f)), {
    version: 2,
    status: 1,
    features: { 'metadata.version': { max_version_level: 7 } },
  });
  assert.deepEqual(decodeFinalizedFeatures(encodeFinalizedFeatures(f)), f);
  const v1 = { version: 1 as const, enabled: false, features: { x: 2 } };
  assert.deepEqual(json(encodeFinalizedFeatures(v1)), {
    version: 1,
    status: 0,
    features: { x: { max_version_level: 2, min_version_level: 2 } },
  });
  assert.deepEqual(decodeFinalizedFeatures(encodeFinalizedFeatures(v1)), v1);
  rejects(
    () => decodeFinalizedFeatures(b('{"version":3,"status":1,"features":{}}')),
    /"version" 3 is not supported/,
  );
  rejects(() => decodeFinalizedFeatures(b('{"version":2,"status":2,"features":{}}')), /"status" must be 0/);
  rejects(() => decodeFinalizedFeatures(b('{"version":2,"features":{}}')), /"status" is missing/);
  rejects(() => decodeFinalizedFeatures(b('{"version":2,"status":1}')), /"features" is missing/);
  rejects(
    () => decodeFinalizedFeatures(b('{"version":2,"status":1,"features":{"x":{"max_version_level":0}}}')),
    /1\.\.32767/,
  );
  rejects(
    () => decodeFinalizedFeatures(b('{"version":1,"status":1,"features":{"x":{"max_version_level":2}}}')),
    /min_version_level/,
  );
});

test('hostile bytes: not UTF-8, not JSON, wrong shapes, inherited keys, deep nesting, huge numbers', () => {
  rejects(() => decodeController(Buffer.from([0x7b, 0xff, 0xfe, 0x7d])), /not valid UTF-8/);
  rejects(() => decodeController(b('')), /not JSON/);
  rejects(() => decodeController(b('null')), /expected a JSON object, got null/);
  rejects(() => decodeController(b('"x"')), /expected a JSON object/);
  rejects(() => decodeController(b('[1]')), /expected a JSON object, got an array/);
  // Keys are own properties only: Object.prototype's do not count as present.
  rejects(() => decodeController(b('{}')), /"brokerid" is missing/);
  rejects(() => decodePartitionState('t', 0, b('{"__proto__":{"leader":1}}')), /"leader" is missing/);
  rejects(() => decodeClusterId(b('{"toString":"x"}')), /"id" is missing/);
  const deep = '['.repeat(100_000) + ']'.repeat(100_000);
  rejects(() => decodeController(b(deep)), /expected a JSON object/);
  rejects(() => decodeController(b(`{"brokerid":${'9'.repeat(400)}}`)), /32-bit integer/);
  rejects(() => decodeController(b('{"brokerid":2147483648}')), /32-bit integer/);
  const long = `{"brokerid":"${'x'.repeat(100_000)}"}`;
  assert.throws(
    () => decodeController(b(long)),
    (e: unknown) => e instanceof ZkDataError && e.message.length < 1000,
    'error messages quote a bounded preview of the data',
  );
});
