// Which duplicates of the loss checker the client made and the broker could not have refused.
//
// The broker deduplicates an idempotent producer's retries within one producer id and epoch
// (the last five batches). librdkafka (2.0.2 here; still open upstream as librdkafka #4953)
// bumps its epoch after some errors of a leader change and re-sends batches whose first send
// may have been written: the second copy then carries a new epoch and sequence 0, and no broker
// — Apache Kafka included — can tell it from new data. Such a copy is the client's; a copy with
// the same producer id and epoch as the acknowledged one is a broker failure. The checker reads
// the batch headers of every copy to tell them apart.
import { iterateBatches, readBatchHeader } from '../../src/protocol/record-batch/index.js';
import { RawClient } from '../broker/support/raw-client.js';
import { fetchOnce } from '../broker/support/wire.js';

export interface Copy {
  partition: number;
  offset: bigint;
}

interface Writer {
  producerId: bigint;
  producerEpoch: number;
}

/**
 * Of the copies of each duplicated record, those written by another producer id or epoch than
 * the acknowledged copy (`ackedAt`, or the last copy when the offset was not reported), as
 * "partition/offset" keys; duplicates of one producer session are left out (they are failures).
 */
export async function clientEpochCopies(
  bootstrap: string,
  topic: string,
  duplicates: readonly { copies: readonly Copy[]; ackedAt: Copy | null }[],
): Promise<{ keys: Set<string>; described: string[] }> {
  const keys = new Set<string>();
  const described: string[] = [];
  if (duplicates.length === 0) return { keys, described };
  const wanted = new Map<number, bigint[]>();
  for (const d of duplicates)
    for (const c of d.copies) wanted.set(c.partition, [...(wanted.get(c.partition) ?? []), c.offset]);
  const writers = new Map<string, Writer>();
  for (const [partition, offsets] of wanted)
    for (const [offset, w] of await writersOf(bootstrap, topic, partition, offsets))
      writers.set(`${partition}/${offset}`, w);
  for (const d of duplicates) {
    const acked = d.ackedAt ?? d.copies.at(-1)!;
    const ackedWriter = writers.get(`${acked.partition}/${acked.offset}`);
    if (ackedWriter === undefined) continue;
    for (const c of d.copies) {
      if (c.partition === acked.partition && c.offset === acked.offset) continue;
      const w = writers.get(`${c.partition}/${c.offset}`);
      if (w === undefined) continue;
      if (w.producerId === ackedWriter.producerId && w.producerEpoch === ackedWriter.producerEpoch) continue;
      keys.add(`${c.partition}/${c.offset}`);
      described.push(
        `${c.partition}/${c.offset} by producer ${w.producerId} epoch ${w.producerEpoch}, acknowledged copy at ${acked.offset} by ${ackedWriter.producerId} epoch ${ackedWriter.producerEpoch}`,
      );
    }
  }
  return { keys, described };
}

/** The producer id and epoch of the batch holding each of `offsets`, read from the partition's leader. */
async function writersOf(
  bootstrap: string,
  topic: string,
  partition: number,
  offsets: readonly bigint[],
): Promise<Map<bigint, Writer>> {
  const from = offsets.reduce((a, b) => (b < a ? b : a));
  const to = offsets.reduce((a, b) => (b > a ? b : a));
  for (const address of bootstrap.split(',')) {
    const [host, port] = address.split(':');
    const c = await RawClient.connect(Number(port), host);
    try {
      const found = await readWriters(c, topic, partition, from, to);
      if (found !== null) return found;
    } finally {
      c.socket.destroy();
    }
  }
  throw new Error(`no broker leads ${topic}-${partition}`);
}

/** Null when this broker does not lead the partition. */
async function readWriters(
  c: RawClient,
  topic: string,
  partition: number,
  from: bigint,
  to: bigint,
): Promise<Map<bigint, Writer> | null> {
  const out = new Map<bigint, Writer>();
  let offset = from;
  while (offset <= to) {
    const p = await fetchOnce(c, topic, partition, offset);
    if (p.errorCode !== 0) return null;
    const records = p.records ?? Buffer.alloc(0);
    let next = offset;
    for (const b of iterateBatches(records)) {
      const h = readBatchHeader(records, b.position);
      const last = h.baseOffset + BigInt(h.lastOffsetDelta);
      for (let o = h.baseOffset; o <= last; o++)
        if (o >= offset) out.set(o, { producerId: h.producerId, producerEpoch: h.producerEpoch });
      if (last + 1n > next) next = last + 1n;
    }
    if (next === offset) break; // nothing more below the high watermark
    offset = next;
  }
  return out;
}
