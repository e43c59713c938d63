// Test helper: a partition log that applies the broker's idempotence rules to sealed batches
// (CLIENTS.md §4.2): per producer id the last 5 batches are remembered for deduplication, a
// new epoch must start at sequence 0, a gap is OUT_OF_ORDER_SEQUENCE_NUMBER, an older epoch is
// INVALID_PRODUCER_EPOCH. Records are decoded with kafkajs so the test also checks the bytes.
import { createRequire } from 'node:module';
import { ErrorCode } from '../../../src/protocol/errors.js';

const require = createRequire(import.meta.url);
const KjsDecoder = require('kafkajs/src/protocol/decoder');
const decodeBatch = require('kafkajs/src/protocol/recordBatch/v0/decoder');

interface Entry {
  epoch: number;
  first: number;
  last: number;
  offset: bigint;
}

export class FakeLog {
  values: string[] = [];
  #producers = new Map<bigint, Entry[]>();

  async append(batch: Buffer): Promise<{ errorCode: number; baseOffset: bigint }> {
    const pid = batch.readBigInt64BE(43);
    const epoch = batch.readInt16BE(51);
    const seq = batch.readInt32BE(53);
    const count = batch.readInt32BE(57);
    if (pid >= 0n) {
      const hist = this.#producers.get(pid) ?? [];
      const last = hist[hist.length - 1];
      if (last !== undefined && epoch < last.epoch)
        return { errorCode: ErrorCode.INVALID_PRODUCER_EPOCH, baseOffset: -1n };
      const dup = hist.find((e) => e.epoch === epoch && e.first === seq && e.last === seq + count - 1);
      if (dup !== undefined) return { errorCode: 0, baseOffset: dup.offset };
      const expected = last === undefined || last.epoch !== epoch ? 0 : last.last + 1;
      if (seq !== expected) return { errorCode: ErrorCode.OUT_OF_ORDER_SEQUENCE_NUMBER, baseOffset: -1n };
      const offset = BigInt(this.values.length);
      hist.push({ epoch, first: seq, last: seq + count - 1, offset });
      if (hist.length > 5) hist.shift();
      this.#producers.set(pid, hist);
    }
    const offset = BigInt(this.values.length);
    const d = await decodeBatch(new KjsDecoder(batch));
    for (const r of d.records) this.values.push(r.value === null ? '<null>' : r.value.toString());
    return { errorCode: 0, baseOffset: offset };
  }
}
