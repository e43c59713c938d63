// The request framer on its own, fed as a socket would feed it: reads into the buffers it picks
// (`readTarget`/`read`, the path of plain TCP sockets) or chunks it must copy from (`push`, TLS).
// Hostile and awkward input: sizes refused before buffering, truncated frames, a stream split at
// every byte boundary, thousands of frames in one read, a memory budget that runs out mid-read.

import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
  DIRECT_READ_MIN,
  FrameReader,
  type FrameSink,
  STAGING_BYTES,
} from '../../src/broker/network/frame-reader.js';

interface Recorder extends FrameSink {
  frames: Buffer[];
  rejected: string[];
  admitted: number;
  /** Frames admitted from now on; null = unlimited. */
  allowance: number | null;
}

function recorder(max = 1 << 30): Recorder {
  const r: Recorder = {
    frames: [],
    rejected: [],
    admitted: 0,
    allowance: null,
    refuse: (size) => (size < 0 || size > max ? `invalid request size ${size}` : null),
    admit: (size) => {
      if (r.allowance !== null) {
        if (r.allowance === 0) return null;
        r.allowance--;
      }
      r.admitted += size;
      return Buffer.alloc(size, 0xee);
    },
    reject: (reason) => r.rejected.push(reason),
    // A copy: the test checks what the frame held when it was delivered.
    frame: (f) => r.frames.push(Buffer.from(f)),
  };
  return r;
}

function sized(body: Buffer): Buffer {
  const b = Buffer.alloc(4 + body.length);
  b.writeInt32BE(body.length, 0);
  body.copy(b, 4);
  return b;
}

/** Bodies of various sizes, each byte identifying its frame and position. */
function bodies(sizes: number[]): Buffer[] {
  return sizes.map((n, i) => {
    const b = Buffer.alloc(n);
    for (let j = 0; j < n; j++) b[j] = (i * 31 + j * 7) & 0xff;
    return b;
  });
}

/**
 * Delivers `input` the way libuv does with a user buffer: each read fills at most the buffer the
 * reader asked for, and at most what `chunk(i)` allows for the i-th read.
 */
function readAll(reader: FrameReader, input: Buffer, chunk: (i: number) => number): void {
  let pos = 0;
  for (let i = 0; pos < input.length; i++) {
    const target = reader.readTarget();
    const n = Math.min(target.length, chunk(i), input.length - pos);
    input.copy(target, 0, pos, pos + n);
    pos += n;
    reader.read(n, target);
  }
}

test('a stream of frames split at every byte boundary is reassembled, by reads and by pushes', () => {
  const expected = bodies([0, 1, 3, 4, 5, 17, 100]);
  const stream = Buffer.concat(expected.map(sized));
  for (let cut = 0; cut <= stream.length; cut++) {
    const viaRead = recorder();
    const a = new FrameReader(viaRead);
    readAll(a, stream, (i) => (i === 0 ? Math.max(cut, 1) : stream.length));
    assert.deepEqual(viaRead.frames, expected, `read split at ${cut}`);
    const viaPush = recorder();
    const b = new FrameReader(viaPush);
    b.push(stream, 0, cut);
    b.push(stream, cut, stream.length);
    assert.deepEqual(viaPush.frames, expected, `push split at ${cut}`);
    assert.ok(a.idle && b.idle);
  }
});

test('one byte per read still yields every frame', () => {
  const expected = bodies([9, 0, 2, 300]);
  const sink = recorder();
  readAll(new FrameReader(sink), Buffer.concat(expected.map(sized)), () => 1);
  assert.deepEqual(sink.frames, expected);
});

test('thousands of frames in one read', () => {
  const expected = bodies(Array.from({ length: 5000 }, (_, i) => i % 9));
  const stream = Buffer.concat(expected.map(sized));
  assert.ok(stream.length < STAGING_BYTES);
  const sink = recorder();
  readAll(new FrameReader(sink), stream, () => stream.length);
  assert.equal(sink.frames.length, expected.length);
  assert.deepEqual(sink.frames, expected);
});

test('a large frame is read straight into its own buffer once enough of it is missing', () => {
  const expected = bodies([10, 3 * DIRECT_READ_MIN + 5, 7, DIRECT_READ_MIN - 1, 2 * STAGING_BYTES]);
  const stream = Buffer.concat(expected.map(sized));
  const sink = recorder();
  const reader = new FrameReader(sink);
  let direct = 0;
  let pos = 0;
  while (pos < stream.length) {
    const target = reader.readTarget();
    if (target.length !== STAGING_BYTES) direct++;
    // Reads of an odd size, so that frames and reads never line up.
    const n = Math.min(target.length, 10_007, stream.length - pos);
    stream.copy(target, 0, pos, pos + n);
    pos += n;
    reader.read(n, target);
  }
  assert.ok(direct > 0, 'some reads went straight into a frame');
  assert.deepEqual(sink.frames, expected);
});

