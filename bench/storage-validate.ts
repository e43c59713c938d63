// The leader's batch checks alone (`validateLeaderBatch`: framing, CRC-32C, header, record walk)
// per 1 KiB batch, in CPU time of this thread, for each source tree (the `--validate` mode of
// bench/storage-append.ts, with its BEFORE/TREES). Pure computation, so the trees share one
// process; rounds interleave them, and CPU time (getrusage) rather than wall time keeps the
// descheduled time of a loaded machine out of the figures. With VERIFIED=1 each tree that has
// `markVerifiedBatches` is measured once more with every batch marked first, as a network
// thread's checks leave it (the mark included: the event loop makes it per request).
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { LogConfig } from '../src/storage/log-config.js';
import type { validateLeaderBatch } from '../src/storage/log-validator.js';
import { makeBatches, ROUNDS, table } from './storage-util.js';

/** Batch size (KiB); CALLS scales down with it. */
const SIZE_KIB = Number(process.env.SIZE_KIB ?? 1);
const CALLS = Math.max(1000, Math.round(Number(process.env.CALLS ?? 300_000) / SIZE_KIB));

interface Checker {
  label: string;
  validate: typeof validateLeaderBatch;
  config: LogConfig;
  mark?: (frame: ArrayBuffer, ranges: number[]) => void;
  /** Mark each batch before checking it. */
  verified?: boolean;
}

async function load(label: string, root: string): Promise<Checker> {
  const url = (file: string): string => pathToFileURL(join(root, 'src/storage', file)).href;
  const { validateLeaderBatch: validate, markVerifiedBatches } = (await import(url('log-validator.ts'))) as {
    validateLeaderBatch: typeof validateLeaderBatch;
    markVerifiedBatches?: Checker['mark'];
  };
  const { logConfigFromProperties } = (await import(url('log-config.ts'))) as {
    logConfigFromProperties: (p: Record<string, string>) => LogConfig;
  };
  const config = logConfigFromProperties({});
  return { label, validate, config, ...(markVerifiedBatches ? { mark: markVerifiedBatches } : {}) };
}

export async function validateCost(
  trees: { label: string; root: string; verified?: boolean }[],
  loadavg: () => string,
): Promise<void> {
  // A tree VERIFIED=1 added for the append table is measured here as a variant of its own.
  const plain = trees.filter((t) => t.verified !== true);
  const checkers: Checker[] = await Promise.all(plain.map((t) => load(t.label, t.root)));
  if (process.env.VERIFIED === '1') {
    for (const c of [...checkers])
      if (c.mark) checkers.push({ ...c, label: `${c.label}, verified by a thread`, verified: true });
  }
  const batches = makeBatches(SIZE_KIB * 1024, 64);
  const rounds = Math.max(ROUNDS, 5);
  console.log(`load average at start ${loadavg()}; ${CALLS} calls per tree and round, ${rounds} rounds`);
  const ns: number[][] = checkers.map(() => []);
  for (let r = 0; r < rounds; r++) {
    for (let k = 0; k < checkers.length; k++) {
      const i = (k + r) % checkers.length;
      const { validate, config, verified } = checkers[i]!;
      const mark = verified ? checkers[i]!.mark : undefined;
      const now = Date.now();
      const cpu0 = process.cpuUsage();
      if (mark === undefined)
        for (let n = 0; n < CALLS; n++) validate(batches[n & 63]!, config, 'client', now);
      else
        for (let n = 0; n < CALLS; n++) {
          const b = batches[n & 63]!;
          mark(b.buffer as ArrayBuffer, [b.byteOffset, b.length]);
          validate(b, config, 'client', now);
        }
      const cpu = process.cpuUsage(cpu0);
      ns[i]!.push(((cpu.user + cpu.system) * 1000) / CALLS);
    }
  }
  const rows = checkers.map((c, i) => {
    const sorted = [...ns[i]!].sort((a, b) => a - b);
    return [
      c.label,
      sorted[sorted.length >> 1]!.toFixed(0),
      `${sorted[0]!.toFixed(0)}–${sorted.at(-1)!.toFixed(0)}`,
    ];
  });
  console.log(
    table(['tree', `validateLeaderBatch ns of CPU per ${SIZE_KIB} KiB batch (median)`, 'range'], rows),
  );
  console.log(`load average at end ${loadavg()}`);
}
