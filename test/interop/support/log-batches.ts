// Reads the batch headers straight from a partition's segment files, so tests can check what
// really reached the log (codec, counts) independently of the broker's read path.

import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';

export interface StoredBatch {
  baseOffset: bigint;
  codec: number;
  recordCount: number;
  size: number;
}

export async function storedBatches(
  dataDir: string,
  topic: string,
  partition: number,
): Promise<StoredBatch[]> {
  const dir = join(dataDir, `${topic}-${partition}`);
  const files = (await readdir(dir)).filter((f) => f.endsWith('.log')).sort();
  const out: StoredBatch[] = [];
  for (const f of files) {
    const d = await readFile(join(dir, f));
    let p = 0;
    while (p + 61 <= d.length) {
      const length = d.readInt32BE(p + 8);
      out.push({
        baseOffset: d.readBigInt64BE(p),
        codec: d.readInt16BE(p + 21) & 7,
        recordCount: d.readInt32BE(p + 57),
        size: 12 + length,
      });
      p += 12 + length;
    }
  }
  return out;
}
