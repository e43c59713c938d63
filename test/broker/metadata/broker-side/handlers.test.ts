// The inter-broker APIs over the wire (04 LeaderAndIsr, 05 StopReplica, 06 UpdateMetadata,
// 07 ControlledShutdown, 56 AlterPartition) on a real broker: advertised versions, answers
// without a receiver / controller, every request form, epoch fencing of senders that are not
// the controller, hostile frames, and the controller channel end to end with retries.

import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import type { ActiveController } from '../../../../src/broker/metadata/controller/active-controller.js';
import { BrokerChannel } from '../../../../src/broker/metadata/controller/broker-channel.js';
import type { ControllerRequestReceiver } from '../../../../src/broker/metadata/controller/controller-channel.js';
import { leaderAndIsrForVersion } from '../../../../src/broker/metadata/controller/request-forms.js';
import { BrokerControllerRequestReceiver } from '../../../../src/broker/metadata/controller-request-receiver.js';
import { MetadataPublisher } from '../../../../src/broker/metadata/publisher.js';
import { ErrorCode, KafkaError } from '../../../../src/protocol/errors.js';
import { encodeRequest } from '../../../../src/protocol/messages/frame.js';
import {
  type AlterPartitionRequest,
  alterPartitionApi,
} from '../../../../src/protocol/messages/generated/alter-partition.js';
import { apiVersionsApi } from '../../../../src/protocol/messages/generated/api-versions.js';
import { controlledShutdownApi } from '../../../../src/protocol/messages/generated/controlled-shutdown.js';
import { leaderAndIsrApi } from '../../../../src/protocol/messages/generated/leader-and-isr.js';
import { stopReplicaApi } from '../../../../src/protocol/messages/generated/stop-replica.js';
import { updateMetadataApi } from '../../../../src/protocol/messages/generated/update-metadata.js';
import type { ApiDescriptor } from '../../../../src/protocol/messages/runtime.js';
import { startTestBroker, type TestBroker } from '../../../../src/testkit/index.js';
import { scaled } from '../../../support/timeouts.js';
import { RawClient } from '../../support/raw-client.js';
import { FakeConfigStore } from './support/fake-store.js';
import { leaderAndIsr, stopReplica, umBroker, updateMetadata } from './support/requests.js';

const ID_A = 'AAAAAAAAAAAAAAAAAAAAAw';
const ID_B = 'AAAAAAAAAAAAAAAAAAAABA';
const CONTROLLER = 3;

let broker: TestBroker;
let c: RawClient;
let store: FakeConfigStore;
let publisher: MetadataPublisher;
let receiver: BrokerControllerRequestReceiver;
const brokerEpoch = 500n;

type MutableServices = {
  controllerRequests?: ControllerRequestReceiver;
  activeController?: ActiveController;
};
const services = () => broker.services as unknown as MutableServices;

before(async () => {
  broker = await startTestBroker();
  c = await RawClient.connect(broker.port);
  store = new FakeConfigStore();
  publisher = new MetadataPublisher({
    clusterId: broker.clusterId,
    store,
    configReadTimeoutMs: 200,
    configRetryBackoffMs: 20,
  });
  await publisher.start();
  receiver = new BrokerControllerRequestReceiver({
    nodeId: broker.nodeId,
    replicas: broker.services.replicas,
    publisher,
    brokerEpoch: () => brokerEpoch,
    verifyController: async (id) => id === CONTROLLER,
  });
});
after(async () => {
  c.close();
  publisher.close();
  await broker.close();
});

const ctl = { controllerId: CONTROLLER, controllerEpoch: 5, brokerEpoch };

test('ApiVersions advertises the inter-broker APIs', async () => {
  const r = await c.request(apiVersionsApi, 3, { clientSoftwareName: 't', clientSoftwareVersion: '1' });
  const m = new Map(r.apiKeys.map((k) => [k.apiKey, [k.minVersion, k.maxVersion]]));
  assert.deepEqual(m.get(4), [0, 7]);
  assert.deepEqual(m.get(5), [0, 4]);
  assert.deepEqual(m.get(6), [0, 8]);
  assert.deepEqual(m.get(7), [2, 3]);
  assert.deepEqual(m.get(56), [0, 3]);
});

