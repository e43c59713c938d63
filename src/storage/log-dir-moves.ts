// The moves of logs between a broker's log dirs in progress (AlterReplicaLogDirs): at most one per
// partition, each copying through a `-future` dir while the log serves (log-dir-move.ts). A move to
// another target cancels the running one first, as Kafka replaces a future replica.

import { promises as fsp } from 'node:fs';
import { type FutureLogProgress, moveLogDir } from './log-dir-move.js';
import type { UnifiedLog } from './unified-log.js';

/** What the moves need of the log manager. */
export interface LogDirMoveHost {
  /** The partition's log and the dir holding it now (undefined: not hosted here). */
  entry(key: string): { readonly log: UnifiedLog; readonly dir: string } | undefined;
  /** A move finished: the log lives in `to` now. */
  relocated(key: string, log: UnifiedLog, from: string, to: string): void;
  /** No move may start now (the manager is closed, or a dir is offline). */
  refusesMoves(): boolean;
  onError(err: Error, context: string): void;
}

interface Move {
  readonly progress: FutureLogProgress;
  readonly done: Promise<void>;
}

export class LogDirMoves {
  readonly #moves = new Map<string, Move>();

  constructor(private readonly host: LogDirMoveHost) {}

  /** Moves `key`'s log to `targetDir`; resolves when it is done (or dropped: see `#run`). */
  start(key: string, targetDir: string): Promise<void> {
    const running = this.#moves.get(key);
    if (running === undefined) return this.#begin(key, targetDir);
    if (running.progress.targetDir === targetDir) return running.done;
    running.progress.cancelled = true;
    return running.done.then(() => (this.#moves.has(key) ? undefined : this.#begin(key, targetDir)));
  }

  /** Stops the move of `key`, if any, and waits for it to let go of the log. */
  cancel(key: string): Promise<void> {
    const move = this.#moves.get(key);
    if (move === undefined) return Promise.resolve();
    move.progress.cancelled = true;
    return move.done;
  }

  /** Stops (without waiting) every move out of or into `dir`, whose files failed. */
  cancelInvolving(dir: string): void {
    for (const [key, m] of this.#moves)
      if (m.progress.targetDir === dir || this.host.entry(key)?.dir === dir) m.progress.cancelled = true;
  }

  async cancelAll(): Promise<void> {
    for (const m of this.#moves.values()) m.progress.cancelled = true;
    await Promise.all([...this.#moves.values()].map((m) => m.done));
  }

  /** The moves into `dir` (DescribeLogDirs reports them as future replicas). */
  into(dir: string): { log: UnifiedLog; progress: FutureLogProgress }[] {
    const out: { log: UnifiedLog; progress: FutureLogProgress }[] = [];
    for (const [key, m] of this.#moves) {
      const log = this.host.entry(key)?.log;
      if (m.progress.targetDir === dir && log !== undefined) out.push({ log, progress: m.progress });
    }
    return out;
  }

  #begin(key: string, targetDir: string): Promise<void> {
    const entry = this.host.entry(key);
    if (entry === undefined || entry.dir === targetDir || this.host.refusesMoves()) return Promise.resolve();
    const progress: FutureLogProgress = { targetDir, copiedEndOffset: 0n, copiedBytes: 0, cancelled: false };
    const done = this.#run(key, entry.log, entry.dir, progress).finally(() => {
      if (this.#moves.get(key)?.progress === progress) this.#moves.delete(key);
    });
    this.#moves.set(key, { progress, done });
    return done;
  }

  async #run(key: string, log: UnifiedLog, from: string, progress: FutureLogProgress): Promise<void> {
    try {
      const doomed = await moveLogDir(log, progress.targetDir, progress);
      this.host.relocated(key, log, from, progress.targetDir);
      await fsp.rm(doomed, { recursive: true, force: true });
    } catch (err) {
      if (progress.cancelled) return;
      // The copy is dropped and the log stays where it is; a failure of the source's own files
      // has taken its dir offline through onStorageFailure already.
      this.host.onError(err as Error, `moving ${log.topic}-${log.partition} to ${progress.targetDir}`);
    }
  }
}
