// Message codec benchmark against kafkajs 2.2.4's protocol Encoder/Decoder, same run, same data.
// Run: npx tsx bench/protocol-codec.ts   (BENCH_MS=<ms per case>, default 1000)
//
// Cases (broker hot paths first):
// - Produce v7 request decode: ours vs a decoder written with kafkajs's Decoder in kafkajs's own
//   style (kafkajs is a client and ships no request decoder).
// - Fetch v11 response encode: ours (records referenced) vs kafkajs's Encoder (records copied),
//   written the way kafkajs writes its request encoders (nested Encoders + writeArray).
// - Metadata v6 response decode and Produce v7 response decode: ours vs kafkajs's real
//   `requests/<api>/v<n>/response.js` decode functions.
import { createRequire } from 'node:module';
import { fetchApi, metadataApi, produceApi } from '../src/protocol/messages/index.js';
import { Reader } from '../src/protocol/primitives/reader.js';
import { Writer } from '../src/protocol/primitives/writer.js';
import { fetchAnswer, produceAnswer } from './answers.js';

const require = createRequire(import.meta.url);
interface KDecoder {
  readInt16(): number;
  readInt32(): number;
  readInt64(): unknown;
  readString(): string | null;
  readBytes(): Buffer;
  readArray<T>(fn: (d: KDecoder) => T): T[];
}
interface KEncoder {
  buffer: Buffer;
  writeInt16(v: number): KEncoder;
  writeInt32(v: number): KEncoder;
  writeInt64(v: unknown): KEncoder;
  writeString(v: string | null): KEncoder;
  writeBytes(v: Buffer | null): KEncoder;
  writeArray(v: unknown[], type?: string): KEncoder;
}
const KjsDecoder: new (b: Buffer) => KDecoder = require('kafkajs/src/protocol/decoder.js');
const KjsEncoder: new () => KEncoder = require('kafkajs/src/protocol/encoder.js');
const kjsMetadataV6: {
  decode(b: Buffer): Promise<unknown>;
} = require('kafkajs/src/protocol/requests/metadata/v6/response.js');
const kjsProduceV7: {
  decode(b: Buffer): Promise<unknown>;
} = require('kafkajs/src/protocol/requests/produce/v7/response.js');

const BENCH_MS = Number(process.env.BENCH_MS ?? 1000);

async function measure(fn: () => unknown, ms: number): Promise<number> {
  let n = 0;
  const start = process.hrtime.bigint();
  const deadline = start + BigInt(Math.round(ms * 1e6));
  let now = start;
  while (now < deadline) {
    for (let i = 0; i < 20; i++) await fn();
    n += 20;
    now = process.hrtime.bigint();
  }
  return n / (Number(now - start) / 1e9);
}

// The machine is shared: alternate short rounds of both sides and keep each side's best round.
async function compare(name: string, ours: () => unknown, theirs: () => unknown): Promise<void> {
  for (let i = 0; i < 200; i++) {
    await ours();
    await theirs();
  }
  let a = 0;
  let b = 0;
  for (let round = 0; round < 5; round++) {
    a = Math.max(a, await measure(ours, BENCH_MS / 5));
    b = Math.max(b, await measure(theirs, BENCH_MS / 5));
  }
  const fmt = (x: number) => x.toFixed(0).padStart(9);
  process.stdout.write(
    `${name.padEnd(46)} ours ${fmt(a)} op/s  kafkajs ${fmt(b)} op/s  ×${(a / b).toFixed(2)}\n`,
  );
}

// ---- data ------------------------------------------------------------------------------------

function produceRequest(topics: number, partitions: number, recordBytes: number) {
  return {
    transactionalId: null,
    acks: -1,
    timeoutMs: 30000,
    topicData: Array.from({ length: topics }, (_, t) => ({
      name: `topic-${t}`,
      partitionData: Array.from({ length: partitions }, (_, p) => ({
        index: p,
        records: Buffer.alloc(recordBytes, p),
      })),
    })),
  };
}

function encodeWith(write: (w: Writer) => void): Buffer {
  const w = new Writer();
  write(w);
  return w.toBuffer();
}

// ---- kafkajs-style codecs ---------------------------------------------------------------------