test('without a receiver or controller: STALE_CONTROLLER_EPOCH (04-07), NOT_CONTROLLER (56)', async () => {
  // The broker has its own; take them away to see the handlers' answers without them.
  const own = { receiver: services().controllerRequests, controller: services().activeController };
  services().controllerRequests = undefined;
  services().activeController = undefined;
  const req = leaderAndIsr(ctl, [
    { name: 'x', id: ID_A, partitions: [{ partitionIndex: 0, leader: 1, leaderEpoch: 0 }] },
  ]);
  const v7 = await c.request(leaderAndIsrApi, 7, req);
  assert.equal(v7.errorCode, 11);
  assert.deepEqual(
    v7.topics.map((t) => [t.topicId, t.partitionErrors.map((p) => [p.partitionIndex, p.errorCode])]),
    [[ID_A, [[0, 11]]]],
  );
  const v1 = await c.request(leaderAndIsrApi, 1, leaderAndIsrForVersion(req, 1));
  assert.deepEqual(
    v1.partitionErrors.map((p) => [p.topicName, p.partitionIndex, p.errorCode]),
    [['x', 0, 11]],
  );
  assert.equal((await c.request(stopReplicaApi, 4, stopReplica(ctl, []))).errorCode, 11);
  assert.equal((await c.request(updateMetadataApi, 8, updateMetadata(ctl, [], []))).errorCode, 11);
  const cs = await c.request(controlledShutdownApi, 3, { brokerId: 1, brokerEpoch: 1n });
  assert.deepEqual(cs, { errorCode: 11, remainingPartitions: [] });
  const ap = await c.request(alterPartitionApi, 3, { brokerId: 1, brokerEpoch: 1n, topics: [] });
  assert.equal(ap.errorCode, ErrorCode.NOT_CONTROLLER);
  assert.equal(broker.services.logs.getLog('x', 0), undefined);
  // ControlledShutdown v0/v1 carry no broker epoch: not offered, the connection is closed.
  const old = await RawClient.connect(broker.port);
  old.sendRequest(controlledShutdownApi, 1, { brokerId: 1, brokerEpoch: -1n });
  assert.equal(await old.waitClosed(), true);
  services().controllerRequests = own.receiver;
  services().activeController = own.controller;
});

