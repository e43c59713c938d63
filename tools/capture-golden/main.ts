// Captures golden request frames from real clients into test/fixtures/golden/.
// Usage: npx tsx tools/capture-golden/main.ts   (needs kcat, /usr/bin/python3 with kafka-python)

import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { KCAT_CODECS, runKafkajs, runKafkaPython, runKcat } from './clients.js';
import { type CapturedFrame, FakeBroker } from './fake-broker.js';

const OUT_DIR = 'test/fixtures/golden';
const API_NAMES: Readonly<Record<number, string>> = { 0: 'produce', 3: 'metadata', 18: 'api-versions' };
const READ_DELAY_MS = 300;
const CODEC_IDS = { none: 0, gzip: 1, snappy: 2, lz4: 3, zstd: 4 } as const;

interface ManifestEntry {
  file: string;
  client: string;
  apiKey: number;
  apiVersion: number;
  correlationId: number;
  clientId: string | null;
  connection: number;
  firstRead: number;
  lastRead: number;
  codec?: string;
}

function pick(frames: CapturedFrame[], run: string, apiKey: number, version: number): CapturedFrame {
  const f = frames.find(
    (x) => x.run === run && x.header.apiKey === apiKey && x.header.apiVersion === version,
  );
  if (f === undefined) {
    const seen = frames.filter((x) => x.run === run).map((x) => `${x.header.apiKey}v${x.header.apiVersion}`);
    throw new Error(`${run}: no request ${apiKey} v${version} (saw ${seen.join(', ')})`);
  }
  return f;
}

/** Attributes codec bits of the first batch in a Produce v3-v8 request (checks the file name is honest). */
function produceCodec(f: CapturedFrame): number {
  const b = f.frame.subarray(4);
  let p = f.header.bodyOffset;
  const txnLen = b.readInt16BE(p);
  p += 2 + Math.max(txnLen, 0) + 2 + 4 + 4; // transactional id, acks, timeout, topic count
  p += 2 + b.readInt16BE(p) + 4 + 4 + 4; // topic name, partition count, index, records length
  return b.readInt16BE(p + 21) & 7;
}

async function main(): Promise<void> {
  const broker = new FakeBroker();
  await broker.start();
  const entries: ManifestEntry[] = [];
  const save = (client: string, f: CapturedFrame, codec?: string): void => {
    const api = API_NAMES[f.header.apiKey] ?? `api${f.header.apiKey}`;
    const file = `${client}-${api}-v${f.header.apiVersion}${codec === undefined ? '' : `-${codec}`}.bin`;
    writeFileSync(join(OUT_DIR, file), f.frame);
    const { apiKey, apiVersion, correlationId, clientId } = f.header;
    const { connection, firstRead, lastRead } = f;
    const e: ManifestEntry = {
      file,
      client,
      apiKey,
      apiVersion,
      correlationId,
      clientId,
      connection,
      firstRead,
      lastRead,
    };
    if (codec !== undefined) e.codec = codec;
    entries.push(e);
  };
  mkdirSync(OUT_DIR, { recursive: true });
  try {
    for (const codec of KCAT_CODECS) {
      broker.run = `librdkafka-${codec}`;
      await runKcat(broker.port, codec);
      if (codec === 'none') {
        save('librdkafka', pick(broker.frames, broker.run, 18, 3));
        save('librdkafka', pick(broker.frames, broker.run, 3, 4));
      }
      const produce = pick(broker.frames, broker.run, 0, 7);
      if (produceCodec(produce) !== CODEC_IDS[codec]) throw new Error(`kcat -z ${codec}: batch not ${codec}`);
      save('librdkafka', produce, codec);
    }
    broker.run = 'kafkajs';
    await runKafkajs(broker.port);
    for (const [k, v] of [
      [18, 2],
      [3, 6],
      [0, 7],
    ] as const)
      save('kafkajs', pick(broker.frames, 'kafkajs', k, v));

    broker.run = 'kafka-python';
    broker.pauseOnConnectMs = READ_DELAY_MS;
    await runKafkaPython(broker.port);
    broker.pauseOnConnectMs = 0;
    const av = pick(broker.frames, 'kafka-python', 18, 0);
    const md = pick(broker.frames, 'kafka-python', 3, 0);
    save('kafka-python', av);
    save('kafka-python', md);
    // kafka-python writes both requests back to back; keep the socket read that carried them.
    const read = broker.reads.find((r) => r.connection === av.connection && r.index === av.firstRead);
    const together = av.connection === md.connection && av.firstRead === md.lastRead;
    if (read !== undefined && together)
      writeFileSync(join(OUT_DIR, 'kafka-python-pipelined-read.bin'), read.data);
    const manifest = {
      note: 'Raw size-prefixed request frames from real clients, captured by tools/capture-golden/main.ts.',
      clients: { kcat: '1.7.1', librdkafka: '2.0.2', kafkajs: '2.2.4', 'kafka-python': '2.0.2' },
      kafkaPython: {
        pipelinedInOneRead: together,
        firstReadDelayedMs: READ_DELAY_MS,
        pipelinedReadFile: together ? 'kafka-python-pipelined-read.bin' : null,
      },
      frames: entries,
    };
    writeFileSync(join(OUT_DIR, 'manifest.json'), `${JSON.stringify(manifest, null, 2)}\n`);
    process.stdout.write(`captured ${entries.length} frames; kafka-python one read: ${together}\n`);
  } finally {
    await broker.stop();
  }
}

await main();