function kjsDecodeProduceV7(buf: Buffer) {
  const d = new KjsDecoder(buf);
  return {
    transactionalId: d.readString(),
    acks: d.readInt16(),
    timeout: d.readInt32(),
    topicData: d.readArray((t) => ({
      topic: t.readString(),
      partitions: t.readArray((p) => ({ partition: p.readInt32(), recordSet: p.readBytes() })),
    })),
  };
}

function kjsEncodeFetchV11(value: ReturnType<typeof fetchAnswer>): Buffer {
  const partition = (p: ReturnType<typeof fetchAnswer>['responses'][0]['partitions'][0]) =>
    new KjsEncoder()
      .writeInt32(p.partitionIndex)
      .writeInt16(p.errorCode)
      .writeInt64(String(p.highWatermark))
      .writeInt64(String(p.lastStableOffset))
      .writeInt64(String(p.logStartOffset))
      .writeArray([])
      .writeInt32(p.preferredReadReplica)
      .writeBytes(p.records);
  const topic = (t: ReturnType<typeof fetchAnswer>['responses'][0]) =>
    new KjsEncoder().writeString(t.topic).writeArray(t.partitions.map(partition));
  return new KjsEncoder()
    .writeInt32(value.throttleTimeMs)
    .writeInt16(value.errorCode)
    .writeInt32(value.sessionId)
    .writeArray(value.responses.map(topic)).buffer;
}

// ---- run ---------------------------------------------------------------------------------------

const cases: [string, ReturnType<typeof produceRequest>][] = [
  ['Produce v7 req decode, 1×10 parts, 16 KiB', produceRequest(1, 10, 16384)],
  ['Produce v7 req decode, 20×50 parts, 200 B', produceRequest(20, 50, 200)],
];
for (const [name, value] of cases) {
  const bytes = encodeWith((w) => produceApi.writeRequest(w, 7, value));
  await compare(
    name,
    () => produceApi.readRequest(new Reader(bytes), 7),
    () => kjsDecodeProduceV7(bytes),
  );
}

for (const [name, value] of [
  ['Fetch v11 resp encode, 1×10 parts, 64 KiB', fetchAnswer(1, 10, 65536)],
  ['Fetch v11 resp encode, 20×50 parts, 200 B', fetchAnswer(20, 50, 200)],
] as const) {
  await compare(
    name,
    () => {
      const w = new Writer(4096);
      fetchApi.writeResponse(w, 11, value);
      return w.finish();
    },
    () => kjsEncodeFetchV11(value),
  );
}

const metadata = {
  throttleTimeMs: 0,
  brokers: [0, 1, 2].map((n) => ({
    nodeId: n,
    host: `broker-${n}.example.internal`,
    port: 9092,
    rack: null,
  })),
  clusterId: 'cluster-xyz',
  controllerId: 0,
  topics: Array.from({ length: 50 }, (_, t) => ({
    errorCode: 0,
    name: `orders-${t}`,
    topicId: 'AAAAAAAAAAAAAAAAAAAAAA',
    isInternal: false,
    partitions: Array.from({ length: 12 }, (_, p) => ({
      errorCode: 0,
      partitionIndex: p,
      leaderId: p % 3,
      leaderEpoch: 5,
      replicaNodes: [0, 1, 2],
      isrNodes: [0, 1, 2],
      offlineReplicas: [],
    })),
    topicAuthorizedOperations: -2147483648,
  })),
  clusterAuthorizedOperations: -2147483648,
};
const metaBytes = encodeWith((w) => metadataApi.writeResponse(w, 6, metadata));
await compare(
  'Metadata v6 resp decode, 50 topics × 12 parts',
  () => metadataApi.readResponse(new Reader(metaBytes), 6),
  () => kjsMetadataV6.decode(metaBytes),
);

const produceResp = produceAnswer(10, 10);
const prBytes = encodeWith((w) => produceApi.writeResponse(w, 7, produceResp));
await compare(
  'Produce v7 resp decode, 10×10 parts',
  () => produceApi.readResponse(new Reader(prBytes), 7),
  () => kjsProduceV7.decode(prBytes),
);
