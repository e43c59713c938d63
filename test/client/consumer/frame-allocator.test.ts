// raiseMallocThresholds() (what every consumer's Fetcher calls once): under glibc, 1 MiB frame
// buffers freed a few MiB at a time stay in malloc's heap instead of going back to the kernel,
// so the next frames take no page faults. Each mode runs in a fresh process (the thresholds are
// process-wide), with a full GC between rounds so that V8 frees the dropped frames.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { test } from 'node:test';
import { LOADER_FLAGS, moduleUrl } from '../../support/repo.js';
import { scaled } from '../../support/timeouts.js';

/** Minor page faults per round of six 1 MiB frames written and dropped, after a first round. */
function faultsPerRound(raise: boolean): Promise<number> {
  const script = `
    const { raiseMallocThresholds } = await import(${JSON.stringify(moduleUrl('src/client/consumer/frame-allocator.ts'))});
    const settle = () => new Promise((r) => setTimeout(r, 20)); // V8 frees swept buffers on its own threads
    if (${raise}) { raiseMallocThresholds(); raiseMallocThresholds(); gc(); await settle(); }
    const round = () => { const frames = []; for (let i = 0; i < 6; i++) frames.push(Buffer.allocUnsafe(1 << 20).fill(1)); return frames.length; };
    round(); gc(); await settle();
    const before = process.resourceUsage().minorPageFault;
    for (let i = 0; i < 10; i++) { round(); gc(); await settle(); }
    process.stdout.write(String((process.resourceUsage().minorPageFault - before) / 10));
  `;
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [
      ...LOADER_FLAGS,
      '--expose-gc',
      '--input-type=module',
      '-e',
      script,
    ]);
    let out = '';
    let err = '';
    child.stdout.on('data', (d: Buffer) => (out += d.toString()));
    child.stderr.on('data', (d: Buffer) => (err += d.toString()));
    const timer = setTimeout(() => {
      child.kill();
      reject(new Error('the frame-allocation child timed out'));
    }, scaled(60_000));
    child.on('close', (code) => {
      clearTimeout(timer);
      if (code !== 0) reject(new Error(`child exited with ${code}: ${err}`));
      else resolve(Number(out.trim().split('\n').at(-1)));
    });
  });
}

const glibc = (process.report.getReport() as { header: { glibcVersionRuntime?: string } }).header
  .glibcVersionRuntime;

test('freed frame buffers are reused without page faults once the thresholds are raised', async () => {
  const [plain, raised] = await Promise.all([faultsPerRound(false), faultsPerRound(true)]);
  assert.ok(Number.isFinite(plain) && Number.isFinite(raised), `faults ${plain} / ${raised}`);
  if (glibc === undefined) return; // another allocator: the call only has to be harmless
  // glibc's defaults hand 6 MiB freed at once back to the kernel: each round faults its 1,536
  // pages in again; with the thresholds raised the same pages come back from the heap.
  assert.ok(plain >= 1000, `without the raise, ${plain} faults per round (glibc ${glibc})`);
  assert.ok(raised < plain / 10, `with the raise, ${raised} faults per round against ${plain}`);
});
