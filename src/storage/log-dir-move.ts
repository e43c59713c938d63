// Moving a partition's log to another log dir of this broker (AlterReplicaLogDirs), Kafka's
// "future replica" done with files: the log keeps serving while a copy grows in
// `<target>/<topic>-<p>.<uuid>-future`; then appends pause, the tail and the metadata files are
// copied, the copy is fsynced and becomes `<target>/<topic>-<p>`, and the same UnifiedLog object
// continues on it (listeners, producer state and callers' references survive the swap).
//
// Crash safety: the old dir is renamed to `-delete` before the future dir gets its final name,
// so at no point do two dirs hold `<topic>-<p>`. At startup (`resolveFutureDirs`) a `-future`
// dir is promoted when no dir holds the partition (a crash between the two renames), and
// deleted otherwise (the move had not finished; the source is intact).
import { randomUUID } from 'node:crypto';
import { promises as fsp } from 'node:fs';
import { basename, join } from 'node:path';
import { ErrorCode, KafkaError } from '../protocol/errors.js';
import {
  deletedDirName,
  futureDirName,
  parseFutureDir,
  parsePartitionDir,
  partitionDirName,
} from './file-names.js';
import { fsyncDir } from './fs-util.js';
import { loadLog } from './log-loader.js';
import type { UnifiedLog } from './unified-log.js';

/** What DescribeLogDirs shows of a move in progress (the future replica). */
export interface FutureLogProgress {
  readonly targetDir: string;
  /** The offset the copy has reached: the future replica's log end offset. */
  copiedEndOffset: bigint;
  copiedBytes: number;
  cancelled: boolean;
}

async function copyAndSync(from: string, to: string): Promise<number> {
  await fsp.copyFile(from, to);
  const fh = await fsp.open(to, 'r+');
  try {
    await fh.sync();
    return (await fh.stat()).size;
  } finally {
    await fh.close();
  }
}

/** Same inode and size: the file is the one copied (segments are replaced by rename). */
async function identity(path: string): Promise<string> {
  const st = await fsp.stat(path, { bigint: true });
  return `${st.ino}:${st.size}`;
}

function cancelled(log: UnifiedLog): KafkaError {
  return new KafkaError(
    ErrorCode.KAFKA_STORAGE_ERROR,
    `The move of ${log.topic}-${log.partition} was cancelled`,
  );
}

/**
 * Copies `log` into `targetRoot` and switches it over; returns the old directory (renamed to
 * `-delete`, for the caller to remove). `progress` is updated as the copy advances.
 */
export async function moveLogDir(
  log: UnifiedLog,
  targetRoot: string,
  progress: FutureLogProgress,
): Promise<string> {
  const id = randomUUID().replaceAll('-', '');
  const future = join(targetRoot, futureDirName(log.topic, log.partition, id));
  await fsp.mkdir(future);
  try {
    // 1. While the log serves: the sealed segments' data (immutable; retention and compaction
    //    wait meanwhile, so none disappears or is rewritten under the copy).
    const copied = new Map<string, string>();
    await log.withMaintenance(async () => {
      for (const seg of log.local.segments.slice(0, -1)) {
        if (progress.cancelled) throw cancelled(log);
        const name = basename(seg.file.path);
        progress.copiedBytes += await copyAndSync(seg.file.path, join(future, name));
        progress.copiedEndOffset = seg.nextOffset;
        copied.set(name, await identity(seg.file.path));
      }
    });
    // 2. Appends paused: clean state on disk, then every file not copied yet (the active
    //    segment, indexes, snapshots, epochs, partition.metadata), then the swap.
    return await log.withAppendsPaused(async () => {
      if (progress.cancelled || log.isClosed) throw cancelled(log);
      await log.writeCleanState();
      // Retention or compaction may have deleted or replaced a copied segment in between.
      const present = new Set<string>();
      for (const entry of await fsp.readdir(log.dir, { withFileTypes: true })) {
        if (!entry.isFile()) continue;
        present.add(entry.name);
        const source = join(log.dir, entry.name);
        if (copied.get(entry.name) === (await identity(source))) continue;
        progress.copiedBytes += await copyAndSync(source, join(future, entry.name));
      }
      for (const name of copied.keys()) if (!present.has(name)) await fsp.rm(join(future, name));
      progress.copiedEndOffset = log.logEndOffset;
      await fsyncDir(future);
      const oldDir = log.dir;
      const oldRoot = join(oldDir, '..');
      const doomed = join(oldRoot, deletedDirName(log.topic, log.partition, id));
      const finalDir = join(targetRoot, partitionDirName(log.topic, log.partition));
      await fsp.rename(oldDir, doomed);
      try {
        await fsp.rename(future, finalDir);
      } catch (err) {
        await fsp.rename(doomed, oldDir);
        throw err;
      }
      await fsyncDir(oldRoot);
      await fsyncDir(targetRoot);
      const { log: moved } = await loadLog({
        dir: finalDir,
        topic: log.topic,
        partition: log.partition,
        config: log.config,
        env: log.env,
        recoveryPoint: log.logEndOffset,
        logStartOffset: log.logStartOffset,
        highWatermark: log.highWatermark,
        cleanShutdown: true,
        owner: log,
      });
      log.adoptStorage(moved);
      return doomed;
    });
  } catch (err) {
    await fsp.rm(future, { recursive: true, force: true }).catch(() => undefined);
    throw err;
  }
}

/**
 * Startup: settles the `-future` dirs a crash left in `roots` (see the header). Runs before any
 * log dir is opened.
 */
export async function resolveFutureDirs(roots: readonly string[]): Promise<void> {
  const current = new Set<string>();
  const futures: { root: string; name: string; partition: string }[] = [];
  for (const root of roots) {
    for (const name of await fsp.readdir(root).catch(() => [] as string[])) {
      const p = parsePartitionDir(name);
      if (p !== null) current.add(partitionDirName(p.topic, p.partition));
      const f = parseFutureDir(name);
      if (f !== null) futures.push({ root, name, partition: partitionDirName(f.topic, f.partition) });
    }
  }
  for (const f of futures) {
    if (current.has(f.partition)) await fsp.rm(join(f.root, f.name), { recursive: true, force: true });
    else {
      await fsp.rename(join(f.root, f.name), join(f.root, f.partition));
      current.add(f.partition);
      await fsyncDir(f.root);
    }
  }
}
