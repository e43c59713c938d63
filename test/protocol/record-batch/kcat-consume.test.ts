// Our encoder's batches, every codec (snappy both raw and xerial-framed), consumed by kcat 1.7.1
// (librdkafka 2.0.2) from a minimal fetch-only listener: proves librdkafka reads what we write.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { describe, test } from 'node:test';
import { encodeControlBatch, encodeRecordBatch } from '../../../src/protocol/record-batch/index.js';
import { FetchBroker } from './fetch-broker.js';

async function kcatConsume(port: number, topic: string): Promise<string> {
  const args = ['-C', '-b', `127.0.0.1:${port}`, '-t', topic, '-p', '0', '-o', '0', '-e', '-q'];
  args.push('-f', '%o %k=%s [%h]\\n');
  const child = spawn('kcat', args, { stdio: ['ignore', 'pipe', 'pipe'], timeout: 20_000 });
  let out = '';
  let err = '';
  child.stdout.on('data', (d: Buffer) => {
    out += d.toString();
  });
  child.stderr.on('data', (d: Buffer) => {
    err += d.toString();
  });
  const [code] = await once(child, 'close');
  assert.equal(code, 0, `kcat failed: ${err}`);
  return out;
}

const T = 1_700_000_000_000;
const ABC = 'abc '.repeat(30).trim();
const records = [1, 2, 3].map((i) => ({
  key: Buffer.from(`key-${i}`),
  value: Buffer.from(`value-${i} ${ABC}`),
  headers: [{ key: 'h', value: Buffer.from(`${i}`) }],
  timestamp: T + i,
}));
const expected = [1, 2, 3].map((i) => `${i - 1} key-${i}=value-${i} ${ABC} [h=${i}]`).join('\n');

describe('kcat (librdkafka 2.0.2) consumes our batches', { concurrency: 1 }, () => {
  const variants = [
    ['none', {}],
    ['gzip', {}],
    ['snappy', {}],
    ['snappy', { xerial: true }],
    ['lz4', {}],
    ['zstd', {}],
  ] as const;
  for (const [codec, compressionOptions] of variants) {
    test(`${codec}${'xerial' in compressionOptions ? ' (xerial)' : ''}`, async () => {
      const batch = await encodeRecordBatch(records, {
        compression: codec,
        compressionOptions,
        partitionLeaderEpoch: 0,
      });
      const broker = new FetchBroker('ours', batch, 3n);
      await broker.start();
      try {
        assert.equal((await kcatConsume(broker.port, 'ours')).trim(), expected);
      } finally {
        await broker.stop();
      }
    });
  }
  test('a committed transaction: data batch + our COMMIT marker; the marker is not delivered', async () => {
    const data = await encodeRecordBatch(records, {
      producerId: 7n,
      producerEpoch: 0,
      baseSequence: 0,
      transactional: true,
    });
    const marker = encodeControlBatch({
      producerId: 7n,
      producerEpoch: 0,
      type: 'COMMIT',
      coordinatorEpoch: 0,
      baseOffset: 3n,
      timestamp: T,
    });
    const broker = new FetchBroker('txn', Buffer.concat([data, marker]), 4n);
    await broker.start();
    try {
      assert.equal((await kcatConsume(broker.port, 'txn')).trim(), expected);
    } finally {
      await broker.stop();
    }
  });
});
