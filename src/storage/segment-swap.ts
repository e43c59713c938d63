// Replacing segments with the log cleaner's output, crash-safely. The cleaner writes
// `<base>.log.cleaned` (and `.txnindex.cleaned`), fsyncs them, then renames them to `.swap`:
// that rename is the commit point. Afterwards the replaced segments are renamed `.deleted` and
// the swap files take their final names. If the process dies in between, `completeSwaps` (run
// by recovery) finishes the job: every `.log` whose base offset lies within the swap file's
// offsets is replaced by it.
import { promises as fsp } from 'node:fs';
import { join } from 'node:path';
import { lastOffsetOf } from './batch-info.js';
import { LOG_SUFFIX, parseOffsetFileName, SWAP_SUFFIX } from './file-names.js';
import { closeFd, fsyncDir, ftruncateFd, openFd } from './fs-util.js';
import { scanSegment } from './segment-scanner.js';

/** Last offset held by a (cleaned) segment file, truncating it at its first invalid batch. */
async function lastOffsetIn(path: string): Promise<bigint | null> {
  const fd = await openFd(path, 'r+');
  try {
    const { size } = await fsp.stat(path);
    let last: bigint | null = null;
    const r = await scanSegment(fd, 0, size, { verifyCrc: true }, (buf, pos) => {
      last = lastOffsetOf(buf, pos);
      return true;
    });
    if (r.problem !== null) await ftruncateFd(fd, r.validEnd);
    return last;
  } finally {
    await closeFd(fd);
  }
}

/**
 * Finishes every committed swap in `dir` (called before the segments are listed); returns the
 * directory's file names afterwards.
 */
export async function completeSwaps(dir: string): Promise<string[]> {
  const names = await fsp.readdir(dir);
  const swaps = names.filter((n) => {
    const p = parseOffsetFileName(n);
    return p !== null && p.suffix === LOG_SUFFIX && p.state === SWAP_SUFFIX;
  });
  if (swaps.length === 0 && !names.some((n) => n.endsWith(SWAP_SUFFIX))) return names;
  for (const swap of swaps) {
    const base = parseOffsetFileName(swap)!.offset;
    const last = await lastOffsetIn(join(dir, swap));
    for (const name of names) {
      const p = parseOffsetFileName(name);
      if (p === null || p.state !== '' || p.suffix === '.snapshot') continue;
      if (p.offset >= base && (p.offset === base || (last !== null && p.offset <= last))) {
        await fsp.rm(join(dir, name), { force: true });
      }
    }
    await fsp.rename(join(dir, swap), join(dir, swap.slice(0, -SWAP_SUFFIX.length)));
  }
  // Other swap files (the cleaned `.txnindex`) take their final names too.
  for (const name of await fsp.readdir(dir)) {
    const p = parseOffsetFileName(name);
    if (p !== null && p.state === SWAP_SUFFIX)
      await fsp.rename(join(dir, name), join(dir, name.slice(0, -SWAP_SUFFIX.length)));
  }
  await fsyncDir(dir);
  return fsp.readdir(dir);
}
