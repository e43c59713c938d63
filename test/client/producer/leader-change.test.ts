// The idempotent producer's sender across leader changes, against in-memory brokers that share
// each partition's log (a replicated log: what one leader appended, the next one has) and apply
// the broker's sequence rules: batches in flight to a leader that dies are requeued and resent in
// order to the new leader with their sequences, nothing reaches the new leader while batches are
// still out to the old one, and an epoch bump renumbers only the partition whose sequences broke
// (a resend elsewhere keeps its epoch and sequence, so the broker can recognise it).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ConnectionError } from '../../../src/client/errors.js';
import { RecordAccumulator } from '../../../src/client/producer/accumulator.js';
import { ProducerIdentity } from '../../../src/client/producer/idempotence.js';
import { Sender, type SenderCluster } from '../../../src/client/producer/sender.js';
import { ErrorCode } from '../../../src/protocol/errors.js';
import type { ProduceRequest, ProduceResponse } from '../../../src/protocol/messages/generated/produce.js';
import { options, partitionAnswer, sendVia } from './fake-cluster.js';
import { FakeLog } from './fake-log.js';

/** What a broker does with one partition of a request: append, append and lose the connection, fail, or refuse with a code. */
type Outcome = 'ok' | 'append-then-drop' | 'drop' | number;

class Brokers implements SenderCluster {
  readonly logs = new Map<string, FakeLog>();
  readonly leaders = new Map<string, number>();
  /** Per request: node and the partitions it carried. */
  readonly sent: { node: number; partitions: string[]; epochs: number[]; sequences: number[] }[] = [];
  /** Partitions with a request in flight, by node. */
  readonly #inFlight = new Map<number, Map<string, number>>();
  /** A request reached a broker while the same partition was still in flight to another. */
  overlaps: string[] = [];
  outcome: (node: number, tp: string, requestNo: number) => Outcome = () => 'ok';
  readonly #chains = new Map<number, Promise<unknown>>();

  log(tp: string): FakeLog {
    let l = this.logs.get(tp);
    if (l === undefined) {
      l = new FakeLog();
      this.logs.set(tp, l);
    }
    return l;
  }

  leaderFor = (topic: string, partition: number): number | undefined =>
    this.leaders.get(`${topic}-${partition}`);
  requestMetadataUpdate = (): void => {};

  produce = (node: number, req: ProduceRequest): Promise<ProduceResponse | undefined> => {
    const n = this.sent.length;
    const parts = req.topicData.flatMap((t) =>
      t.partitionData.map((pd) => ({ tp: `${t.name}-${pd.index}`, pd, t })),
    );
    this.sent.push({
      node,
      partitions: parts.map((p) => p.tp),
      epochs: parts.map((p) => p.pd.records!.readInt16BE(51)),
      sequences: parts.map((p) => p.pd.records!.readInt32BE(53)),
    });
    for (const { tp } of parts) {
      for (const [other, m] of this.#inFlight)
        if (other !== node && (m.get(tp) ?? 0) > 0)
          this.overlaps.push(`${tp} to ${node} while out to ${other}`);
      const m = this.#inFlight.get(node) ?? new Map<string, number>();
      m.set(tp, (m.get(tp) ?? 0) + 1);
      this.#inFlight.set(node, m);
    }
    const copies = parts.map((p) => ({ ...p, records: Buffer.from(p.pd.records!) }));
    const run = (this.#chains.get(node) ?? Promise.resolve()).then(async () => {
      await new Promise((r) => setTimeout(r, 2));
      let drop = false;
      const responses: ProduceResponse['responses'] = [];
      for (const { tp, pd, t, records } of copies) {
        const o = this.outcome(node, tp, n);
        let errorCode = 0;
        let baseOffset = -1n;
        if (o === 'drop') drop = true;
        else if (typeof o === 'number') errorCode = o;
        else if (this.leaders.get(tp) !== node) errorCode = ErrorCode.NOT_LEADER_OR_FOLLOWER;
        else {
          const r = await this.log(tp).append(records);
          errorCode = r.errorCode;
          baseOffset = r.baseOffset;
          if (o === 'append-then-drop') drop = true;
        }
        let topic = responses.find((x) => x.name === t.name);
        if (topic === undefined) {
          topic = { name: t.name, partitionResponses: [] };
          responses.push(topic);
        }
        topic.partitionResponses.push(partitionAnswer(pd.index, errorCode, baseOffset));
      }
      for (const { tp } of parts) {
        const m = this.#inFlight.get(node)!;
        m.set(tp, m.get(tp)! - 1);
      }
      if (drop) throw new ConnectionError('injected: leader lost');
      return { responses, throttleTimeMs: 0, nodeEndpoints: [] };
    });
    this.#chains.set(
      node,
      run.catch(() => {}),
    );
    return run;
  };
}

