// What the kernel's copy into the page cache costs per MB, one factor at a time (the `--page-cache`
// mode of bench/storage-append.ts). The broker's produce path spent ≈ 1.2 ms of CPU per MB in
// `copy_folio_from_iter_atomic` (libuv's pool threads) where a single-threaded `writeSync` loop
// spent 0.45–0.51 ms per MB in all: each variant below changes one thing of that loop towards
// what the broker does — the thread that writes, the size and shape of a write, where the bytes
// start in memory and in the file, whether the source buffers are fresh, whether the file grows,
// fdatasync — and reports the CPU (user and system, all threads of this process) per MB written.
// Variants run interleaved round by round; medians of the rounds are printed. PAUSE_MS=3000 runs
// them all on page-cache pages the host must provide again (see PAUSE_MS below).
//
// Run: npx tsx bench/storage-append.ts --page-cache   (MB=… per variant and round, ROUNDS=…,
//   BENCH_DIR=…, VARIANTS=0,5,… a subset by number, PAUSE_MS=…)
import * as fs from 'node:fs';
import { join } from 'node:path';
import { benchDir, ROUNDS, table } from './storage-util.js';

const TOTAL_MB = Number(process.env.MB ?? 256);
const MiB = 1024 * 1024;
const ROTATING = 16;
/** An overwritten file's region (the loop's buffers come back to the same 16 MiB). */
const OVERWRITE_SPAN = 16 * MiB;
/**
 * Idle time before each variant. Every variant deletes its file, so the next one's page cache
 * reuses the pages just freed; this VM's kernel reports free memory to the host after ~2 s
 * (virtio-balloon free page reporting, `page_reporting.page_reporting_order` on its command
 * line), which takes it away: after a pause, every page a write fills is memory the host must
 * provide again, as for a broker whose page cache keeps growing.
 */
const PAUSE_MS = Number(process.env.PAUSE_MS ?? 0);

interface Variant {
  name: string;
  /** writeSync on this thread, or fs.write/fs.writev through libuv's pool (one in flight). */
  thread: 'main' | 'pool';
  /** Bytes per write call. */
  size: number;
  /** Buffers per call (writev when > 1), `size / iov` bytes each. */
  iov: number;
  /** A fresh `allocUnsafeSlow` buffer per write (else 16 reused ones). */
  fresh: boolean;
  /** Fill the source just before its write (as a socket receive would), else filled once. */
  fill: boolean;
  /** The file grows (a new file per round), else the same 16 MiB are rewritten. */
  grow: boolean;
  /** Source bytes start this far into their buffer (the broker's batches sit inside frames). */
  srcShift: number;
  /** First write starts this far into the file (every later write then off page boundaries). */
  posShift: number;
  /** fdatasync after this many bytes (0: never). */
  syncEvery: number;
}

const LOOP: Variant = {
  name: 'loop: main thread, 1 MiB, 16 reused buffers, file grows',
  thread: 'main',
  size: MiB,
  iov: 1,
  fresh: false,
  fill: false,
  grow: true,
  srcShift: 0,
  posShift: 0,
  syncEvery: 0,
};

const VARIANTS: Variant[] = [
  LOOP,
  { ...LOOP, name: 'same 16 MiB rewritten (no growth)', grow: false },
  { ...LOOP, name: 'source filled before each write', fill: true },
  { ...LOOP, name: 'fresh source buffer per write, filled', fresh: true, fill: true },
  { ...LOOP, name: 'source +61 bytes, file +61 bytes', srcShift: 61, posShift: 61 },
  { ...LOOP, name: 'source +61 bytes (source and file misaligned)', srcShift: 61 },
  { ...LOOP, name: 'file +61 bytes (source and file misaligned)', posShift: 61 },
  { ...LOOP, name: 'source +8 bytes', srcShift: 8 },
  { ...LOOP, name: 'pool thread (fs.write), one in flight', thread: 'pool' },
  { ...LOOP, name: 'pool, 1.3 MB writev of 16 KiB buffers', thread: 'pool', size: 80 * 16384, iov: 80 },
  { ...LOOP, name: '16 KiB writes', size: 16384 },
  { ...LOOP, name: '1 KiB writes', size: 1024 },
  { ...LOOP, name: 'fdatasync every 16 MiB', syncEvery: 16 * MiB },
  {
    ...LOOP,
    name: 'broker-like: pool, 1.3 MB writev, fresh filled sources +61, file +61',
    thread: 'pool',
    size: 80 * 16384,
    iov: 80,
    fresh: true,
    fill: true,
    srcShift: 61,
    posShift: 61,
  },
];

interface Cpu {
  userUs: number;
  sysUs: number;
  ms: number;
}

function template(bytes: number): Buffer {
  const b = Buffer.allocUnsafe(bytes);
  for (let i = 0; i < bytes; i += 4) b.writeUInt32LE((i * 2654435761) >>> 0, i);
  return b;
}