test('with a receiver: LeaderAndIsr (v7 and v1), UpdateMetadata (v8 and v0), StopReplica (v4 and v0)', async () => {
  services().controllerRequests = receiver;
  store.put({ type: 'topics', name: 'wire-a' }, { 'segment.bytes': '1048576' });
  const lai = await c.request(
    leaderAndIsrApi,
    7,
    leaderAndIsr(ctl, [
      {
        name: 'wire-a',
        id: ID_A,
        partitions: [
          { partitionIndex: 0, leader: broker.nodeId, leaderEpoch: 2, replicas: [broker.nodeId, 2] },
          { partitionIndex: 1, leader: 2, leaderEpoch: 2, replicas: [2, broker.nodeId] },
        ],
      },
    ]),
  );
  assert.equal(lai.errorCode, 0);
  assert.deepEqual(
    lai.topics.map((t) => [t.topicId, t.partitionErrors.map((p) => p.errorCode)]),
    [[ID_A, [0, 0]]],
  );
  const log = broker.services.logs.getLog('wire-a', 0)!;
  assert.equal(log.topicId, ID_A);
  assert.equal(log.config.segmentBytes, 1048576);
  assert.equal(broker.services.replicas.get('wire-a', 0)!.isLeader, true);
  assert.equal(broker.services.replicas.get('wire-a', 1)!.leaderId, 2);
  const v1 = await c.request(
    leaderAndIsrApi,
    1,
    leaderAndIsrForVersion(
      leaderAndIsr(ctl, [
        {
          name: 'wire-b',
          id: ID_B,
          partitions: [{ partitionIndex: 0, leader: broker.nodeId, leaderEpoch: 0 }],
        },
      ]),
      1,
    ),
  );
  assert.deepEqual(
    v1.partitionErrors.map((p) => [p.topicName, p.errorCode]),
    [['wire-b', 0]],
  );
  assert.ok(broker.services.logs.getLog('wire-b', 0));

  const um = await c.request(
    updateMetadataApi,
    8,
    updateMetadata(
      ctl,
      [umBroker(broker.nodeId, broker.port), umBroker(2)],
      [
        {
          name: 'wire-a',
          id: ID_A,
          partitions: [
            {
              partitionIndex: 0,
              leader: broker.nodeId,
              leaderEpoch: 2,
              replicas: [broker.nodeId, 2],
              isr: [broker.nodeId],
            },
            {
              partitionIndex: 1,
              leader: 2,
              leaderEpoch: 2,
              replicas: [2, broker.nodeId],
              offlineReplicas: [broker.nodeId],
            },
          ],
        },
      ],
    ),
  );
  assert.equal(um.errorCode, 0);
  assert.equal(publisher.image.controllerId, CONTROLLER);
  assert.deepEqual(publisher.topic('wire-a')!.configs, { 'segment.bytes': '1048576' });
  assert.deepEqual(publisher.topic('wire-a')!.partitions[1]!.offlineReplicas, [broker.nodeId]);
  const um0 = await c.request(updateMetadataApi, 0, {
    ...updateMetadata(ctl, [], []),
    ungroupedPartitionStates: [
      {
        topicName: 'wire-b',
        partitionIndex: 0,
        controllerEpoch: 5,
        leader: broker.nodeId,
        leaderEpoch: 0,
        isr: [broker.nodeId],
        zkVersion: 0,
        replicas: [broker.nodeId],
        offlineReplicas: [],
      },
    ],
    liveBrokers: [{ id: broker.nodeId, v0Host: 'h', v0Port: 1234, endpoints: [], rack: null }],
  });
  assert.equal(um0.errorCode, 0);
  assert.deepEqual(
    [publisher.image.broker(broker.nodeId)!.host, publisher.image.broker(broker.nodeId)!.port],
    ['h', 1234],
  );
  assert.ok(publisher.topic('wire-b'));

  const sr = await c.request(
    stopReplicaApi,
    4,
    stopReplica(ctl, [
      { name: 'wire-a', partitions: [{ partitionIndex: 1, leaderEpoch: 2, deletePartition: true }] },
    ]),
  );
  assert.deepEqual(sr, {
    errorCode: 0,
    partitionErrors: [{ topicName: 'wire-a', partitionIndex: 1, errorCode: 0 }],
  });
  assert.equal(broker.services.logs.getLog('wire-a', 1), undefined);
  const sr0 = await c.request(stopReplicaApi, 0, {
    ...stopReplica(ctl, []),
    deletePartitions: true,
    ungroupedPartitions: [{ topicName: 'wire-b', partitionIndex: 0 }],
  });
  assert.deepEqual(
    sr0.partitionErrors.map((p) => [p.topicName, p.errorCode]),
    [['wire-b', 0]],
  );
  assert.equal(broker.services.logs.getLog('wire-b', 0), undefined);
});

