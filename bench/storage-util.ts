// Helpers shared by the storage benchmarks (bench/storage-*.ts).
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { encodeRecordBatchSync } from '../src/protocol/record-batch/encode.js';

export const ROUNDS = Number(process.env.ROUNDS ?? 3);

export function benchDir(name: string): { dir: string; cleanup: () => void } {
  const dir = mkdtempSync(join(process.env.BENCH_DIR ?? tmpdir(), `samsa-bench-${name}-`));
  return { dir, cleanup: () => rmSync(dir, { recursive: true, force: true }) };
}

/**
 * `count` distinct uncompressed batches of about `size` bytes each (records of 1 KiB, or one
 * smaller record), as a producer would send them.
 */
export function makeBatches(size: number, count: number): Buffer[] {
  const recordSize = Math.min(1024, size - 80);
  const perBatch = Math.max(1, Math.floor((size - 61) / (recordSize + 12)));
  const out: Buffer[] = [];
  for (let b = 0; b < count; b++) {
    const records = Array.from({ length: perBatch }, (_, i) => ({
      key: Buffer.from(`key-${b}-${i}`),
      value: Buffer.alloc(recordSize - 20, `v${b}.${i}.`),
    }));
    out.push(encodeRecordBatchSync(records, { timestamp: Date.now() }));
  }
  return out;
}

export const mb = (bytes: number, ms: number): number => bytes / 1024 / 1024 / (ms / 1000);

export function table(header: string[], rows: (string | number)[][]): string {
  const line = (cells: (string | number)[]) => `| ${cells.join(' | ')} |`;
  return [line(header), line(header.map(() => '---')), ...rows.map(line)].join('\n');
}
