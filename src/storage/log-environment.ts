// What every log shares with its LogManager (file handles, tail-cache budget, clock, error and
// deletion callbacks), which I/O errors count as a failed disk, and the parts a log is built from.
import type { FileHandleCache } from './file-handle-cache.js';
import type { LeaderEpochCache } from './leader-epoch-cache.js';
import type { LocalLog } from './local-log.js';
import type { LogSegment } from './log-segment.js';
import type { ProducerSnapshots } from './producer-snapshots.js';
import type { ProducerStateManager } from './producer-state.js';
import type { TailCacheBudget } from './tail-cache.js';
import type { UnifiedLog } from './unified-log.js';

/** What every log shares with its LogManager. */
export interface LogEnvironment {
  cache: FileHandleCache;
  tailBudget: TailCacheBudget;
  now: () => number;
  onError: (error: Error, context: string) => void;
  /** Deletes a detached segment's files after `delayMs` (file.delete.delay.ms). */
  scheduleDelete: (segment: LogSegment, delayMs: number) => void;
  /** The log start offset moved; its checkpoint should be written soon. */
  onLogStartOffsetChanged: (log: UnifiedLog) => void;
  /** An I/O error on this log's files: its log dir goes offline (Kafka's LogDirFailureChannel). */
  onStorageFailure?: (log: UnifiedLog, error: Error) => void;
}

/** Errors that mean the disk or directory failed, not a bad request. */
export function isStorageFailure(err: unknown): err is NodeJS.ErrnoException {
  const code = (err as NodeJS.ErrnoException | null)?.code;
  return (
    code !== undefined &&
    ['EIO', 'ENOENT', 'EACCES', 'EPERM', 'EROFS', 'ENOSPC', 'EBADF', 'ENOTDIR'].includes(code)
  );
}

export interface UnifiedLogParts {
  topic: string;
  partition: number;
  dir: string;
  topicId: string;
  local: LocalLog;
  producers: ProducerStateManager;
  snapshots: ProducerSnapshots;
  epochs: LeaderEpochCache;
  logStartOffset: bigint;
  highWatermark: bigint;
  metadataSynced?: boolean;
}
