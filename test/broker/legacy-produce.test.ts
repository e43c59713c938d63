// Produce v0-2 (legacy message sets, magic 0 and 1) against a real broker, as Kafka 3.9 takes
// them: up-converted to one RecordBatch v2 (offsets assigned, magic-0 timestamps -1, magic-1
// timestamps kept, compression per the topic's compression.type), read back by Fetch v11; the
// old response layouts; LogValidator's checks; hostile message sets.

import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { after, before, describe, test } from 'node:test';
import { decodeResponse, encodeRequest } from '../../src/protocol/messages/frame.js';
import { produceApi } from '../../src/protocol/messages/generated/produce.js';
import { decodeLegacyMessageSet, encodeRecordBatchSync } from '../../src/protocol/record-batch/index.js';
import { startTestBroker, type TestBroker } from '../../src/testkit/index.js';
import { repoFile } from '../support/repo.js';
import { entry, k, produceLegacy, storedHeaders, wrapper } from './support/legacy.js';
import { RawClient } from './support/raw-client.js';
import { createTopic, fetchAll } from './support/wire.js';

let broker: TestBroker;
let c: RawClient;
let topicNo = 0;

before(async () => {
  broker = await startTestBroker({ overrides: { 'message.max.bytes': 20_000 } });
  c = await RawClient.connect(broker.port);
});
after(async () => {
  c.close();
  await broker.close();
});

async function topic(configs: Record<string, string> = {}): Promise<string> {
  const name = `legacy-${topicNo++}`;
  assert.equal(await createTopic(c, name, 1, configs), 0);
  return name;
}

const fixture = (name: string) => readFileSync(repoFile(`test/fixtures/record-batch/${name}`));
const LINES: string[] = JSON.parse(
  readFileSync(repoFile('test/fixtures/record-batch/kcat-legacy-lines.json'), 'utf8'),
);
const CODECS = ['none', 'gzip', 'snappy', 'lz4'] as const;
const now = () => BigInt(Date.now());

describe("kcat's legacy message sets through Produce v0-2", () => {
  for (const [version, magic] of [
    [0, 0],
    [1, 0],
    [2, 1],
  ] as const) {
    for (const codec of CODECS) {
      test(`Produce v${version}, magic ${magic}, ${codec} → one v2 batch, offsets assigned`, async () => {
        const t = await topic();
        const set = fixture(`kcat-magic${magic}-${codec}.bin`);
        const sent = await decodeLegacyMessageSet(set);
        const first = await produceLegacy(c, version, t, set);
        assert.equal(first.errorCode, 0);
        assert.equal(first.baseOffset, 0n);
        const second = await produceLegacy(c, version, t, set);
        assert.equal(second.baseOffset, 5n, 'offsets continue');
        if (version === 2) assert.equal(second.logAppendTimeMs, -1n, 'CreateTime topic');
        const headers = await storedHeaders(c, t);
        assert.deepEqual(
          headers.map((h) => [
            h.magic,
            Number(h.baseOffset),
            h.lastOffsetDelta,
            h.attributes & 7,
            h.producerId,
          ]),
          [
            [2, 0, 4, CODECS.indexOf(codec), -1n],
            [2, 5, 4, CODECS.indexOf(codec), -1n],
          ],
          'stored as v2 batches with the producer codec (compression.type=producer)',
        );
        const records = await fetchAll(c, t, 0);
        assert.deepEqual(
          records.map((r) => `${r.key}:${r.value}`),
          [...LINES, ...LINES],
        );
        assert.deepEqual(
          records.map((r) => r.offset),
          [...Array(10).keys()].map(BigInt),
        );
        // Magic 0 has no timestamps (-1 in the v2 batch), magic 1 keeps the producer's.
        assert.deepEqual(
          records.map((r) => r.timestamp),
          [...sent, ...sent].map((r) => (magic === 0 ? -1n : r.timestamp)),
        );
        for (const r of records) assert.deepEqual(r.headers, []);
      });
    }
  }

  test('the answers keep the old layouts: v0 no throttle, v1 throttle, v2 log append time', async () => {
    const t = await topic();
    const set = fixture('kcat-magic0-none.bin');
    const sizes: number[] = [];
    for (const version of [0, 1, 2]) {
      c.sendRequest(produceApi, version, {
        transactionalId: null,
        acks: 1,
        timeoutMs: 5000,
        topicData: [{ name: t, partitionData: [{ index: 0, records: set }] }],
      });
      sizes.push((await c.nextFrame())!.length);
    }
    // correlation 4 + topics 4 + name 2+n + partitions 4 + index 4 + error 2 + offset 8
    const v0 = 4 + 4 + 2 + t.length + 4 + 4 + 2 + 8;
    assert.deepEqual(sizes, [v0, v0 + 4, v0 + 4 + 8]);
  });
});

