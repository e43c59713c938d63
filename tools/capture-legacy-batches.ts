// Captures legacy (magic 0 and 1) message sets written by kcat 1.7.1 / librdkafka 2.0.2 into
// test/fixtures/record-batch/. A throw-away listener advertises an old broker (Produce ≤ 2,
// Fetch ≤ 2 → librdkafka MsgVersion 1; Produce ≤ 1, Fetch ≤ 1 → MsgVersion 0; FindCoordinator 0
// keeps lz4 enabled, CLIENTS.md §3.2) and answers ApiVersions, Metadata v0-1 and Produce v0-2
// just enough for kcat to send one Produce request, whose message set is saved verbatim.
// Self-contained on purpose: fixtures must not be produced by the code they test.
// Usage: npx tsx tools/capture-legacy-batches.ts
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { writeFileSync } from 'node:fs';
import { type AddressInfo, createServer, type Socket } from 'node:net';

const OUT = 'test/fixtures/record-batch';
const TOPIC = 'legacy';
export const LINES = [1, 2, 3, 4, 5].map(
  (i) => `key-${i}:value-${i} ${'lorem ipsum dolor sit amet '.repeat(6)}`,
);

function i16(v: number): Buffer {
  const b = Buffer.alloc(2);
  b.writeInt16BE(v);
  return b;
}
function i32(v: number): Buffer {
  const b = Buffer.alloc(4);
  b.writeInt32BE(v);
  return b;
}
function i64(v: bigint): Buffer {
  const b = Buffer.alloc(8);
  b.writeBigInt64BE(v);
  return b;
}
function str(s: string | null): Buffer {
  if (s === null) return i16(-1);
  return Buffer.concat([i16(Buffer.byteLength(s)), Buffer.from(s)]);
}
function frame(correlationId: number, body: Buffer[]): Buffer {
  const payload = Buffer.concat([i32(correlationId), ...body]);
  return Buffer.concat([i32(payload.length), payload]);
}

function apiVersions(version: number, ranges: number[][]): Buffer[] {
  if (version >= 3) {
    // Compact array (uvarint n+1), each entry with an empty tag buffer; then throttle, tags.
    const entries = ranges.map(([k, lo, hi]) =>
      Buffer.concat([i16(k!), i16(lo!), i16(hi!), Buffer.from([0])]),
    );
    return [i16(0), Buffer.from([ranges.length + 1]), ...entries, i32(0), Buffer.from([0])];
  }
  const entries = ranges.map(([k, lo, hi]) => Buffer.concat([i16(k!), i16(lo!), i16(hi!)]));
  return [i16(0), i32(ranges.length), ...entries, ...(version >= 1 ? [i32(0)] : [])];
}

function metadata(version: number, port: number): Buffer[] {
  const broker = [i32(1), str('127.0.0.1'), i32(port), ...(version >= 1 ? [str(null)] : [])];
  const partition = [i16(0), i32(0), i32(1), i32(1), i32(1), i32(1), i32(1)];
  const topic = [i16(0), str(TOPIC), ...(version >= 1 ? [Buffer.from([0])] : []), i32(1), ...partition];
  return [i32(1), ...broker, ...(version >= 1 ? [i32(1)] : []), i32(1), ...topic];
}

/** Produce v0-2: returns the message set and the response body. */
function produce(version: number, body: Buffer, pos: number): { records: Buffer; response: Buffer[] } {
  let p = pos + 2 + 4; // acks, timeout
  p += 4; // topic count (1)
  p += 2 + body.readInt16BE(p); // topic name
  p += 4 + 4; // partition count (1), partition index
  const size = body.readInt32BE(p);
  const records = Buffer.from(body.subarray(p + 4, p + 4 + size));
  const part = [i32(0), i16(0), i64(0n), ...(version >= 2 ? [i64(-1n)] : [])];
  return { records, response: [i32(1), str(TOPIC), i32(1), ...part, ...(version >= 1 ? [i32(0)] : [])] };
}

async function capture(msgVersion: 0 | 1, codec: string): Promise<Buffer> {
  const max = msgVersion === 1 ? 2 : 1;
  const ranges = [
    [0, 0, max],
    [1, 0, max],
    [3, 0, 1],
    [10, 0, 0],
    [18, 0, 3],
  ];
  let captured: Buffer | null = null;
  const sockets = new Set<Socket>();
  const server = createServer((socket) => {
    sockets.add(socket);
    let pending = Buffer.alloc(0);
    socket.on('error', () => socket.destroy());
    socket.on('data', (chunk: Buffer) => {
      pending = Buffer.concat([pending, chunk]);
      while (pending.length >= 4 && pending.length >= 4 + pending.readInt32BE(0)) {
        const body = pending.subarray(4, 4 + pending.readInt32BE(0));
        pending = pending.subarray(4 + body.length);
        const [key, version, corr] = [body.readInt16BE(0), body.readInt16BE(2), body.readInt32BE(4)];
        const clientIdLen = body.readInt16BE(8);
        // ApiVersions v3 requests are flexible: header v2 adds a tag buffer after the client id.
        const bodyStart = 10 + Math.max(clientIdLen, 0) + (key === 18 && version >= 3 ? 1 : 0);
        if (key === 18) socket.write(frame(corr, apiVersions(version, ranges)));
        else if (key === 3)
          socket.write(frame(corr, metadata(version, (server.address() as AddressInfo).port)));
        else if (key === 0) {
          const { records, response } = produce(version, body, bodyStart);
          captured ??= records;
          socket.write(frame(corr, response));
        }
      }
    });
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as AddressInfo;
  const args = ['-P', '-b', `127.0.0.1:${port}`, '-t', TOPIC, '-p', '0', '-K', ':', '-X', 'linger.ms=200'];
  if (codec !== 'none') args.push('-z', codec);
  const child = spawn('kcat', args, { stdio: ['pipe', 'ignore', 'inherit'], timeout: 30_000 });
  child.stdin.end(`${LINES.join('\n')}\n`);
  const [code] = await once(child, 'close');
  for (const s of sockets) s.destroy();
  server.close();
  if (code !== 0 || captured === null)
    throw new Error(`kcat v${msgVersion} ${codec}: exit ${code}, nothing captured`);
  return captured;
}

async function main(): Promise<void> {
  for (const msgVersion of [0, 1] as const) {
    for (const codec of ['none', 'gzip', 'snappy', 'lz4']) {
      const records = await capture(msgVersion, codec);
      const magic = records.readInt8(16);
      const attributes = records.readInt8(17);
      if (magic !== msgVersion || (attributes & 7) !== ['none', 'gzip', 'snappy', 'lz4'].indexOf(codec)) {
        throw new Error(`kcat v${msgVersion} ${codec}: got magic ${magic}, attributes ${attributes}`);
      }
      const file = `${OUT}/kcat-magic${msgVersion}-${codec}.bin`;
      writeFileSync(file, records);
      console.log(`${file}: ${records.length} bytes`);
    }
  }
  writeFileSync(`${OUT}/kcat-legacy-lines.json`, `${JSON.stringify(LINES, null, 2)}\n`);
}

await main();
