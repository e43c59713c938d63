// A promise-based ZooKeeper client over node-zookeeper-client, shaped after Kafka's
// ZooKeeperClient: one object for the life of the broker that renews its session after an expiry
// (the library's handle is dead once expired, so we replace it), typed errors with ZooKeeper's
// code names, one-shot watches that are told when their session died, and a correctly fenced
// multi (zk-multi.ts).
//
// Outcomes to know (as with every ZooKeeper client):
// - CONNECTION_LOSS: the reply was lost, not necessarily the request. A create, setData, delete or
//   multi that failed with it MAY HAVE BEEN APPLIED. Re-read and compare before concluding
//   (zk-ephemeral.ts: createEphemeralChecked, retryUntilConnected). Requests issued while
//   disconnected wait for the reconnection; requests in flight when it broke fail.
// - SESSION_EXPIRED: the session and its ephemeral znodes are gone, and so are its watches (each
//   outstanding watcher receives one SESSION_EXPIRED event). With renewExpiredSession (default) a
//   new session is opened at once: 'expired' is emitted, then 'newSession' once connected; the
//   owner must then re-create its ephemerals and re-register its watches (as Kafka's
//   afterInitializingSession handlers do).
// - CLOSED: close() was called. Like CONNECTION_LOSS, a write in flight may have been applied.

import { libraryConnectString, type ParsedConnectString, parseConnectString } from './zk-connect-string.js';
import { isZkError, toZkError, ZkError } from './zk-errors.js';
import {
  addOps,
  CREATE_MODE_FLAGS,
  toMultiError,
  toOpResults,
  type ZkCreateMode,
  type ZkOp,
  type ZkOpResult,
} from './zk-multi.js';
import { ZkSession } from './zk-session.js';
import { toZkStat, type ZkStat } from './zk-stat.js';
import type { ZkClientOptions, ZkWatcher } from './zk-types.js';

export type {
  ZkClientEvents,
  ZkClientOptions,
  ZkConnectionState,
  ZkWatchEvent,
  ZkWatchEventType,
  ZkWatcher,
} from './zk-types.js';

export class ZkClient extends ZkSession {
  /** Connects and waits for a session; fails with CONNECT_TIMEOUT naming the hosts. */
  static async connect(connectString: string, options: ZkClientOptions = {}): Promise<ZkClient> {
    const parsed = parseConnectString(connectString);
    if (options.createChroot && parsed.chroot !== null) {
      const { createChroot: _c, session: _s, ...rest } = options;
      const root = await ZkClient.connect(libraryConnectString(parsed, false), rest);
      try {
        await root.ensurePersistentPath(parsed.chroot);
      } finally {
        await root.close();
      }
    }
    const client = new ZkClient(parsed, options);
    const timeoutMs = options.connectionTimeoutMs ?? client.sessionTimeoutMs;
    try {
      await client.waitUntilConnected(timeoutMs);
    } catch (e) {
      await client.close();
      if (isZkError(e, 'CONNECT_TIMEOUT'))
        throw new ZkError(
          'CONNECT_TIMEOUT',
          `timed out after ${timeoutMs} ms connecting to ZooKeeper at ${parsed.hosts} ` +
            '(is a ZooKeeper server running and reachable there?)',
        );
      throw e;
    }
    return client;
  }

  private constructor(parsed: ParsedConnectString, options: ZkClientOptions) {
    super(parsed, options);
  }

  /**
   * Creates a znode; returns its path (with the sequence suffix for sequential modes).
   * createParents: missing ancestors are created empty and persistent first (Kafka's
   * createRecursive); an ancestor that appears concurrently is fine.
   */
  async create(
    path: string,
    data: Buffer | null = null,
    options: { mode?: ZkCreateMode; createParents?: boolean } = {},
  ): Promise<string> {
    const mode = CREATE_MODE_FLAGS[options.mode ?? 'PERSISTENT'];
    const once = (): Promise<string> =>
      this.call<string>('create', path, (c, cb) =>
        data ? c.create(path, data, mode, (e, p) => cb(e, p)) : c.create(path, mode, (e, p) => cb(e, p)),
      );
    try {
      return await once();
    } catch (e) {
      if (!options.createParents || !isZkError(e, 'NO_NODE')) throw e;
      await this.ensurePersistentPath(parentOf(path));
      return once();
    }
  }

  /** Makes sure `path` and its ancestors exist (empty, persistent); Kafka's makeSurePersistentPathExists. */
  async ensurePersistentPath(path: string): Promise<void> {
    if (path === '/' || path === '') return;
    try {
      await this.call<string>('create', path, (c, cb) =>
        c.create(path, CREATE_MODE_FLAGS.PERSISTENT, (e, p) => cb(e, p)),
      );
    } catch (e) {
      if (isZkError(e, 'NODE_EXISTS')) return;
      if (!isZkError(e, 'NO_NODE')) throw e;
      await this.ensurePersistentPath(parentOf(path));
      await this.ensurePersistentPath(path);
    }
  }