describe('timestamps and compression.type', () => {
  test('LogAppendTime topic: v2 answers the append time and the records carry it', async () => {
    const t = await topic({ 'message.timestamp.type': 'LogAppendTime' });
    const before = now();
    const r = await produceLegacy(c, 2, t, fixture('kcat-magic1-gzip.bin'));
    assert.equal(r.errorCode, 0);
    assert.ok(r.logAppendTimeMs >= before && r.logAppendTimeMs <= now());
    const records = await fetchAll(c, t, 0);
    assert.deepEqual(
      records.map((x) => x.timestamp),
      Array(5).fill(r.logAppendTimeMs),
    );
    const v0 = await produceLegacy(c, 0, t, fixture('kcat-magic0-none.bin'));
    assert.equal(v0.errorCode, 0, 'magic 0 into a LogAppendTime topic');
    const h = await storedHeaders(c, t);
    for (const b of h) assert.equal(b.attributes & 0x08, 0x08, 'LogAppendTime batches');
  });

  for (const [compressionType, set, expected] of [
    ['lz4', 'kcat-magic0-none.bin', 3],
    ['uncompressed', 'kcat-magic1-gzip.bin', 0],
    ['zstd', 'kcat-magic1-snappy.bin', 4],
    ['gzip', 'kcat-magic1-lz4.bin', 1],
  ] as const) {
    test(`compression.type=${compressionType}: ${set} is stored with codec ${expected}`, async () => {
      const t = await topic({ 'compression.type': compressionType });
      assert.equal((await produceLegacy(c, 2, t, fixture(set))).errorCode, 0);
      const h = await storedHeaders(c, t);
      assert.deepEqual(
        h.map((b) => b.attributes & 7),
        [expected],
      );
      assert.deepEqual(
        (await fetchAll(c, t, 0)).map((r) => `${r.key}:${r.value}`),
        LINES,
      );
    });
  }

  test('null keys and values survive; a magic-1 v1 set without timestamps keeps -1', async () => {
    const t = await topic();
    const set = Buffer.concat([
      entry(0n, 1, 0, null, k('no key'), -1n),
      entry(1n, 1, 0, k('tombstone'), null, 1234n),
    ]);
    assert.equal((await produceLegacy(c, 2, t, set)).errorCode, 0);
    const r = await fetchAll(c, t, 0);
    assert.deepEqual(
      r.map((x) => [x.key?.toString() ?? null, x.value?.toString() ?? null, x.timestamp]),
      [
        [null, 'no key', -1n],
        ['tombstone', null, 1234n],
      ],
    );
  });
});

