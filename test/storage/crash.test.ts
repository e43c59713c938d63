// Crash safety: a child process appends with a known pattern and reports every acknowledged
// batch; it is killed with SIGKILL at random moments (sometimes during its recovery). After
// each restart the log must hold every acknowledged record; at the end the whole log must be
// a contiguous, CRC-valid prefix of the pattern, and appends must continue.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { test } from 'node:test';
import { repoFile } from '../support/repo.js';
import { batch, openManager, records, tempDir } from './helpers.js';

const HERE = repoFile('test/storage');
const CHILD = join(HERE, 'fixtures', 'crash-writer.ts');

/**
 * The child runs 50+ times: bundle it once with esbuild (tsx's own compiler) so each start is
 * a plain `node` start rather than a TypeScript load. Packages stay external and resolve from
 * the project's node_modules (the bundle lives in node_modules/.cache).
 */
async function childCommand(): Promise<string[]> {
  try {
    const esbuild = await import('esbuild');
    const outfile = join(HERE, '..', '..', 'node_modules', '.cache', 'samsa-tests', 'crash-writer.mjs');
    await esbuild.build({
      entryPoints: [CHILD],
      bundle: true,
      platform: 'node',
      format: 'esm',
      target: 'node20',
      packages: 'external',
      outfile,
      logLevel: 'silent',
    });
    return [outfile];
  } catch {
    return ['--import', 'tsx', CHILD];
  }
}
let command: string[] = [];
const KILLS = Number(process.env.CRASH_KILLS ?? 50);

interface RunResult {
  opened: { start: bigint; end: bigint } | null;
  maxAck: bigint;
  errors: string[];
}

function runOnce(
  dir: string,
  mode: string,
  seed: number,
  killAfterMs: number,
  killEarly: boolean,
): Promise<RunResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [...command, dir, mode, String(seed)], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const result: RunResult = { opened: null, maxAck: -1n, errors: [] };
    let buffered = '';
    let stderr = '';
    let timer: NodeJS.Timeout | null = null;
    const kill = (): void => {
      child.kill('SIGKILL');
    };
    if (killEarly) timer = setTimeout(kill, killAfterMs);
    child.stdout.on('data', (chunk: Buffer) => {
      buffered += chunk.toString();
      for (let nl = buffered.indexOf('\n'); nl >= 0; nl = buffered.indexOf('\n')) {
        const line = buffered.slice(0, nl);
        buffered = buffered.slice(nl + 1);
        const [kind, a, b] = line.split(' ');
        if (kind === 'open') {
          result.opened = { start: BigInt(a!), end: BigInt(b!) };
          if (!killEarly) timer = setTimeout(kill, killAfterMs);
        } else if (kind === 'ack') {
          const v = BigInt(a!);
          if (v > result.maxAck) result.maxAck = v;
        } else result.errors.push(line);
      }
    });
    child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
    const watchdog = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`child did not start in time: ${stderr}`));
    }, 30_000);
    child.on('exit', (code, signal) => {
      if (timer !== null) clearTimeout(timer);
      clearTimeout(watchdog);
      if (signal !== 'SIGKILL') result.errors.push(`exit ${code} ${signal}: ${stderr.slice(-2000)}`);
      resolve(result);
    });
  });
}

test(`SIGKILL at random moments (${KILLS} times) never loses an acknowledged record`, {
  timeout: 600_000,
}, async () => {
  const { dir, cleanup } = tempDir('samsa-crash-');
  command = await childCommand();
  try {
    let seed = 12345;
    const random = (): number => {
      seed = (seed * 1103515245 + 12345) % 2 ** 31;
      return seed / 2 ** 31;
    };
    let acked = -1n;
    let opened = 0;
    for (let i = 0; i < KILLS; i++) {
      const mode = i % 2 === 0 ? 'flush' : 'ack';
      const early = i % 10 === 9; // now and then, die during startup/recovery
      const r = await runOnce(
        dir,
        mode,
        i + 1,
        early ? Math.floor(random() * 400) : 30 + Math.floor(random() * 250),
        early,
      );
      assert.deepEqual(r.errors, [], `run ${i}`);
      if (r.opened !== null) {
        opened++;
        assert.ok(
          r.opened.end > acked,
          `run ${i}: recovered end ${r.opened.end} lost acknowledged offset ${acked}`,
        );
      }
      if (r.maxAck > acked) acked = r.maxAck;
    }
    assert.ok(opened >= KILLS * 0.8, `most runs got going (${opened})`);
    assert.ok(acked > 100n, `appended something (${acked})`);
    // Final check in-process: a contiguous, valid prefix holding every acknowledged record.
    const mgr = await openManager(dir, { defaults: { segmentBytes: 32 * 1024, indexIntervalBytes: 512 } });
    const log = mgr.getLog('c', 0)!;
    assert.ok(log.logEndOffset > acked);
    let offset = 0n;
    while (offset < log.logEndOffset) {
      const recs = records(
        (await log.read(offset, { maxBytes: 64 * 1024, upperBound: 'leo', minOneBatch: true })).records,
      );
      assert.ok(recs.length > 0);
      for (const r of recs) {
        assert.equal(r.offset, offset, 'no gaps');
        assert.equal(r.value!.split('|')[0], String(r.offset));
        offset++;
      }
    }
    const end = log.logEndOffset;
    assert.equal(
      (
        await log.appendAsLeader(
          batch(1, 'final', { producerId: 1n, producerEpoch: 0, baseSequence: Number(end % 2n ** 31n) }),
          1,
        )
      ).baseOffset,
      end,
    );
    await mgr.close();
  } finally {
    cleanup();
  }
});
