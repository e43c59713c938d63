// The controller channel: one ordered queue per broker with one request in flight, direct calls
// for the controller's own broker, retries of failed sends while the broker is in the channel,
// removal / re-registration / close failing what is pending, version-dependent request forms.

import assert from 'node:assert/strict';
import { createServer } from 'node:net';
import { test } from 'node:test';
import {
  BrokerChannel,
  BrokerRemovedError,
} from '../../../../src/broker/metadata/controller/broker-channel.js';
import type { ControllerRequestReceiver } from '../../../../src/broker/metadata/controller/controller-channel.js';
import { ReceiverUnavailableError } from '../../../../src/broker/metadata/controller-request-receiver.js';
import type { BrokerInfo } from '../../../../src/broker/metadata/store/records.js';
import { ClientClosedError, UnsupportedVersionError } from '../../../../src/net/errors.js';
import type {
  LeaderAndIsrRequest,
  LeaderAndIsrResponse,
} from '../../../../src/protocol/messages/generated/leader-and-isr.js';
import type { StopReplicaRequest } from '../../../../src/protocol/messages/generated/stop-replica.js';
import type { UpdateMetadataRequest } from '../../../../src/protocol/messages/generated/update-metadata.js';
import { scaled, TestTimeoutError } from '../../../support/timeouts.js';
import { FakeBroker, type Received } from './support/fake-broker.js';
import { leaderAndIsr, stopReplica, umBroker, updateMetadata } from './support/requests.js';

const ID_A = 'AAAAAAAAAAAAAAAAAAAAAw';

const info = (nodeId: number, port: number, epoch = 10n): BrokerInfo => ({
  nodeId,
  host: '127.0.0.1',
  port,
  rack: null,
  endpoints: [{ listener: 'PLAINTEXT', securityProtocol: 'PLAINTEXT', host: '127.0.0.1', port }],
  epoch,
});

const lai = (tag: number): LeaderAndIsrRequest =>
  leaderAndIsr({ controllerEpoch: tag }, [
    { name: 'a', id: ID_A, partitions: [{ partitionIndex: 0, leader: 2, leaderEpoch: tag }] },
  ]);

/** A receiver for the controller's own broker that records calls. */
function localReceiver(): ControllerRequestReceiver & { calls: unknown[] } {
  const calls: unknown[] = [];
  return {
    calls,
    async leaderAndIsr(r) {
      calls.push(r);
      return { errorCode: 0, partitionErrors: [], topics: [] };
    },
    async updateMetadata(r) {
      calls.push(r);
      return { errorCode: 0 };
    },
    async stopReplica(r) {
      calls.push(r);
      return { errorCode: 0, partitionErrors: [] };
    },
  };
}