describe("LogValidator's rules", () => {
  test('magic-1 compressed sets: any inner offsets are rewritten; a zero wrapper offset is librdkafka’s', async () => {
    const t = await topic();
    const ts = now();
    const inner = Buffer.concat([
      entry(0n, 1, 0, k('a'), k('1'), ts),
      entry(5n, 1, 0, k('b'), k('2'), ts),
      entry(9n, 1, 0, k('c'), k('3'), ts),
    ]);
    assert.equal((await produceLegacy(c, 2, t, wrapper(9n, 1, 1, inner, ts))).errorCode, 0, 'gaps');
    assert.equal((await produceLegacy(c, 2, t, wrapper(0n, 1, 1, inner, ts))).errorCode, 0, 'wrapper 0');
    assert.equal(
      (await produceLegacy(c, 2, t, wrapper(3n, 1, 1, inner, ts))).errorCode,
      87,
      'wrapper offset below the last inner one → INVALID_RECORD',
    );
    const r = await fetchAll(c, t, 0);
    assert.deepEqual(
      r.map((x) => [Number(x.offset), x.key!.toString()]),
      [
        [0, 'a'],
        [1, 'b'],
        [2, 'c'],
        [3, 'a'],
        [4, 'b'],
        [5, 'c'],
      ],
    );
  });

  test('record rules: keys on compacted topics, timestamp bounds, producer LogAppendTime', async () => {
    const compacted = await topic({ 'cleanup.policy': 'compact' });
    assert.equal(
      (await produceLegacy(c, 1, compacted, entry(0n, 0, 0, null, k('v')))).errorCode,
      87,
      'no key on a compacted topic → INVALID_RECORD',
    );
    assert.equal((await produceLegacy(c, 1, compacted, entry(0n, 0, 0, k('k'), k('v')))).errorCode, 0);
    const strict = await topic({ 'message.timestamp.before.max.ms': '60000' });
    const old = now() - 3_600_000n;
    assert.equal(
      (await produceLegacy(c, 2, strict, entry(0n, 1, 0, k('k'), k('v'), old))).errorCode,
      32,
      'too old → INVALID_TIMESTAMP',
    );
    assert.equal(
      (await produceLegacy(c, 2, strict, wrapper(0n, 1, 1, entry(0n, 1, 0, k('k'), k('v'), old), old)))
        .errorCode,
      32,
      'too old inside a wrapper → INVALID_TIMESTAMP',
    );
    assert.equal(
      (await produceLegacy(c, 0, strict, entry(0n, 0, 0, k('k'), k('v')))).errorCode,
      0,
      'magic 0 has no timestamp to check',
    );
    assert.equal(
      (await produceLegacy(c, 2, strict, entry(0n, 1, 0, k('k'), k('v'), -1n))).errorCode,
      0,
      'nor has -1',
    );
    const lat = await topic({ 'message.timestamp.type': 'LogAppendTime' });
    assert.equal(
      (await produceLegacy(c, 2, lat, entry(0n, 1, 0x08, k('k'), k('v'), now()))).errorCode,
      32,
      'a producer claiming LogAppendTime → INVALID_TIMESTAMP',
    );
    assert.deepEqual((await fetchAll(c, strict, 0)).length, 2, 'only the accepted sets were appended');
  });

  test('structure: one compressed set only, one magic, no nesting, no zstd, size limits', async () => {
    const t = await topic();
    const ts = now();
    const m1 = entry(0n, 1, 0, k('k'), k('v'), ts);
    const w = wrapper(0n, 1, 1, m1, ts);
    const cases: [string, Buffer, number][] = [
      ['two wrappers', Buffer.concat([w, w]), 87],
      ['a wrapper after a plain message', Buffer.concat([m1, w]), 87],
      ['magic 0 then magic 1', Buffer.concat([entry(0n, 0, 0, k('k'), k('v')), m1]), 87],
      ['nested compression', wrapper(0n, 1, 1, w, ts), 87],
      ['magic-0 message in a magic-1 wrapper', wrapper(0n, 1, 1, entry(0n, 0, 0, k('k'), k('v')), ts), 87],
      ['zstd codec in a legacy message', entry(0n, 1, 4, null, k('not zstd'), ts), 87],
      ['wrapper with a null value', entry(0n, 1, 1, null, null, ts), 87],
      ['wrapper with an empty inner set', wrapper(0n, 1, 2, Buffer.alloc(0), ts), 87],
      ['a message above max.message.bytes', entry(0n, 1, 0, null, Buffer.alloc(25_000), ts), 10],
    ];
    for (const [what, set, code] of cases) {
      assert.equal((await produceLegacy(c, 2, t, set)).errorCode, code, what);
    }
    assert.equal((await fetchAll(c, t, 0)).length, 0, 'nothing reached the log');
    // Re-checked after the conversion: 30 KB of zeros gzip to little, but not on this topic.
    const plain = await topic({ 'compression.type': 'uncompressed' });
    const zeros = Buffer.concat(
      Array.from({ length: 30 }, () => entry(0n, 1, 0, null, Buffer.alloc(1000), ts)),
    );
    assert.equal((await produceLegacy(c, 2, plain, wrapper(0n, 1, 1, zeros, ts))).errorCode, 10);
    assert.equal((await produceLegacy(c, 2, t, wrapper(0n, 1, 1, zeros, ts))).errorCode, 0, 'kept gzip');
  });

  test('an empty message set appends nothing and answers offset -1 (Kafka); a v2 batch is taken as is', async () => {
    const t = await topic();
    for (const version of [0, 1, 2] as const) {
      const r = await produceLegacy(c, version, t, Buffer.alloc(0));
      assert.deepEqual([r.errorCode, r.baseOffset], [0, -1n]);
    }
    const v2 = encodeRecordBatchSync([{ key: k('modern'), value: k('batch') }]);
    const r = await produceLegacy(c, 2, t, v2);
    assert.deepEqual([r.errorCode, r.baseOffset], [0, 0n]);
    assert.deepEqual(
      (await fetchAll(c, t, 0)).map((x) => x.value!.toString()),
      ['batch'],
    );
  });

  test('unknown partition and acks are checked before the records', async () => {
    const r = await c.request(produceApi, 1, {
      transactionalId: null,
      acks: 1,
      timeoutMs: 1000,
      topicData: [{ name: 'no-such-topic', partitionData: [{ index: 0, records: Buffer.from('garbage') }] }],
    });
    assert.equal(r.responses[0]!.partitionResponses[0]!.errorCode, 3);
    const t = await topic();
    assert.equal((await produceLegacy(c, 0, t, Buffer.from('garbage'), 7)).errorCode, 21);
  });
});

