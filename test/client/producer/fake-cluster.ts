// Test helper: an in-memory cluster for the Sender — one "connection" that processes Produce
// requests strictly in arrival order against FakeLogs (the broker's sequence rules), with
// injected faults, an optional delay and an optional max.message.bytes (larger batches are
// answered MESSAGE_TOO_LARGE, as a broker does) — and `setup()`, a Sender over it.
import assert from 'node:assert/strict';
import { ConnectionError } from '../../../src/client/errors.js';
import { APPENDED, NO_MEMORY, RecordAccumulator } from '../../../src/client/producer/accumulator.js';
import { encodeHeaders } from '../../../src/client/producer/batch-builder.js';
import { ProducerIdentity } from '../../../src/client/producer/idempotence.js';
import type { RecordMetadata } from '../../../src/client/producer/producer-batch.js';
import { Sender, type SenderOptions } from '../../../src/client/producer/sender.js';
import { ErrorCode } from '../../../src/protocol/errors.js';
import type { ProduceRequest, ProduceResponse } from '../../../src/protocol/messages/generated/produce.js';
import { FakeLog } from './fake-log.js';

export const NO_HEADERS = encodeHeaders(undefined);

export type Fault = (
  topic: string,
  partition: number,
  requestNo: number,
) => 'ok' | 'drop-before' | 'drop-after' | number;

export class FakeCluster {
  logs = new Map<string, FakeLog>();
  requests: ProduceRequest[] = [];
  fault: Fault = () => 'ok';
  delayMs = 0;
  /** A batch larger than this is refused with MESSAGE_TOO_LARGE (the topic's max.message.bytes). */
  maxMessageBytes = Number.POSITIVE_INFINITY;
  /** The code for a batch above maxMessageBytes (RECORD_LIST_TOO_LARGE: above segment.bytes). */
  tooLargeCode: number = ErrorCode.MESSAGE_TOO_LARGE;
  inFlightMax = 0;
  #inFlight = 0;
  #chain: Promise<unknown> = Promise.resolve();
  metadataRequests = 0;

  log(topic: string, p: number): FakeLog {
    const k = `${topic}-${p}`;
    let l = this.logs.get(k);
    if (l === undefined) {
      l = new FakeLog();
      this.logs.set(k, l);
    }
    return l;
  }

  leaderFor = (): number => 1;
  requestMetadataUpdate = (): void => {
    this.metadataRequests++;
  };

  produce = (_node: number, req: ProduceRequest, expect: boolean): Promise<ProduceResponse | undefined> => {
    const n =
      this.requests.push({
        ...req,
        topicData: req.topicData.map((t) => ({
          name: t.name,
          partitionData: t.partitionData.map((pd) => ({
            index: pd.index,
            records: Buffer.from(pd.records!),
          })),
        })),
      }) - 1;
    this.#inFlight++;
    this.inFlightMax = Math.max(this.inFlightMax, this.#inFlight);
    // Requests are processed strictly in arrival order, like one broker connection.
    const p = this.#chain.then(async () => {
      if (this.delayMs > 0) await new Promise((r) => setTimeout(r, this.delayMs));
      let drop: 'before' | 'after' | null = null;
      const responses: ProduceResponse['responses'] = [];
      for (const t of req.topicData) {
        const partitionResponses = [];
        for (const pd of t.partitionData) {
          const f = this.fault(t.name, pd.index, n);
          let errorCode = 0;
          let baseOffset = -1n;
          if (f === 'drop-before') drop = 'before';
          else if (typeof f === 'number') errorCode = f;
          else if (pd.records!.length > this.maxMessageBytes) errorCode = this.tooLargeCode;
          else {
            const r = await this.log(t.name, pd.index).append(pd.records!);
            errorCode = r.errorCode;
            baseOffset = r.baseOffset;
            if (f === 'drop-after') drop = 'after';
          }
          partitionResponses.push(partitionAnswer(pd.index, errorCode, baseOffset));
        }
        responses.push({ name: t.name, partitionResponses });
      }
      this.#inFlight--;
      if (drop !== null) throw new ConnectionError(`injected connection loss (${drop})`);
      return expect ? { responses, throttleTimeMs: 0, nodeEndpoints: [] } : undefined;
    });
    this.#chain = p.catch(() => {});
    return p;
  };
}

type PartitionAnswer = ProduceResponse['responses'][number]['partitionResponses'][number];

/** One partition's Produce answer as a broker without leader hints sends it. */
export function partitionAnswer(index: number, errorCode: number, baseOffset: bigint): PartitionAnswer {
  return {
    index,
    errorCode,
    baseOffset,
    logAppendTimeMs: -1n,
    logStartOffset: 0n,
    recordErrors: [],
    errorMessage: null,
    currentLeader: { leaderId: -1, leaderEpoch: -1 },
  };
}

export function options(o: Partial<SenderOptions> = {}): SenderOptions {
  return {
    acks: -1,
    lingerMs: 5,
    requestTimeoutMs: 1000,
    deliveryTimeoutMs: 10000,
    retries: 1000,
    retryBackoffMs: 1,
    retryBackoffMaxMs: 5,
    maxInFlight: 5,
    maxRequestSize: 1 << 20,
    codec: 0,
    idempotent: true,
    transactionalId: null,
    ...o,
  };
}

export function setup(
  o: Partial<SenderOptions> = {},
  batchSize = 16384,
  memory = 1 << 24,
  maxBatchSize = batchSize,
) {
  const acc = new RecordAccumulator(batchSize, memory, maxBatchSize);
  const cluster = new FakeCluster();
  let epoch = -1;
  const inits: bigint[] = [];
  const identity =
    (o.idempotent ?? true)
      ? new ProducerIdentity(
          async (req) => {
            inits.push(req.producerId);
            epoch++;
            return { throttleTimeMs: 0, errorCode: 0, producerId: 1000n, producerEpoch: epoch };
          },
          null,
          60000,
          1,
          5000,
        )
      : null;
  const sender = new Sender(acc, cluster, options(o), identity);
  const send = sendVia(acc, sender);
  return { acc, cluster, sender, send, inits };
}

/** `send(topic, partition, value)`: appends one record and wakes the sender; resolves on delivery. */
export function sendVia(acc: RecordAccumulator, sender: Sender) {
  return (topic: string, partition: number, value: string): Promise<RecordMetadata> =>
    new Promise((resolve, reject) => {
      const r = acc.append(
        topic,
        partition,
        Date.now(),
        null,
        Buffer.from(value),
        NO_HEADERS,
        (e, md) => (e ? reject(e) : resolve(md!)),
        Date.now(),
      );
      assert.notEqual(r, NO_MEMORY);
      if (r !== APPENDED) sender.wakeup();
    });
}