test('senders that are not the controller are fenced: older epoch, stale broker epoch, invented epoch', async () => {
  services().controllerRequests = receiver;
  const topics = [
    {
      name: 'wire-a',
      id: ID_A,
      partitions: [{ partitionIndex: 0, leader: 2, leaderEpoch: 99, replicas: [2, 1] }],
    },
  ];
  const older = await c.request(leaderAndIsrApi, 7, leaderAndIsr({ ...ctl, controllerEpoch: 4 }, topics));
  assert.equal(older.errorCode, ErrorCode.STALE_CONTROLLER_EPOCH);
  const staleBroker = await c.request(
    leaderAndIsrApi,
    7,
    leaderAndIsr({ ...ctl, brokerEpoch: 499n }, topics),
  );
  assert.equal(staleBroker.errorCode, ErrorCode.STALE_BROKER_EPOCH);
  // Not the elected controller, with an epoch larger than any seen.
  const rogue = await c.request(
    leaderAndIsrApi,
    7,
    leaderAndIsr({ controllerId: 9, controllerEpoch: 1_000_000, brokerEpoch: -1n }, topics),
  );
  assert.equal(rogue.errorCode, ErrorCode.STALE_CONTROLLER_EPOCH);
  const rogueSr = await c.request(
    stopReplicaApi,
    4,
    stopReplica({ controllerId: 9, controllerEpoch: 1_000_000 }, [
      { name: 'wire-a', partitions: [{ partitionIndex: 0, leaderEpoch: -2, deletePartition: true }] },
    ]),
  );
  assert.equal(rogueSr.errorCode, ErrorCode.STALE_CONTROLLER_EPOCH);
  assert.equal(broker.services.replicas.get('wire-a', 0)!.isLeader, true, 'nothing applied');
  assert.ok(broker.services.logs.getLog('wire-a', 0));
  assert.equal(receiver.controllerEpoch, 5, 'the real controller is still current');
  const ok = await c.request(updateMetadataApi, 8, updateMetadata(ctl, [umBroker(1)], []));
  assert.equal(ok.errorCode, 0);
});

test('a request the receiver cannot process now closes the connection (the channel resends it)', async () => {
  services().controllerRequests = receiver;
  const raw = await RawClient.connect(broker.port);
  store.failReads = true;
  try {
    raw.sendRequest(
      leaderAndIsrApi,
      7,
      leaderAndIsr(ctl, [
        { name: 'wire-c', id: ID_B, partitions: [{ partitionIndex: 0, leader: 1, leaderEpoch: 0 }] },
      ]),
    );
    assert.equal(await raw.waitClosed(), true);
    assert.equal(broker.services.logs.getLog('wire-c', 0), undefined);
  } finally {
    store.failReads = false;
    raw.close();
  }
});

/** A request frame whose body is cut to `keep` bytes (size prefix fixed). */
function truncated<Req>(api: ApiDescriptor<Req, unknown>, version: number, body: Req, keep: number): Buffer {
  const full = Buffer.concat(encodeRequest(api, version, 77, 'hostile', body));
  const headerLen = 4 + 2 + 2 + 4 + 2 + 'hostile'.length + (version >= api.flexibleMinVersion ? 1 : 0);
  const out = Buffer.from(full.subarray(0, headerLen + keep));
  out.writeInt32BE(out.length - 4, 0);
  return out;
}

test('malformed frames close only their connection; absurd counts are refused before allocating', async () => {
  services().controllerRequests = receiver;
  const frames: Buffer[] = [
    truncated(leaderAndIsrApi, 7, leaderAndIsr(ctl, []), 9),
    truncated(stopReplicaApi, 4, stopReplica(ctl, []), 5),
    truncated(updateMetadataApi, 8, updateMetadata(ctl, [umBroker(1)], []), 20),
    truncated(controlledShutdownApi, 3, { brokerId: 1, brokerEpoch: 1n }, 6),
    truncated(alterPartitionApi, 3, { brokerId: 1, brokerEpoch: 1n, topics: [] }, 3),
  ];
  // LeaderAndIsr v2 whose topic-state count claims 2^31-1 entries.
  const huge = truncated(leaderAndIsrApi, 2, leaderAndIsr(ctl, []), 16);
  const count = Buffer.alloc(4);
  count.writeInt32BE(0x7fffffff);
  const hugeFrame = Buffer.concat([huge, count]);
  hugeFrame.writeInt32BE(hugeFrame.length - 4, 0);
  frames.push(hugeFrame);
  for (const f of frames) {
    const raw = await RawClient.connect(broker.port);
    raw.send(f);
    assert.equal(await raw.waitClosed(), true, `closed after frame of key ${f.readInt16BE(4)}`);
  }
  const r = await c.request(apiVersionsApi, 0, { clientSoftwareName: '', clientSoftwareVersion: '' });
  assert.equal(r.errorCode, 0, 'the broker serves everyone else');
});