describe('hostile legacy message sets', () => {
  test('bad CRCs, truncation, absurd sizes, garbage payloads → CORRUPT_MESSAGE, nothing appended', async () => {
    const t = await topic();
    const ts = now();
    const good = entry(0n, 1, 0, k('k'), k('v'), ts);
    const badCrc = Buffer.from(good);
    badCrc[badCrc.length - 1]! ^= 1;
    const innerBad = Buffer.from(good);
    innerBad[innerBad.length - 1]! ^= 1;
    const absurd = Buffer.from(good);
    absurd.writeInt32BE(0x7fffffff, 8);
    const tiny = Buffer.from(good);
    tiny.writeInt32BE(3, 8);
    const negativeKey = entry(0n, 1, 0, null, k('v'), ts);
    negativeKey.writeInt32BE(-7, 12 + 4 + 10); // key length −7 (the CRC is then wrong too)
    const badMagic = Buffer.from(good);
    badMagic[16] = 5;
    const cases: [string, Buffer][] = [
      ['outer CRC', badCrc],
      ['inner CRC', wrapper(0n, 1, 1, innerBad, ts)],
      ['truncated trailing entry', Buffer.concat([good, good.subarray(0, good.length - 3)])],
      ['size 2^31-1', absurd],
      ['size below a message', tiny],
      ['negative key length', negativeKey],
      ['magic 5', badMagic],
      ['gzip payload that is not gzip', entry(0n, 1, 1, null, Buffer.from('not gzip at all'), ts)],
      ['truncated inner set', wrapper(0n, 1, 1, good.subarray(0, good.length - 2), ts)],
      ['a few random bytes', Buffer.from([1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18])],
    ];
    for (const [what, set] of cases) {
      const r = await produceLegacy(c, 2, t, set);
      assert.equal(r.errorCode, 2, `${what} → CORRUPT_MESSAGE`);
    }
    // 20 MiB of zeros gzip to ~20 KB: above the 16 MiB inflation bound → MESSAGE_TOO_LARGE.
    const bomb = wrapper(0n, 1, 1, entry(0n, 1, 0, null, Buffer.alloc(20 << 20), ts), ts);
    const roomy = await topic({ 'max.message.bytes': '1000000' });
    assert.ok(bomb.length < 100_000);
    assert.equal((await produceLegacy(c, 2, roomy, bomb)).errorCode, 10, 'decompression bomb');
    assert.equal((await fetchAll(c, roomy, 0)).length, 0);
    assert.equal((await fetchAll(c, t, 0)).length, 0, 'nothing reached the log');
    assert.equal((await produceLegacy(c, 2, t, good)).baseOffset, 0n, 'the partition still takes good data');
  });

  test('a records field longer than the request closes that connection only', async () => {
    const t = await topic();
    const other = await RawClient.connect(broker.port);
    const bad = await RawClient.connect(broker.port);
    const frame = Buffer.concat(
      encodeRequest(produceApi, 1, 1, 'x', {
        transactionalId: null,
        acks: 1,
        timeoutMs: 1000,
        topicData: [{ name: t, partitionData: [{ index: 0, records: entry(0n, 0, 0, k('k'), k('v')) }] }],
      }),
    );
    // Claim 1000 more record bytes than the frame holds.
    const at = frame.length - 4 - entry(0n, 0, 0, k('k'), k('v')).length;
    frame.writeInt32BE(frame.readInt32BE(at) + 1000, at);
    bad.send(frame);
    assert.equal(await bad.waitClosed(5000), true);
    assert.equal((await produceLegacy(other, 0, t, entry(0n, 0, 0, k('k'), k('v')))).errorCode, 0);
    other.close();
  });

  test('acks=0: no answer on success; a corrupt set closes the connection', async () => {
    const t = await topic();
    const c0 = await RawClient.connect(broker.port);
    c0.sendRequest(produceApi, 2, {
      transactionalId: null,
      acks: 0,
      timeoutMs: 1000,
      topicData: [
        { name: t, partitionData: [{ index: 0, records: entry(0n, 1, 0, k('k'), k('v'), now()) }] },
      ],
    });
    const bad = entry(0n, 1, 0, k('k'), k('v'), now());
    bad[bad.length - 1]! ^= 1;
    c0.sendRequest(produceApi, 2, {
      transactionalId: null,
      acks: 0,
      timeoutMs: 1000,
      topicData: [{ name: t, partitionData: [{ index: 0, records: bad }] }],
    });
    assert.equal(await c0.waitClosed(5000), true);
    assert.equal(await c0.nextFrame(100), null);
    assert.equal((await fetchAll(c, t, 0)).length, 1);
  });
});