function poolWrite(fd: number, bufs: Buffer[], position: number): Promise<number> {
  return new Promise((resolve, reject) => {
    const done = (err: Error | null, n: number): void => (err ? reject(err) : resolve(n));
    if (bufs.length === 1) fs.write(fd, bufs[0]!, 0, bufs[0]!.length, position, done);
    else fs.writev(fd, bufs, position, done);
  });
}

async function runVariant(v: Variant, dir: string, src: Buffer): Promise<Cpu> {
  const path = join(dir, 'data.log');
  const fd = fs.openSync(path, 'w+');
  if (!v.grow) {
    // The rewritten region is in the page cache (and allocated on disk) before timing.
    for (let p = 0; p < OVERWRITE_SPAN + v.posShift + v.size; p += MiB) fs.writeSync(fd, src, 0, MiB, p);
    fs.fdatasyncSync(fd);
  }
  const part = v.size / v.iov;
  const sourceOf = (): Buffer[] => {
    const whole = Buffer.allocUnsafeSlow(v.size + v.srcShift);
    return Array.from({ length: v.iov }, (_, k) =>
      whole.subarray(v.srcShift + k * part, v.srcShift + (k + 1) * part),
    );
  };
  const reused = Array.from({ length: ROTATING }, sourceOf);
  for (const bufs of reused) for (const b of bufs) src.copy(b, 0, 0, b.length);
  const writes = Math.floor((TOTAL_MB * MiB) / v.size);
  let sinceSync = 0;
  const cpu0 = process.cpuUsage();
  const t0 = performance.now();
  let pos = v.posShift;
  for (let i = 0; i < writes; i++) {
    const bufs = v.fresh ? sourceOf() : reused[i % ROTATING]!;
    if (v.fill) for (let k = 0; k < bufs.length; k++) src.copy(bufs[k]!, 0, k * part, (k + 1) * part);
    let n: number;
    if (v.thread === 'main')
      n = bufs.length === 1 ? fs.writeSync(fd, bufs[0]!, 0, part, pos) : fs.writevSync(fd, bufs, pos);
    else n = await poolWrite(fd, bufs, pos);
    if (n !== v.size) throw new Error(`short write: ${n} of ${v.size}`);
    pos += v.size;
    if (!v.grow && pos >= OVERWRITE_SPAN) pos = v.posShift;
    sinceSync += v.size;
    if (v.syncEvery > 0 && sinceSync >= v.syncEvery) {
      fs.fdatasyncSync(fd);
      sinceSync = 0;
    }
  }
  const ms = performance.now() - t0;
  const cpu = process.cpuUsage(cpu0);
  fs.closeSync(fd);
  fs.rmSync(path);
  return { userUs: cpu.user, sysUs: cpu.system, ms };
}

const median = (xs: number[]): number => {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 === 1 ? s[m]! : (s[m - 1]! + s[m]!) / 2;
};

export async function pageCacheCopy(loadavg: () => string): Promise<void> {
  const wanted = process.env.VARIANTS?.split(',');
  const variants = wanted === undefined ? VARIANTS : VARIANTS.filter((_, i) => wanted.includes(String(i)));
  const src = template(2 * MiB);
  const dir = benchDir('page-cache');
  console.log(`load average at start ${loadavg()}; ${TOTAL_MB} MiB per variant and round, ${ROUNDS} rounds`);
  const runs: Cpu[][] = variants.map(() => []);
  try {
    for (let r = 0; r < ROUNDS; r++) {
      for (let k = 0; k < variants.length; k++) {
        const i = (k + r) % variants.length; // rotate the order each round
        if (PAUSE_MS > 0) await new Promise((resolve) => setTimeout(resolve, PAUSE_MS));
        runs[i]!.push(await runVariant(variants[i]!, dir.dir, src));
      }
    }
  } finally {
    dir.cleanup();
  }
  const rows = variants.map((v, i) => {
    const mine = runs[i]!;
    const written = (Math.floor((TOTAL_MB * MiB) / v.size) * v.size) / MiB;
    const per = (us: number): string => (us / 1000 / written).toFixed(2);
    return [
      `${VARIANTS.indexOf(v)}: ${v.name}`,
      per(median(mine.map((c) => c.sysUs))),
      per(median(mine.map((c) => c.userUs))),
      per(median(mine.map((c) => c.sysUs + c.userUs))),
      `${(written / (median(mine.map((c) => c.ms)) / 1000)).toFixed(0)}`,
    ];
  });
  console.log(
    table(
      ['variant', 'system CPU ms per MiB', 'user CPU ms per MiB', 'total CPU ms per MiB', 'MiB/s (median)'],
      rows,
    ),
  );
  console.log(`load average at end ${loadavg()}`);
}