test('ControlledShutdown and AlterPartition go to the active controller; broker epochs are required', async () => {
  const calls: unknown[] = [];
  let fail: KafkaError | null = null;
  services().activeController = {
    async controlledShutdown(brokerId, epoch) {
      calls.push(['cs', brokerId, epoch]);
      if (fail) throw fail;
      return [{ topic: 'wire-a', partition: 0 }];
    },
    async alterPartition(req: AlterPartitionRequest, version: number) {
      calls.push(['ap', req.brokerId, version]);
      if (fail) throw fail;
      return {
        throttleTimeMs: 0,
        errorCode: 0,
        topics: req.topics.map((t) => ({
          topicName: t.topicName,
          topicId: t.topicId,
          partitions: t.partitions.map((p) => ({
            partitionIndex: p.partitionIndex,
            errorCode: 0,
            leaderId: req.brokerId,
            leaderEpoch: p.leaderEpoch,
            isr: p.newIsrWithEpochs.map((b) => b.brokerId),
            leaderRecoveryState: 0,
            partitionEpoch: p.partitionEpoch + 1,
          })),
        })),
      };
    },
  };
  try {
    const cs = await c.request(controlledShutdownApi, 3, { brokerId: 2, brokerEpoch: 42n });
    assert.deepEqual(cs, { errorCode: 0, remainingPartitions: [{ topicName: 'wire-a', partitionIndex: 0 }] });
    const cs2 = await c.request(controlledShutdownApi, 2, { brokerId: 2, brokerEpoch: 42n });
    assert.equal(cs2.errorCode, 0);
    const noEpoch = await c.request(controlledShutdownApi, 3, { brokerId: 2, brokerEpoch: -1n });
    assert.deepEqual(noEpoch, { errorCode: ErrorCode.STALE_BROKER_EPOCH, remainingPartitions: [] });
    const ap = await c.request(alterPartitionApi, 3, {
      brokerId: 1,
      brokerEpoch: 7n,
      topics: [
        {
          topicName: '',
          topicId: ID_A,
          partitions: [
            {
              partitionIndex: 0,
              leaderEpoch: 2,
              newIsr: [],
              newIsrWithEpochs: [
                { brokerId: 1, brokerEpoch: 7n },
                { brokerId: 2, brokerEpoch: 42n },
              ],
              leaderRecoveryState: 0,
              partitionEpoch: 3,
            },
          ],
        },
      ],
    });
    assert.equal(ap.errorCode, 0);
    assert.deepEqual(ap.topics[0]!.partitions[0]!.isr, [1, 2]);
    assert.equal(ap.topics[0]!.partitions[0]!.partitionEpoch, 4);
    const apNoEpoch = await c.request(alterPartitionApi, 3, { brokerId: 1, brokerEpoch: -1n, topics: [] });
    assert.equal(apNoEpoch.errorCode, ErrorCode.STALE_BROKER_EPOCH);
    fail = new KafkaError(ErrorCode.STALE_CONTROLLER_EPOCH);
    assert.equal(
      (await c.request(controlledShutdownApi, 3, { brokerId: 2, brokerEpoch: 42n })).errorCode,
      11,
    );
    fail = new KafkaError(ErrorCode.NOT_CONTROLLER);
    assert.equal(
      (await c.request(alterPartitionApi, 2, { brokerId: 1, brokerEpoch: 7n, topics: [] })).errorCode,
      41,
    );
    assert.equal(calls.length, 5, 'requests without a broker epoch never reach the controller');
    assert.deepEqual(
      calls.filter((c) => (c as unknown[])[0] === 'ap'),
      [
        ['ap', 1, 3],
        ['ap', 1, 2],
      ],
      'AlterPartition reaches the controller with its version',
    );
  } finally {
    services().activeController = undefined;
  }
});

