// The write worker (src/storage/write-worker.ts): small segment writes of many logs reach the
// disk through one worker thread. What is acknowledged must be on disk exactly as with
// `fs.write`, failures must carry the errno code (a storage failure takes the log offline), a
// worker that dies must not lose or hang the writes it had taken, and an idle worker must not
// keep the process alive.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { closeSync, openSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { restartWriteWorker, STAGED_WRITE_MAX_BYTES, writeWorker } from '../../src/storage/write-worker.js';
import { nodeArgs } from '../support/repo.js';
import { scaled } from '../support/timeouts.js';
import { batch, openManager, records, TOPIC_ID, tempDir } from './helpers.js';

/** The started write worker and a fresh empty file: its path and a read-write descriptor. */
async function workerAndFile(): Promise<{
  worker: ReturnType<typeof writeWorker>;
  path: string;
  fd: number;
  close: () => void;
}> {
  const worker = writeWorker();
  assert.equal(await worker.ready(), true, 'the worker starts');
  const { dir, cleanup } = tempDir();
  const path = join(dir, 'f');
  const fd = openSync(path, 'w+');
  return {
    worker,
    path,
    fd,
    close: () => {
      closeSync(fd);
      cleanup();
    },
  };
}

test('appends of many partitions through the write worker are on disk, in order, after a restart', async () => {
  assert.equal(await writeWorker().ready(), true, 'the worker starts');
  const stagedBefore = writeWorker().staged;
  const { dir, cleanup } = tempDir();
  try {
    const partitions = 40;
    const perPartition = 60;
    let mgr = await openManager(dir, { defaults: { segmentBytes: 64 * 1024 } });
    const logs = await Promise.all(
      Array.from({ length: partitions }, (_, p) => mgr.createLog('w', p, { topicId: TOPIC_ID })),
    );
    // Each partition awaits its appends one by one (lockstep, as a producer per partition
    // does), every 7th batch larger than a staged write may be, so both paths interleave.
    await Promise.all(
      logs.map(async (log, p) => {
        for (let i = 0; i < perPartition; i++) {
          const values = [
            `${p}:${i}:${'x'.repeat(i % 7 === 6 ? STAGED_WRITE_MAX_BYTES : 20 + ((p * i) % 300))}`,
          ];
          const r = await log.appendAsLeader(batch(1, 'v', { values }), 0);
          assert.equal(r.baseOffset, BigInt(i));
        }
      }),
    );
    assert.ok(
      // At least the first round, which all partitions start in the same turn.
      writeWorker().staged - stagedBefore >= partitions,
      'the worker wrote',
    );
    const expected = (p: number, i: number): string =>
      `${p}:${i}:${'x'.repeat(i % 7 === 6 ? STAGED_WRITE_MAX_BYTES : 20 + ((p * i) % 300))}`;
    const readAll = async (m: typeof mgr): Promise<void> => {
      for (let p = 0; p < partitions; p++) {
        const log = m.getLog('w', p)!;
        assert.equal(log.logEndOffset, BigInt(perPartition));
        let offset = 0n;
        while (offset < log.logEndOffset) {
          const got = records(
            (await log.read(offset, { maxBytes: 256 * 1024, upperBound: 'leo', minOneBatch: true })).records,
          );
          for (const r of got) {
            assert.equal(r.offset, offset);
            assert.equal(r.value, expected(p, Number(offset)));
            offset++;
          }
        }
      }
    };
    await readAll(mgr);
    await mgr.close();
    // Unclean reopen would also do; a clean one checks the files the indexes point into.
    mgr = await openManager(dir, { defaults: { segmentBytes: 64 * 1024 } });
    await readAll(mgr);
    await mgr.close();
  } finally {
    cleanup();
  }
});