function setup(batchSize: number) {
  const acc = new RecordAccumulator(batchSize, 1 << 24);
  const brokers = new Brokers();
  let epoch = -1;
  const identity = new ProducerIdentity(
    async () => {
      epoch++;
      return { throttleTimeMs: 0, errorCode: 0, producerId: 7n, producerEpoch: epoch };
    },
    null,
    60000,
    1,
    5000,
  );
  const sender = new Sender(acc, brokers, options({ lingerMs: 0, deliveryTimeoutMs: 20000 }), identity);
  const send = sendVia(acc, sender);
  return { brokers, sender, send, epochs: () => epoch };
}

test('batches in flight to a leader that dies are resent to the new leader in order, once each', async () => {
  const { brokers, sender, send } = setup(80); // about one record per batch: many batches in flight
  brokers.leaders.set('t-0', 1);
  let failedOver = false;
  brokers.outcome = (node, _tp, n) => {
    if (node !== 1 || n < 12) return 'ok';
    if (!failedOver) {
      // Broker 1 appends this request, then dies before answering; its partition moves to 2.
      failedOver = true;
      brokers.leaders.set('t-0', 2);
      return 'append-then-drop';
    }
    return 'drop';
  };
  const values = Array.from({ length: 120 }, (_, i) => `record-${i}`);
  const done: Promise<unknown>[] = [];
  for (const v of values) {
    done.push(send('t', 0, v));
    if (done.length % 10 === 0) await new Promise((r) => setTimeout(r, 1));
  }
  await Promise.all(done);
  sender.stop();
  assert.ok(failedOver, 'the leader changed while batches were in flight');
  assert.deepEqual(brokers.log('t-0').values, values, 'every record once, in order');
  assert.deepEqual(
    brokers.overlaps,
    [],
    'nothing went to the new leader while batches were out to the old one',
  );
  assert.ok(brokers.sent.some((r) => r.node === 2));
});

test('an epoch bump renumbers only the broken partition; a resend elsewhere keeps its epoch and sequence', async () => {
  const { brokers, sender, send, epochs } = setup(16384);
  brokers.leaders.set('t-0', 1);
  brokers.leaders.set('t-1', 2);
  let firstOf1 = true;
  let firstOf2 = true;
  brokers.outcome = (node, tp) => {
    if (node === 1 && tp === 't-0' && firstOf1) {
      firstOf1 = false;
      // The broker lost our producer state: the next batch is out of order.
      return ErrorCode.OUT_OF_ORDER_SEQUENCE_NUMBER;
    }
    if (node === 2 && tp === 't-1' && firstOf2) {
      firstOf2 = false;
      return 'append-then-drop'; // appended, answer lost: must be resent as the same batch
    }
    return 'ok';
  };
  await Promise.all([send('t', 0, 'a0'), send('t', 1, 'b0')]);
  await Promise.all([send('t', 0, 'a1'), send('t', 1, 'b1')]);
  sender.stop();
  assert.equal(epochs(), 1, 'one bump');
  assert.deepEqual(brokers.log('t-0').values, ['a0', 'a1']);
  assert.deepEqual(brokers.log('t-1').values, ['b0', 'b1'], 'the resend was recognised, not appended again');
  const resend = brokers.sent.filter((r) => r.node === 2 && r.partitions.includes('t-1'))[1]!;
  assert.deepEqual(
    [resend.epochs[0], resend.sequences[0]],
    [0, 0],
    'resent with its first epoch and sequence',
  );
  const lastOf1 = brokers.sent.filter((r) => r.node === 2).at(-1)!;
  assert.deepEqual([lastOf1.epochs[0], lastOf1.sequences[0]], [1, 0], 'then the new epoch from sequence 0');
  const renumbered = brokers.sent.filter((r) => r.node === 1)[1]!;
  assert.deepEqual(
    [renumbered.epochs[0], renumbered.sequences[0]],
    [1, 0],
    'the broken partition starts over',
  );
});