  /** Data (null for a znode created without data) and stat. NO_NODE if missing. */
  getData(path: string, options: { watch?: ZkWatcher } = {}): Promise<{ data: Buffer | null; stat: ZkStat }> {
    return this.call('getData', path, (c, cb, h) => {
      const w = options.watch ? this.wrapWatcher(h, path, options.watch) : undefined;
      const done = (e: unknown, data?: Buffer, stat?: Parameters<typeof toZkStat>[0]): void => {
        if (e || !stat) cb(e ?? new ZkError('MARSHALLING_ERROR', `getData ${path}: no stat`, path));
        else {
          w?.arm();
          cb(null, { data: data ?? null, stat: toZkStat(stat) });
        }
      };
      if (w) c.getData(path, w.fn, done);
      else c.getData(path, done);
    });
  }

  /** Stat, or null when the znode does not exist; a watch fires on creation, change or deletion. */
  exists(path: string, options: { watch?: ZkWatcher } = {}): Promise<ZkStat | null> {
    return this.call('exists', path, (c, cb, h) => {
      const w = options.watch ? this.wrapWatcher(h, path, options.watch) : undefined;
      const done = (e: unknown, stat?: Parameters<typeof toZkStat>[0] | null): void => {
        if (e) cb(e);
        else {
          w?.arm();
          cb(null, stat ? toZkStat(stat) : null);
        }
      };
      if (w) c.exists(path, w.fn, done);
      else c.exists(path, done);
    });
  }

  /** Child names (unsorted, as ZooKeeper returns them). NO_NODE if missing. */
  getChildren(path: string, options: { watch?: ZkWatcher } = {}): Promise<string[]> {
    return this.call('getChildren', path, (c, cb, h) => {
      const w = options.watch ? this.wrapWatcher(h, path, options.watch) : undefined;
      const done = (e: unknown, children?: string[]): void => {
        if (e) cb(e);
        else {
          w?.arm();
          cb(null, children ?? []);
        }
      };
      if (w) c.getChildren(path, w.fn, done);
      else c.getChildren(path, done);
    });
  }

  /** Sets data if the znode is at `version` (ZK_ANY_VERSION: any). BAD_VERSION / NO_NODE otherwise. */
  setData(path: string, data: Buffer | null, version: number): Promise<ZkStat> {
    return this.call('setData', path, (c, cb) =>
      c.setData(path, data, version, (e, stat) => (e ? cb(e) : cb(null, toZkStat(stat)))),
    );
  }

  /** Deletes if at `version` (ZK_ANY_VERSION: any). BAD_VERSION / NO_NODE / NOT_EMPTY otherwise. */
  delete(path: string, version: number): Promise<void> {
    return this.call('delete', path, (c, cb) => c.remove(path, version, (e) => cb(e)));
  }

  /** Deletes a subtree; false if it did not exist (Kafka's deleteRecursive). */
  async deleteRecursive(path: string): Promise<boolean> {
    let children: string[];
    try {
      children = await this.getChildren(path);
    } catch (e) {
      if (isZkError(e, 'NO_NODE')) return false;
      throw e;
    }
    for (const child of children) await this.deleteRecursive(`${path === '/' ? '' : path}/${child}`);
    try {
      await this.delete(path, -1);
    } catch (e) {
      if (!isZkError(e, 'NO_NODE')) throw e;
    }
    return true;
  }

  /**
   * Applies all ops atomically or none (ZkMultiError names the failing op). Expected versions are
   * honoured exactly, 0 included (zk-multi.ts). Under CONNECTION_LOSS the multi may have been applied.
   */
  multi(ops: readonly ZkOp[]): Promise<ZkOpResult[]> {
    return this.call('multi', undefined, (c, cb) => {
      const tx = c.transaction();
      addOps(tx, ops);
      tx.commit((e, results: Parameters<typeof toOpResults>[0] | undefined) => {
        if (e) return cb(toMultiError(toZkError(e, 'multi'), ops, results));
        try {
          cb(null, toOpResults(results ?? []));
        } catch (err) {
          cb(err);
        }
      });
    });
  }
}

function parentOf(path: string): string {
  const i = path.lastIndexOf('/');
  if (i < 0) throw new ZkError('BAD_ARGUMENTS', `invalid path ${JSON.stringify(path)}`, path);
  return i === 0 ? '/' : path.slice(0, i);
}