test('a staged write that fails reports the errno code; later writes still work', async () => {
  const { worker, path, fd: rw, close } = await workerAndFile();
  const ro = openSync(path, 'r');
  try {
    const write = (fd: number, bytes: Buffer, position: number): Promise<Error | null> =>
      new Promise((resolve) => {
        assert.equal(worker.tryWrite(fd, [bytes], bytes.length, position, resolve), true);
      });
    const [bad, good] = await Promise.all([
      write(ro, Buffer.from('nope'), 0),
      write(rw, Buffer.from('hello'), 0),
    ]);
    assert.equal((bad as NodeJS.ErrnoException | null)?.code, 'EBADF');
    assert.equal(good, null);
    assert.equal(await write(rw, Buffer.from(' world'), 5), null);
    assert.equal(readFileSync(path, 'utf8'), 'hello world');
    assert.equal(
      worker.tryWrite(
        rw,
        [Buffer.alloc(STAGED_WRITE_MAX_BYTES + 1)],
        STAGED_WRITE_MAX_BYTES + 1,
        0,
        () => undefined,
      ),
      false,
      'too large to stage',
    );
  } finally {
    closeSync(ro);
    close();
  }
});

test('staged writes from buffers at any alignment, and several buffers per write, arrive intact, across ring laps', async () => {
  // The ring places each write at the source's alignment to 8 (a fast copy into shared memory);
  // whatever the offsets and lengths, what reaches the file must be the bytes given.
  const { worker, path, fd, close } = await workerAndFile();
  try {
    const backing = Buffer.alloc(64 * 1024);
    for (let i = 0; i < backing.length; i++) backing[i] = (i * 131 + 7) & 0xff;
    const expected: Buffer[] = [];
    let position = 0;
    // ~12 MiB in all: the 4 MiB ring wraps several times.
    for (let round = 0; round < 6; round++) {
      const pending: Promise<Error | null>[] = [];
      for (let i = 0; i < 100; i++) {
        const parts = 1 + (i % 3);
        const bufs = Array.from({ length: parts }, (_, k) => {
          const from = (i * 37 + k * 11) % 4096; // every alignment
          return backing.subarray(from, from + 1 + ((i * 7919 + k * 104729) % 9000));
        });
        const bytes = bufs.reduce((n, b) => n + b.length, 0);
        const at = position;
        pending.push(
          new Promise((resolve) => {
            if (!worker.tryWrite(fd, bufs, bytes, at, resolve)) throw new Error('the worker refused a write');
          }),
        );
        expected.push(...bufs.map((b) => Buffer.from(b)));
        position += bytes;
      }
      assert.deepEqual(new Set(await Promise.all(pending)), new Set([null]));
    }
    assert.ok(readFileSync(path).equals(Buffer.concat(expected)), 'the file holds exactly the bytes written');
  } finally {
    close();
  }
});

test('writes the worker took but did not confirm are written through the thread pool when it dies', async () => {
  await restartWriteWorker();
  const { worker, path, fd, close } = await workerAndFile();
  try {
    const pending: Promise<Error | null>[] = [];
    for (let i = 0; i < 500; i++) {
      const bytes = Buffer.from(`${String(i).padStart(4, '0')}|`);
      pending.push(
        new Promise((resolve) => assert.equal(worker.tryWrite(fd, [bytes], 5, i * 5, resolve), true)),
      );
    }
    // Dies before (or while) it is told about them.
    await restartWriteWorker();
    assert.deepEqual(new Set(await Promise.all(pending)), new Set([null]));
    const text = readFileSync(path, 'utf8');
    assert.equal(text, Array.from({ length: 500 }, (_, i) => `${String(i).padStart(4, '0')}|`).join(''));
    // The dead worker takes nothing more; a new one is started on the next use.
    assert.equal(
      worker.tryWrite(fd, [Buffer.from('x')], 1, 0, () => undefined),
      false,
    );
    assert.equal(await writeWorker().ready(), true);
  } finally {
    close();
  }
});

test('an idle write worker does not keep the process alive', async () => {
  const { dir, cleanup } = tempDir();
  try {
    const child = spawn(process.execPath, nodeArgs('test/storage/fixtures/append-and-return.ts', dir), {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    child.stdout.on('data', (d: Buffer) => (out += d.toString()));
    child.stderr.on('data', (d: Buffer) => (out += d.toString()));
    const limit = scaled(60_000);
    const code = await new Promise<number | null>((resolve, reject) => {
      const timer = setTimeout(() => {
        child.kill('SIGKILL');
        reject(new Error(`timed out after ${limit} ms waiting for the child to exit on its own: ${out}`));
      }, limit);
      child.on('exit', (c) => {
        clearTimeout(timer);
        resolve(c);
      });
    });
    assert.equal(code, 0, out);
    assert.match(out, /staged [1-9]/, 'the child wrote through its worker');
  } finally {
    cleanup();
  }
});
