// Thin promise wrappers over fd-based `fs` calls. The callback API on raw descriptors is
// measurably cheaper per call than `fs.promises.FileHandle` (no handle object, no extra
// promise layer), which matters on the append/read hot paths.
import * as fs from 'node:fs';
import { dirname } from 'node:path';

export function openFd(path: string, flags: string): Promise<number> {
  return new Promise((resolve, reject) =>
    fs.open(path, flags, 0o644, (err, fd) => (err ? reject(err) : resolve(fd))),
  );
}

export function closeFd(fd: number): Promise<void> {
  return new Promise((resolve, reject) => fs.close(fd, (err) => (err ? reject(err) : resolve())));
}

/** Writes all of `buf` at `position` (loops on short writes). */
export function writeAt(fd: number, buf: Buffer, position: number): Promise<void> {
  return new Promise((resolve, reject) =>
    writeFully(fd, buf, position, (err) => (err ? reject(err) : resolve())),
  );
}

/** Writes all buffers contiguously at `position` with one `writev` (loops on short writes). */
export function writevAt(fd: number, bufs: Buffer[], position: number): Promise<void> {
  return new Promise((resolve, reject) =>
    writevFully(fd, bufs, position, (err) => (err ? reject(err) : resolve())),
  );
}

/**
 * `writeAt` with a callback: the append path's form, which costs no promise (and no microtask
 * hop) per write.
 */
export function writeFully(
  fd: number,
  buf: Buffer,
  position: number,
  done: (err: Error | null) => void,
): void {
  fs.write(fd, buf, 0, buf.length, position, (err, n) => {
    if (err) done(err);
    else if (n < buf.length) writeFully(fd, buf.subarray(n), position + n, done);
    else done(null);
  });
}

/** `writevAt` with a callback (see `writeFully`). */
export function writevFully(
  fd: number,
  bufs: Buffer[],
  position: number,
  done: (err: Error | null) => void,
): void {
  if (bufs.length === 1) {
    writeFully(fd, bufs[0]!, position, done);
    return;
  }
  fs.writev(fd, bufs, position, (err, n) => {
    if (err) return done(err);
    let total = 0;
    for (const b of bufs) total += b.length;
    if (n === total) return done(null);
    // Short write: finish the rest one buffer at a time.
    let skip = n;
    const rest: Buffer[] = [];
    for (const b of bufs) {
      if (skip >= b.length) skip -= b.length;
      else {
        rest.push(skip > 0 ? b.subarray(skip) : b);
        skip = 0;
      }
    }
    writeFully(fd, Buffer.concat(rest), position + n, done);
  });
}

/** Reads up to `length` bytes at `position` into a fresh buffer; returns it trimmed to what was read. */
export function readAt(
  fd: number,
  length: number,
  position: number,
  allocate?: (size: number) => Buffer,
): Promise<Buffer> {
  const buf = allocate ? allocate(length) : Buffer.allocUnsafeSlow(length);
  return readInto(fd, buf, position).then((n) => (n === length ? buf : buf.subarray(0, n)));
}

/** Fills `buf` from `position` until full or end of file; resolves with the bytes read. */
export function readInto(fd: number, buf: Buffer, position: number): Promise<number> {
  return new Promise((resolve, reject) => {
    const step = (off: number): void => {
      fs.read(fd, buf, off, buf.length - off, position + off, (err, n) => {
        if (err) reject(err);
        else if (n === 0 || off + n >= buf.length) resolve(off + n);
        else step(off + n);
      });
    };
    if (buf.length === 0) resolve(0);
    else step(0);
  });
}

export function fsyncFd(fd: number): Promise<void> {
  return new Promise((resolve, reject) => fs.fsync(fd, (err) => (err ? reject(err) : resolve())));
}

export function fdatasyncFd(fd: number): Promise<void> {
  return new Promise((resolve, reject) => fs.fdatasync(fd, (err) => (err ? reject(err) : resolve())));
}

export function ftruncateFd(fd: number, length: number): Promise<void> {
  return new Promise((resolve, reject) => fs.ftruncate(fd, length, (err) => (err ? reject(err) : resolve())));
}

/** fsync of an existing file by path (no-op when it does not exist). */
export async function syncFile(path: string): Promise<void> {
  let fd: number;
  try {
    fd = await openFd(path, 'r');
  } catch (err) {
    if (isNotFound(err)) return;
    throw err;
  }
  try {
    await fsyncFd(fd);
  } finally {
    await closeFd(fd);
  }
}

/** fsync of a directory, so that renames and creations in it survive a power loss. */
export async function fsyncDir(dir: string): Promise<void> {
  let fd: number;
  try {
    fd = await openFd(dir, 'r');
  } catch {
    return;
  }
  try {
    await fsyncFd(fd);
  } catch {
    // Some file systems refuse fsync on directories; there is nothing better to do.
  } finally {
    await closeFd(fd);
  }
}

/**
 * How durable an atomic replace is: `true` fsyncs the file and its directory; `'file'` only the
 * file (the caller fsyncs the directory once for several files); `false` neither (a crash of
 * the process keeps it, a power cut may not).
 */
export type SyncMode = boolean | 'file';

/**
 * Replaces `path` atomically: write `path.tmp`, fsync it, rename over `path`, fsync the
 * directory. A crash leaves either the old or the new content, never a torn file.
 */
export async function writeFileAtomic(
  path: string,
  data: Buffer | string,
  sync: SyncMode = true,
): Promise<void> {
  const tmp = `${path}.tmp`;
  const fd = await openFd(tmp, 'w');
  try {
    await writeAt(fd, typeof data === 'string' ? Buffer.from(data, 'utf8') : data, 0);
    if (sync !== false) await fsyncFd(fd);
  } finally {
    await closeFd(fd);
  }
  await fs.promises.rename(tmp, path);
  if (sync === true) await fsyncDir(dirname(path));
}

/**
 * Reads a whole file, or returns null when it does not exist. Open, read until a short read,
 * close: no fstat and no FileHandle, which matters when opening thousands of partitions.
 */
export async function readFileOrNull(path: string): Promise<Buffer | null> {
  let fd: number;
  try {
    fd = await openFd(path, 'r');
  } catch (err) {
    if (isNotFound(err)) return null;
    throw err;
  }
  try {
    let buf = Buffer.allocUnsafe(8192);
    let len = 0;
    for (;;) {
      const n = await readInto(fd, buf.subarray(len), len);
      len += n;
      if (len < buf.length) return buf.subarray(0, len);
      const bigger = Buffer.allocUnsafe(buf.length * 4);
      buf.copy(bigger);
      buf = bigger;
    }
  } finally {
    await closeFd(fd);
  }
}

export function isNotFound(err: unknown): boolean {
  return typeof err === 'object' && err !== null && (err as { code?: unknown }).code === 'ENOENT';
}

export async function unlinkIfExists(path: string): Promise<void> {
  try {
    await fs.promises.unlink(path);
  } catch (err) {
    if (!isNotFound(err)) throw err;
  }
}