test('end to end: the controller channel drives this broker over the wire, resending after a transient failure', async () => {
  // Every LeaderAndIsr the broker handles: one it cannot process now throws (the connection is
  // closed and the channel resends); the first must fail that way and a resend succeed.
  const attempts: string[] = [];
  services().controllerRequests = {
    leaderAndIsr: async (req) => {
      try {
        const r = await receiver.leaderAndIsr(req);
        attempts.push(`answered ${r.errorCode}`);
        return r;
      } catch (e) {
        attempts.push('failed');
        throw e;
      }
    },
    updateMetadata: (req) => receiver.updateMetadata(req),
    stopReplica: (req) => receiver.stopReplica(req),
  };
  const local: ControllerRequestReceiver = {
    leaderAndIsr: async () => ({ errorCode: 0, partitionErrors: [], topics: [] }),
    updateMetadata: async () => ({ errorCode: 0 }),
    stopReplica: async () => ({ errorCode: 0, partitionErrors: [] }),
  };
  const ch = new BrokerChannel({
    localNodeId: CONTROLLER,
    localReceiver: local,
    clientId: `samsa-controller-${CONTROLLER}`,
    retryBackoffMs: 20,
    retryBackoffMaxMs: 50,
    link: { reconnectBackoffMs: 10, reconnectBackoffMaxMs: 50 },
  });
  try {
    ch.addBroker({
      nodeId: broker.nodeId,
      host: broker.host,
      port: broker.port,
      rack: null,
      endpoints: [],
      epoch: brokerEpoch,
    });
    // The store is down when the request first arrives; it comes back once that attempt failed
    // (waiting on the attempt, not on a clock: a loaded machine may take longer to deliver it).
    store.failReads = true;
    const storeBack = (async () => {
      const deadline = Date.now() + scaled(60_000);
      while (attempts.length === 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 5));
      store.failReads = false;
    })();
    // LeaderAndIsr first and alone: it must read the topic's configs from the store itself.
    const lai = await ch.leaderAndIsr(
      broker.nodeId,
      leaderAndIsr(ctl, [
        {
          name: 'e2e',
          id: ID_B,
          partitions: [{ partitionIndex: 0, leader: broker.nodeId, leaderEpoch: 0 }],
        },
      ]),
    );
    const um = await ch.updateMetadata(
      broker.nodeId,
      updateMetadata(
        ctl,
        [umBroker(broker.nodeId, broker.port)],
        [{ name: 'e2e', id: ID_B, partitions: [{ partitionIndex: 0, leader: broker.nodeId }] }],
      ),
    );
    assert.deepEqual(lai.partitionErrors, [{ topicName: 'e2e', partitionIndex: 0, errorCode: 0 }]);
    assert.deepEqual(
      lai.topics.map((t) => t.topicId),
      [ID_B],
    );
    assert.equal(um.errorCode, 0);
    await storeBack;
    assert.equal(attempts[0], 'failed', `attempts: ${attempts}`);
    assert.equal(attempts.at(-1), 'answered 0', `resent after the failed attempt: ${attempts}`);
    assert.equal(broker.services.replicas.get('e2e', 0)!.isLeader, true);
    assert.equal(
      await publisher.waitFor((img) => img.topic('e2e')?.partitions[0]?.leader === broker.nodeId, 1000),
      true,
    );
    const sr = await ch.stopReplica(
      broker.nodeId,
      stopReplica(ctl, [
        { name: 'e2e', partitions: [{ partitionIndex: 0, leaderEpoch: -2, deletePartition: true }] },
      ]),
    );
    assert.equal(sr.partitionErrors[0]!.errorCode, 0);
    assert.equal(broker.services.logs.getLog('e2e', 0), undefined);
  } finally {
    store.failReads = false;
    ch.close();
  }
});