for (const [name, size] of [
  ['above the limit', 1001],
  ['negative', -1],
  ['2^31-1', 0x7fffffff],
] as const) {
  test(`size prefix ${name} is refused before anything is admitted, whatever follows`, () => {
    const sink = recorder(1000);
    const reader = new FrameReader(sink);
    const prefix = Buffer.alloc(4);
    prefix.writeInt32BE(size, 0);
    const stream = Buffer.concat([
      sized(Buffer.from('ok')),
      prefix,
      Buffer.alloc(5000, 1),
      sized(Buffer.from('x')),
    ]);
    readAll(reader, stream, () => 3);
    assert.deepEqual(sink.frames, [Buffer.from('ok')]);
    assert.equal(sink.rejected.length, 1);
    assert.match(sink.rejected[0]!, new RegExp(`invalid request size ${size}`));
    assert.equal(sink.admitted, 2, 'nothing admitted for the refused frame');
  });
}

test('a truncated frame is never delivered, and stop() gives its admitted size back', () => {
  const sink = recorder();
  const reader = new FrameReader(sink);
  const whole = sized(Buffer.alloc(500, 4));
  reader.push(whole, 0, 300);
  assert.equal(sink.frames.length, 0);
  assert.equal(reader.idle, false);
  const partial = reader.stop();
  assert.equal(partial?.admitted, 500);
  assert.ok(partial?.buffer, 'the buffer may be reused: no read was pointed into it');
  reader.push(whole, 300, whole.length);
  assert.equal(sink.frames.length, 0, 'nothing after stop');
});

test('a frame the socket was told to read into is not handed back for reuse after stop()', () => {
  const sink = recorder();
  const reader = new FrameReader(sink);
  const whole = sized(Buffer.alloc(4 * DIRECT_READ_MIN, 4));
  reader.push(whole, 0, 100);
  const target = reader.readTarget();
  assert.notEqual(target.length, STAGING_BYTES, 'a direct read is pending');
  const partial = reader.stop();
  assert.equal(partial?.admitted, 4 * DIRECT_READ_MIN);
  assert.equal(partial?.buffer, null);
  // A read that lands after the connection closed is dropped.
  reader.read(50, target);
  assert.equal(sink.frames.length, 0);
  assert.equal(reader.readTarget().length, STAGING_BYTES);
});

test('a spent budget holds the input; resume() delivers it in order, whatever the split', () => {
  const expected = bodies([5, 0, 40, 3, 70_000, 2]);
  const stream = Buffer.concat(expected.map(sized));
  for (const step of [1, 7, 4096, stream.length]) {
    const sink = recorder();
    sink.allowance = 2;
    const reader = new FrameReader(sink);
    let pos = 0;
    while (pos < stream.length) {
      const target = reader.readTarget();
      const n = Math.min(target.length, step, stream.length - pos);
      stream.copy(target, 0, pos, pos + n);
      pos += n;
      reader.read(n, target);
      if (reader.blocked) {
        // The connection pauses the socket here; memory comes back one frame at a time.
        sink.allowance = 1;
        reader.resume();
      }
    }
    while (reader.blocked) {
      sink.allowance = 1;
      reader.resume();
    }
    assert.deepEqual(sink.frames, expected, `reads of ${step} bytes`);
    assert.ok(reader.idle);
  }
});

test('resume() without memory keeps holding, and pushes meanwhile are kept too', () => {
  const sink = recorder();
  sink.allowance = 0;
  const reader = new FrameReader(sink);
  const a = sized(Buffer.from('first'));
  const b = sized(Buffer.from('second'));
  reader.push(a, 0, a.length);
  assert.ok(reader.blocked);
  reader.resume();
  assert.ok(reader.blocked);
  reader.push(b, 0, b.length);
  sink.allowance = null;
  reader.resume();
  assert.deepEqual(sink.frames, [Buffer.from('first'), Buffer.from('second')]);
});

test('a size prefix ending a read and a zero-size frame after it', () => {
  const sink = recorder();
  sink.allowance = 0;
  const reader = new FrameReader(sink);
  reader.push(Buffer.from([0, 0, 0, 0]), 0, 4);
  assert.ok(reader.blocked, 'waiting to admit the empty frame');
  sink.allowance = null;
  reader.resume();
  assert.deepEqual(sink.frames, [Buffer.alloc(0)]);
  assert.ok(reader.idle);
});
