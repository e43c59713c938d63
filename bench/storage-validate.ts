// The leader's batch checks alone (`validateLeaderBatch`: framing, CRC-32C, header, record walk)
// per 1 KiB batch, in CPU time of this thread, for each source tree (the `--validate` mode of
// bench/storage-append.ts, with its BEFORE/TREES). Pure computation, so the trees share one
// process; rounds interleave them, and CPU time (getrusage) rather than wall time keeps the
// descheduled time of a loaded machine out of the figures.
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { LogConfig } from '../src/storage/log-config.js';
import type { validateLeaderBatch } from '../src/storage/log-validator.js';
import { makeBatches, ROUNDS, table } from './storage-util.js';

const CALLS = Number(process.env.CALLS ?? 300_000);

interface Checker {
  label: string;
  validate: typeof validateLeaderBatch;
  config: LogConfig;
}

async function load(label: string, root: string): Promise<Checker> {
  const url = (file: string): string => pathToFileURL(join(root, 'src/storage', file)).href;
  const { validateLeaderBatch: validate } = (await import(url('log-validator.ts'))) as {
    validateLeaderBatch: typeof validateLeaderBatch;
  };
  const { logConfigFromProperties } = (await import(url('log-config.ts'))) as {
    logConfigFromProperties: (p: Record<string, string>) => LogConfig;
  };
  return { label, validate, config: logConfigFromProperties({}) };
}

export async function validateCost(
  trees: { label: string; root: string }[],
  loadavg: () => string,
): Promise<void> {
  const checkers = await Promise.all(trees.map((t) => load(t.label, t.root)));
  const batches = makeBatches(1024, 64);
  const rounds = Math.max(ROUNDS, 5);
  console.log(`load average at start ${loadavg()}; ${CALLS} calls per tree and round, ${rounds} rounds`);
  const ns: number[][] = checkers.map(() => []);
  for (let r = 0; r < rounds; r++) {
    for (let k = 0; k < checkers.length; k++) {
      const i = (k + r) % checkers.length;
      const { validate, config } = checkers[i]!;
      const now = Date.now();
      const cpu0 = process.cpuUsage();
      for (let n = 0; n < CALLS; n++) validate(batches[n & 63]!, config, 'client', now);
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
  console.log(table(['tree', 'validateLeaderBatch ns of CPU per 1 KiB batch (median)', 'range'], rows));
  console.log(`load average at end ${loadavg()}`);
}
