// One process per log dir: Kafka's `.lock` file at the root of every log dir, held with an
// exclusive open-file-description lock (fcntl OFD locks on Linux, flock on macOS) for as long as
// the dir is in use. The kernel drops the lock when its holder dies, however it dies, so a crash
// never leaves a stale lock behind; two opens in one process conflict too (in-process brokers in
// tests). Before this, two brokers on one dir both acknowledged writes and a restart lost them.
// The holder's pid is written into the file only to name it in the refusal.
import { promises as fsp } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';

export const LOCK_FILE = '.lock';

interface NativeLocks {
  tryLock(fd: number): boolean;
  unlock(fd: number): void;
}

let native: NativeLocks | null = null;
function locks(): NativeLocks {
  native ??= createRequire(import.meta.url)('fs-native-extensions') as NativeLocks;
  return native;
}

/** A log dir is locked by another process (or another broker of this process). */
export class LogDirInUseError extends Error {
  readonly code = 'LOG_DIR_IN_USE';
  constructor(
    readonly dir: string,
    readonly holderPid: number | null,
  ) {
    const who =
      holderPid === null
        ? 'another process'
        : holderPid === process.pid
          ? 'another broker of this process'
          : `process ${holderPid}`;
    super(
      `log dir ${dir} is in use by ${who} (${join(dir, LOCK_FILE)} is locked): ` +
        'stop that broker or give this one another log.dirs',
    );
    this.name = 'LogDirInUseError';
  }
}

export interface LogDirLock {
  readonly dir: string;
  /** Unlocks and closes the lock file (the file itself stays, as Kafka's). Idempotent. */
  release(): Promise<void>;
}

/** Creates `dir` if needed and locks it, or throws `LogDirInUseError`. */
export async function lockLogDir(dir: string): Promise<LogDirLock> {
  await fsp.mkdir(dir, { recursive: true });
  const path = join(dir, LOCK_FILE);
  const fh = await fsp.open(path, 'a+');
  let held: boolean;
  try {
    held = locks().tryLock(fh.fd);
  } catch (e) {
    await fh.close();
    throw e;
  }
  if (!held) {
    const text = (await fh.readFile('utf8').catch(() => '')).trim();
    await fh.close();
    const pid = /^\d+$/.test(text) ? Number(text) : null;
    throw new LogDirInUseError(dir, pid);
  }
  await fh.truncate(0);
  await fh.write(`${process.pid}\n`, 0);
  let released = false;
  return {
    dir,
    async release() {
      if (released) return;
      released = true;
      locks().unlock(fh.fd);
      await fh.close();
    },
  };
}

/** Locks every dir, all or nothing: on a refusal the locks already taken are released. */
export async function lockLogDirs(dirs: readonly string[]): Promise<LogDirLock[]> {
  const taken: LogDirLock[] = [];
  try {
    for (const dir of dirs) taken.push(await lockLogDir(dir));
  } catch (e) {
    await Promise.all(taken.map((l) => l.release()));
    throw e;
  }
  return taken;
}