test('legacy produce requests pipelined on one connection are appended in request order', async () => {
  const t = await topic();
  const ts = now();
  const big = Buffer.concat(
    Array.from({ length: 200 }, (_, i) => entry(BigInt(i), 1, 0, k(`big-${i}`), Buffer.alloc(50, i), ts)),
  );
  const ids: number[] = [];
  for (let i = 0; i < 6; i++) {
    const set =
      i % 2 === 0 ? wrapper(0n, 1, 1, big, ts) : entry(0n, 1, 0, k(`small-${i}`), k(`small-${i}`), ts);
    ids.push(
      c.sendRequest(produceApi, 2, {
        transactionalId: null,
        acks: 1,
        timeoutMs: 5000,
        topicData: [{ name: t, partitionData: [{ index: 0, records: set }] }],
      }),
    );
  }
  const offsets: bigint[] = [];
  for (const id of ids) {
    const f = (await c.nextFrame())!;
    assert.equal(f.readInt32BE(0), id);
    offsets.push(decodeResponse(produceApi, 2, f).body.responses[0]!.partitionResponses[0]!.baseOffset);
  }
  assert.deepEqual(offsets, [0n, 200n, 201n, 401n, 402n, 602n]);
  const keys = (await fetchAll(c, t, 0)).map((r) => r.key!.toString());
  assert.deepEqual(
    keys.filter((x) => x.startsWith('small')),
    ['small-1', 'small-3', 'small-5'],
  );
  assert.equal(keys[200], 'small-1');
});