function channel(
  local: ControllerRequestReceiver = localReceiver(),
  extra: Partial<ConstructorParameters<typeof BrokerChannel>[0]> = {},
) {
  return new BrokerChannel({
    localNodeId: 1,
    localReceiver: local,
    clientId: 'samsa-controller-1',
    retryBackoffMs: 10,
    retryBackoffMaxMs: 40,
    link: { reconnectBackoffMs: 10, reconnectBackoffMaxMs: 40, requestTimeoutMs: 2000 },
    ...extra,
  });
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Polls `cond` (a connection and a request take long on a loaded machine); "timed out" after the limit. */
async function until(what: string, cond: () => boolean, limitMs = 30_000): Promise<void> {
  const ms = scaled(limitMs);
  const deadline = Date.now() + ms;
  while (!cond()) {
    if (Date.now() > deadline) throw new TestTimeoutError(what, ms);
    await sleep(10);
  }
}

test('one request in flight per broker, answered in order; a slow broker does not hold up another', async () => {
  const slow = await FakeBroker.start();
  const fast = await FakeBroker.start();
  const ch = channel();
  try {
    let inFlight = 0;
    let maxInFlight = 0;
    slow.onRequest = async () => {
      inFlight++;
      maxInFlight = Math.max(maxInFlight, inFlight);
      await sleep(40);
      inFlight--;
      return { errorCode: 0, partitionErrors: [], topics: [] };
    };
    ch.addBroker(info(2, slow.port));
    ch.addBroker(info(3, fast.port));
    const order: string[] = [];
    const slowOnes = [1, 2, 3, 4].map((t) => ch.leaderAndIsr(2, lai(t)).then(() => order.push(`slow-${t}`)));
    assert.equal(ch.pending(2), 4);
    const fastOne = ch
      .updateMetadata(3, updateMetadata({}, [umBroker(3)], []))
      .then(() => order.push('fast'));
    await Promise.all([...slowOnes, fastOne]);
    assert.equal(maxInFlight, 1);
    assert.deepEqual(
      slow.received.map((r) => (r.body as LeaderAndIsrRequest).controllerEpoch),
      [1, 2, 3, 4],
    );
    assert.equal(order[0], 'fast');
    assert.deepEqual(order.slice(1), ['slow-1', 'slow-2', 'slow-3', 'slow-4']);
    assert.ok(slow.received.every((r) => r.clientId === 'samsa-controller-1'));
    assert.equal(ch.pending(2), 0);
    assert.deepEqual(ch.brokerIds(), [2, 3]);
  } finally {
    ch.close();
    await slow.close();
    await fast.close();
  }
});

test("the controller's own broker is called directly, in order, with the same objects", async () => {
  const local = localReceiver();
  const ch = channel(local);
  try {
    ch.addBroker(info(1, 1));
    const a = lai(1);
    const b = updateMetadata({}, [], []);
    const c = stopReplica({}, []);
    const results = await Promise.all([ch.leaderAndIsr(1, a), ch.updateMetadata(1, b), ch.stopReplica(1, c)]);
    assert.equal(local.calls.length, 3);
    assert.equal(local.calls[0], a);
    assert.equal(local.calls[1], b);
    assert.equal(local.calls[2], c);
    assert.deepEqual(results[1], { errorCode: 0 });
    // A receiver that cannot process now is retried; a bug is not.
    let failures = 2;
    const flaky: ControllerRequestReceiver = {
      ...local,
      async updateMetadata(r) {
        if (failures-- > 0) throw new ReceiverUnavailableError('store down');
        return local.updateMetadata(r);
      },
      async stopReplica() {
        throw new TypeError('bug');
      },
    };
    const ch2 = channel(flaky);
    ch2.addBroker(info(1, 1));
    assert.deepEqual(await ch2.updateMetadata(1, b), { errorCode: 0 });
    assert.equal(failures, -1);
    await assert.rejects(ch2.stopReplica(1, c), TypeError);
    assert.deepEqual(await ch2.updateMetadata(1, b), { errorCode: 0 }, 'the queue goes on');
    ch2.close();
  } finally {
    ch.close();
  }
});

test('a failed send is retried (connection dropped, broker not up yet) until it is answered', async () => {
  const b = await FakeBroker.start();
  const ch = channel();
  try {
    let drops = 2;
    b.onRequest = () => (drops-- > 0 ? 'close' : { errorCode: 0, partitionErrors: [], topics: [] });
    ch.addBroker(info(2, b.port));
    const res = await ch.leaderAndIsr(2, lai(1));
    assert.equal(res.errorCode, 0);
    assert.equal(b.received.length, 3, 'sent three times');
    assert.ok(b.connections >= 3);
    // A broker whose listener is not up yet: the request waits for it.
    const port = await freePort();
    ch.addBroker(info(3, port));
    const pending = ch.updateMetadata(3, updateMetadata({}, [], []));
    await sleep(100);
    const late = await FakeBroker.start(port);
    try {
      assert.deepEqual(await pending, { errorCode: 0 });
      assert.equal(late.received.length, 1);
    } finally {
      await late.close();
    }
  } finally {
    ch.close();
    await b.close();
  }
});

test('error responses are answers; a broker without the API fails that request and the queue moves on', async () => {
  const b = await FakeBroker.start();
  const ch = channel();
  try {
    b.onRequest = () => ({ errorCode: 11 });
    ch.addBroker(info(2, b.port));
    assert.deepEqual(await ch.updateMetadata(2, updateMetadata({}, [], [])), { errorCode: 11 });
    assert.equal(b.received.length, 1, 'not resent');
  } finally {
    ch.close();
    await b.close();
  }
  const old = await FakeBroker.start();
  old.ranges.delete(5);
  const ch2 = channel();
  try {
    ch2.addBroker(info(2, old.port));
    await assert.rejects(ch2.stopReplica(2, stopReplica({}, [])), UnsupportedVersionError);
    assert.deepEqual(await ch2.updateMetadata(2, updateMetadata({}, [], [])), { errorCode: 0 });
  } finally {
    ch2.close();
    await old.close();
  }
});

test('removeBroker fails the pending requests with a retriable error; later requests too', async () => {
  const b = await FakeBroker.start();
  const ch = channel();
  try {
    b.onRequest = () => 'hang';
    ch.addBroker(info(2, b.port));
    const pending = [1, 2, 3].map((t) => ch.leaderAndIsr(2, lai(t)));
    await until('the first request to reach the broker', () => b.received.length > 0);
    await sleep(50);
    assert.equal(b.received.length, 1, 'one in flight');
    ch.removeBroker(2);
    for (const p of pending) {
      await assert.rejects(p, (e: unknown) => {
        assert.ok(e instanceof BrokerRemovedError);
        assert.equal(e.retriable, true);
        return true;
      });
    }
    assert.deepEqual(ch.brokerIds(), []);
    await assert.rejects(ch.leaderAndIsr(2, lai(4)), BrokerRemovedError);
    // A broker that keeps failing is retried until it is removed.
    const dead = await freePort();
    ch.addBroker(info(4, dead));
    const retried = ch.updateMetadata(4, updateMetadata({}, [], []));
    await sleep(150);
    ch.removeBroker(4);
    await assert.rejects(retried, BrokerRemovedError);
  } finally {
    ch.close();
    await b.close();
  }
});

test('re-registration with a new epoch or endpoint fails what was pending; the same registration keeps it', async () => {
  const b = await FakeBroker.start();
  const b2 = await FakeBroker.start();
  const ch = channel();
  try {
    let release: (() => void) | null = null;
    b.onRequest = () => new Promise((resolve) => (release = () => resolve({ errorCode: 0 })));
    ch.addBroker(info(2, b.port, 10n));
    const first = ch.updateMetadata(2, updateMetadata({}, [], []));
    await until('the request to reach the broker', () => release !== null);
    ch.addBroker(info(2, b.port, 10n));
    release!();
    assert.deepEqual(await first, { errorCode: 0 }, 'same epoch and endpoint: untouched');
    const second = ch.updateMetadata(2, updateMetadata({}, [], []));
    await sleep(50);
    ch.addBroker(info(2, b2.port, 11n));
    await assert.rejects(second, BrokerRemovedError);
    assert.deepEqual(await ch.updateMetadata(2, updateMetadata({}, [], [])), { errorCode: 0 });
    assert.equal(b2.received.length, 1, 'the new incarnation gets the new requests');
  } finally {
    ch.close();
    await b.close();
    await b2.close();
  }
});

test('close fails everything queued and refuses new requests', async () => {
  const b = await FakeBroker.start();
  const ch = channel();
  b.onRequest = () => 'hang';
  ch.addBroker(info(2, b.port));
  const p = ch.updateMetadata(2, updateMetadata({}, [], []));
  await sleep(30);
  ch.close();
  await assert.rejects(p, ClientClosedError);
  await assert.rejects(ch.updateMetadata(2, updateMetadata({}, [], [])), ClientClosedError);
  ch.addBroker(info(3, b.port));
  assert.deepEqual(ch.brokerIds(), []);
  await b.close();
});

test('older brokers get the older forms; LeaderAndIsr answers come back with both partition lists', async () => {
  const b = await FakeBroker.start();
  const ch = channel();
  try {
    b.ranges.set(4, [0, 1]);
    b.ranges.set(5, [0, 0]);
    b.ranges.set(6, [0, 4]);
    b.onRequest = (r: Received) => {
      if (r.key === 4) {
        const body = r.body as LeaderAndIsrRequest;
        return {
          errorCode: 0,
          partitionErrors: body.ungroupedPartitionStates.map((s) => ({
            topicName: s.topicName,
            partitionIndex: s.partitionIndex,
            errorCode: 0,
          })),
          topics: [],
        } satisfies LeaderAndIsrResponse;
      }
      if (r.key === 5) return { errorCode: 0, partitionErrors: [] };
      return { errorCode: 0 };
    };
    ch.addBroker(info(2, b.port));
    const res = await ch.leaderAndIsr(2, lai(1));
    const sent = b.received[0]!;
    assert.equal(sent.version, 1);
    const body = sent.body as LeaderAndIsrRequest;
    assert.deepEqual(
      body.ungroupedPartitionStates.map((s) => [s.topicName, s.partitionIndex]),
      [['a', 0]],
    );
    assert.deepEqual(res.partitionErrors, [{ topicName: 'a', partitionIndex: 0, errorCode: 0 }]);
    assert.deepEqual(res.topics, [{ topicId: ID_A, partitionErrors: res.partitionErrors }]);
    await ch.updateMetadata(
      2,
      updateMetadata(
        {},
        [umBroker(2)],
        [{ name: 't', id: ID_A, partitions: [{ partitionIndex: 0, leader: 2 }] }],
      ),
    );
    const um = b.received[1]!;
    assert.equal(um.version, 4);
    assert.deepEqual(
      (um.body as UpdateMetadataRequest).ungroupedPartitionStates.map((s) => s.topicName),
      ['t'],
    );
    await ch.stopReplica(
      2,
      stopReplica({}, [{ name: 't', partitions: [{ partitionIndex: 0, deletePartition: true }] }]),
    );
    const sr = b.received[2]!.body as StopReplicaRequest;
    assert.equal(b.received[2]!.version, 0);
    assert.equal(sr.deletePartitions, true);
    assert.deepEqual(sr.ungroupedPartitions, [{ topicName: 't', partitionIndex: 0 }]);
    // A v5+ answer (by topic id) gets its names back.
    b.ranges.set(4, [0, 7]);
    const fresh = channel();
    fresh.addBroker(info(2, b.port));
    b.onRequest = () => ({
      errorCode: 0,
      partitionErrors: [],
      topics: [{ topicId: ID_A, partitionErrors: [{ topicName: '', partitionIndex: 0, errorCode: 11 }] }],
    });
    const v7 = await fresh.leaderAndIsr(2, lai(2));
    assert.equal(b.received.at(-1)!.version, 7);
    assert.deepEqual(v7.partitionErrors, [{ topicName: 'a', partitionIndex: 0, errorCode: 11 }]);
    fresh.close();
  } finally {
    ch.close();
    await b.close();
  }
});

test('listenerName picks the endpoint the channel connects to', async () => {
  const b = await FakeBroker.start();
  const ch = channel(undefined, { listenerName: 'INTERNAL' });
  try {
    ch.addBroker({
      ...info(2, 1),
      endpoints: [
        { listener: 'PLAINTEXT', securityProtocol: 'PLAINTEXT', host: '127.0.0.1', port: 1 },
        { listener: 'INTERNAL', securityProtocol: 'PLAINTEXT', host: '127.0.0.1', port: b.port },
      ],
    });
    assert.deepEqual(await ch.updateMetadata(2, updateMetadata({}, [], [])), { errorCode: 0 });
  } finally {
    ch.close();
    await b.close();
  }
});

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const a = s.address();
      const port = typeof a === 'object' && a !== null ? a.port : 0;
      s.close(() => resolve(port));
    });
  });
}
