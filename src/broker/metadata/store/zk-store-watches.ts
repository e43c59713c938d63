// The watches of the ZooKeeper store, mapped to MetadataStoreListener: standing subscriptions
// (zookeeper/zk-watch.ts re-registers ZooKeeper's one-shot watches, also in a renewed session)
// whose first read is a baseline, not an event, and whose later reads become listener calls,
// delivered asynchronously and coalesced per kind / topic / entity as the memory store does.
//
// - /brokers/ids, /brokers/topics, /admin/delete_topics children: every firing is reported (a
//   broker that left and came back between two reads gives the same list but a new epoch).
// - /controller, /brokers/topics/<t>, /admin/reassign_partitions, /admin/preferred_replica_election
//   data: reported when the znode's mzxid changed (a topic's creation and deletion are topicsChanged,
//   not assignmentChanged). Every topic is watched, as Kafka's controller does; topicsChanged is
//   told only once the new topics' watches are in place, so a listener that re-reads on it misses
//   no later assignment change.
// - /config/changes children: configChanged(entity) for each notification with a sequence number
//   above the last one processed. At start the newest existing one becomes the baseline: nothing
//   old is reported (the owner reads everything then). After a session expiry the last one
//   processed stays the mark, as in Kafka's ZkNodeChangeNotificationListener: what was written
//   while the session was being renewed is reported once the watch is back. (A new baseline then
//   lost a change written between the owner's re-read on sessionExpired and the watch's first
//   read in the new session; reporting a change the owner already re-read costs a re-read.)
// - /kafka-acl-changes, /kafka-acl-extended-changes children: aclsChanged(resource), the same way.
//   As Kafka's ZkNodeChangeNotificationListener, every broker then deletes the processed
//   notifications created more than 15 minutes ago (`aclChangeExpirationMs`), so the lists do
//   not grow for ever; a node another broker deleted first is simply gone.
// - Session: 'disconnected' → disconnected, the same session back → reconnected, a renewed session
//   after an expiry → sessionExpired.

import type { Logger } from '../../logger.js';
import type { ZkClient } from '../zookeeper/zk-client.js';
import {
  CONFIG_CHANGE_PREFIX,
  decodeConfigChangeNotification,
  topicPath,
  ZK_PATHS,
} from '../zookeeper/zk-data.js';
import { isZkError } from '../zookeeper/zk-errors.js';
import type { ZkStat } from '../zookeeper/zk-stat.js';
import { watchChildren, watchData, type ZkSubscription } from '../zookeeper/zk-watch.js';
import type { MetadataStoreListener } from './metadata-store.js';
import type { ConfigEntity } from './records.js';
import { ACL_CHANGE_PREFIX, ACL_PATHS, decodeAclChange } from './zk-store-acls.js';
import { desanitizeEntityName, parseUserClientEntityName } from './zk-user-names.js';

type Notify = (l: MetadataStoreListener) => void;

/** Kafka's AclAuthorizer: change notifications older than this are purged (15 minutes). */
export const ACL_CHANGE_EXPIRATION_MS = 15 * 60 * 1000;

export interface ZkStoreWatchesOptions {
  /** Age (ZooKeeper ctime against `now`) past which processed ACL notifications are deleted. */
  readonly aclChangeExpirationMs?: number;
  /** The clock compared with the notifications' ctime (tests). */
  readonly now?: () => number;
}
type DataValue = { data: Buffer | null; stat: ZkStat } | null;

interface Baselined {
  readonly sub: ZkSubscription;
  /** Resolves once the first read (the baseline) is done. */
  readonly ready: Promise<void>;
}

export class ZkStoreWatches {
  readonly #client: ZkClient;
  readonly #logger: Logger;
  readonly #listeners = new Set<MetadataStoreListener>();
  /** Events waiting for delivery, coalesced by key (connection events have unique keys). */
  readonly #pending = new Map<string, Notify>();
  #flushScheduled = false;
  #closed = false;
  #connectionEvents = 0;
  readonly #subs: ZkSubscription[] = [];
  readonly #topics = new Map<string, Baselined>();
  /** Serialises the handling of topic list and config change deliveries. */
  #topicChain: Promise<void> = Promise.resolve();
  #configChain: Promise<void> = Promise.resolve();
  /** Last processed /config/changes sequence number (-1: none). */
  #configSeq = -1;
  #sessionId = 0n;
  #disconnected = false;
  readonly #onDisconnected = (): void => {
    this.#disconnected = true;
    this.#emitConnection((l) => l.disconnected?.());
  };
  readonly #onConnected = (id: bigint): void => {
    if (id === this.#sessionId && this.#disconnected) this.#emitConnection((l) => l.reconnected?.());
    this.#sessionId = id;
    this.#disconnected = false;
  };
  readonly #onNewSession = (id: bigint): void => {
    this.#sessionId = id;
    this.#disconnected = false;
    this.#emitConnection((l) => l.sessionExpired?.());
  };

  readonly #aclChangeExpirationMs: number;
  readonly #now: () => number;
  /** Creation times of ACL change notifications already looked at, by full path. */
  readonly #aclChangeCtimes = new Map<string, number>();

  constructor(client: ZkClient, logger: Logger, options: ZkStoreWatchesOptions = {}) {
    this.#client = client;
    this.#logger = logger;
    this.#aclChangeExpirationMs = options.aclChangeExpirationMs ?? ACL_CHANGE_EXPIRATION_MS;
    this.#now = options.now ?? Date.now;
  }

  add(listener: MetadataStoreListener): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  /** Registers every watch; resolves once each has its baseline. */
  async start(): Promise<void> {
    const c = this.#client;
    this.#sessionId = c.sessionId;
    c.on('disconnected', this.#onDisconnected);
    c.on('connected', this.#onConnected);
    c.on('newSession', this.#onNewSession);
    const ready: Promise<void>[] = [];
    const children = (path: string, kind: string, on: Notify): void => {
      const b = this.#children(path, () => this.#emit(kind, on));
      this.#subs.push(b.sub);
      ready.push(b.ready);
    };
    children(ZK_PATHS.brokerIds, 'brokers', (l) => l.brokersChanged?.());
    children(ZK_PATHS.deleteTopics, 'deletions', (l) => l.topicDeletionRequested?.());
    const data = (path: string, kind: string, on: Notify, existingOnly: boolean): void => {
      const b = this.#data(path, (_, now) => {
        if (!existingOnly || now !== null) this.#emit(kind, on);
      });
      this.#subs.push(b.sub);
      ready.push(b.ready);
    };
    data(ZK_PATHS.controller, 'controller', (l) => l.controllerChanged?.(), false);
    data(ZK_PATHS.reassignPartitions, 'reassign', (l) => l.adminRequest?.('reassign'), true);
    data(
      ZK_PATHS.preferredReplicaElection,
      'preferred-election',
      (l) => l.adminRequest?.('preferred-election'),
      true,
    );
    ready.push(
      this.#watchTopics(),
      this.#watchConfigChanges(),
      this.#watchAclChanges(ACL_PATHS.literalChanges, true),
      this.#watchAclChanges(ACL_PATHS.extendedChanges, false),
    );
    await Promise.all(ready);
  }

  close(): void {
    if (this.#closed) return;
    this.#closed = true;
    const c = this.#client;
    c.off('disconnected', this.#onDisconnected);
    c.off('connected', this.#onConnected);
    c.off('newSession', this.#onNewSession);
    for (const s of this.#subs.splice(0)) s.close();
    for (const t of this.#topics.values()) t.sub.close();
    this.#topics.clear();
    this.#listeners.clear();
    this.#pending.clear();
  }

  // -- Subscriptions ---------------------------------------------------------------------------

  #onError = (e: unknown): void => {
    this.#logger.log('warn', 'ZooKeeper metadata watch failed; retrying', { error: String(e) });
  };

  /** Children: the first read is the baseline (`onBaseline`), every later one calls `onChange`. */
  #children(
    path: string,
    onChange: (children: string[]) => void,
    onBaseline?: (children: string[]) => void,
  ): Baselined {
    let first = true;
    let resolve!: () => void;
    const ready = new Promise<void>((r) => {
      resolve = r;
    });
    const sub = watchChildren(
      this.#client,
      path,
      (children) => {
        if (this.#closed) return;
        if (first) {
          first = false;
          onBaseline?.(children ?? []);
          resolve();
        } else onChange(children ?? []);
      },
      { onError: this.#onError },
    );
    return { sub, ready };
  }

  /** Data: the first read is the baseline; a later read whose mzxid differs calls `onChange`. */
  #data(path: string, onChange: (before: DataValue, now: DataValue) => void): Baselined {
    let first = true;
    let last: DataValue = null;
    let resolve!: () => void;
    const ready = new Promise<void>((r) => {
      resolve = r;
    });
    const sub = watchData(
      this.#client,
      path,
      (value) => {
        if (this.#closed) return;
        const before = last;
        last = value;
        if (first) {
          first = false;
          resolve();
        } else if ((before?.stat.mzxid ?? null) !== (value?.stat.mzxid ?? null)) onChange(before, value);
      },
      { onError: this.#onError },
    );
    return { sub, ready };
  }

  #watchTopics(): Promise<void> {
    let baseline!: Promise<void>;
    const b = this.#children(
      ZK_PATHS.topics,
      (names) => {
        this.#topicChain = this.#topicChain.then(async () => {
          await this.#syncTopics(names);
          this.#emit('topics', (l) => l.topicsChanged?.());
        });
      },
      (names) => {
        baseline = this.#syncTopics(names);
      },
    );
    this.#subs.push(b.sub);
    return b.ready.then(() => baseline);
  }

  /** One data watch per topic: opens the new ones (waiting for their baselines), closes the gone ones. */
  async #syncTopics(names: readonly string[]): Promise<void> {
    if (this.#closed) return;
    const wanted = new Set(names);
    for (const [name, t] of this.#topics) {
      if (!wanted.has(name)) {
        t.sub.close();
        this.#topics.delete(name);
      }
    }
    const added: Promise<void>[] = [];
    for (const name of wanted) {
      if (this.#topics.has(name)) continue;
      let path: string;
      try {
        path = topicPath(name);
      } catch {
        continue; // not a name we could have written; nothing to watch
      }
      const t = this.#data(path, (before, now) => {
        if (before !== null && now !== null)
          this.#emit(`assignment/${name}`, (l) => l.assignmentChanged?.(name));
      });
      this.#topics.set(name, t);
      added.push(t.ready);
    }
    await Promise.all(added);
  }

  #watchConfigChanges(): Promise<void> {
    const b = this.#children(
      ZK_PATHS.configChanges,
      (names) => {
        this.#configChain = this.#configChain.then(() => this.#processConfigChanges(names));
      },
      (names) => {
        this.#configSeq = maxSequence(names);
      },
    );
    this.#subs.push(b.sub);
    return b.ready;
  }

  async #processConfigChanges(names: readonly string[]): Promise<void> {
    const fresh = names
      .map((n) => ({ n, seq: sequenceOf(n) }))
      .filter((x) => x.seq > this.#configSeq)
      .sort((a, b) => a.seq - b.seq);
    for (const { n, seq } of fresh) {
      const path = `${ZK_PATHS.configChanges}/${n}`;
      for (;;) {
        if (this.#closed) return;
        try {
          const { data } = await this.#client.getData(path);
          const change = decodeConfigChangeNotification(path, data);
          const entity = changedEntity(change.entityType, change.entityName);
          if (entity !== null)
            this.#emit(`config/${entity.type}/${entity.name}`, (l) => l.configChanged?.(entity));
          break;
        } catch (e) {
          if (isZkError(e, 'NO_NODE')) break; // purged meanwhile
          if (isZkError(e, 'CONNECTION_LOSS', 'SESSION_EXPIRED')) {
            try {
              await this.#client.waitUntilConnected();
            } catch {
              return; // closed
            }
            continue;
          }
          if (isZkError(e, 'CLOSED')) return;
          this.#logger.log('warn', 'skipping an unreadable config change notification', {
            path,
            error: String(e),
          });
          break;
        }
      }
      this.#configSeq = seq;
    }
  }

  #watchAclChanges(path: string, literal: boolean): Promise<void> {
    let seen = -1;
    let chain: Promise<void> = Promise.resolve();
    const b = this.#children(
      path,
      (names) => {
        chain = chain.then(async () => {
          const fresh = names
            .map((n) => ({ n, seq: sequenceOf(n, ACL_CHANGE_PREFIX) }))
            .filter((x) => x.seq > seen)
            .sort((x, y) => x.seq - y.seq);
          for (const { n, seq } of fresh) {
            const resource = decodeAclChange(literal, await this.#readNotification(`${path}/${n}`));
            if (resource !== null) {
              const key = `acls/${resource.patternType}/${resource.resourceType}/${resource.name}`;
              this.#emit(key, (l) => l.aclsChanged?.(resource));
            }
            seen = seq;
          }
          await this.#purgeAclChanges(path, names, seen);
        });
      },
      (names) => {
        seen = maxSequence(names, ACL_CHANGE_PREFIX);
        const baseline = seen;
        chain = chain.then(() => this.#purgeAclChanges(path, names, baseline));
      },
    );
    this.#subs.push(b.sub);
    return b.ready;
  }

  /** Deletes the processed notifications (sequence up to `seen`) older than the expiration. */
  async #purgeAclChanges(path: string, names: readonly string[], seen: number): Promise<void> {
    const listed = new Set(names.map((n) => `${path}/${n}`));
    for (const known of this.#aclChangeCtimes.keys())
      if (known.startsWith(`${path}/`) && !listed.has(known)) this.#aclChangeCtimes.delete(known);
    for (const name of names) {
      const seq = sequenceOf(name, ACL_CHANGE_PREFIX);
      if (seq < 0 || seq > seen || this.#closed) continue;
      const full = `${path}/${name}`;
      try {
        let ctime = this.#aclChangeCtimes.get(full);
        if (ctime === undefined) {
          const stat = await this.#client.exists(full);
          if (stat === null) continue;
          ctime = stat.ctime;
          this.#aclChangeCtimes.set(full, ctime);
        }
        if (this.#now() - ctime <= this.#aclChangeExpirationMs) continue;
        await this.#client.delete(full, -1);
        this.#aclChangeCtimes.delete(full);
      } catch (e) {
        if (isZkError(e, 'NO_NODE')) {
          this.#aclChangeCtimes.delete(full); // another broker purged it first
          continue;
        }
        if (!isZkError(e, 'CLOSED', 'CONNECTION_LOSS', 'SESSION_EXPIRED'))
          this.#logger.log('warn', 'cannot purge an old ACL change notification', {
            path: full,
            error: String(e),
          });
        return; // the next notification tries again
      }
    }
  }

  /** A notification's data; null when it is gone or unreadable (waits out connection losses). */
  async #readNotification(path: string): Promise<Buffer | null> {
    for (;;) {
      if (this.#closed) return null;
      try {
        return (await this.#client.getData(path)).data;
      } catch (e) {
        if (isZkError(e, 'CONNECTION_LOSS', 'SESSION_EXPIRED')) {
          try {
            await this.#client.waitUntilConnected();
          } catch {
            return null;
          }
          continue;
        }
        if (!isZkError(e, 'NO_NODE', 'CLOSED'))
          this.#logger.log('warn', 'skipping an unreadable ACL change notification', {
            path,
            error: String(e),
          });
        return null;
      }
    }
  }

  // -- Delivery ----------------------------------------------------------------------------------

  #emit(key: string, notify: Notify): void {
    if (this.#closed) return;
    if (!this.#pending.has(key)) this.#pending.set(key, notify);
    this.#flushSoon();
  }

  #emitConnection(notify: Notify): void {
    this.#emit(`connection/${++this.#connectionEvents}`, notify);
  }

  #flushSoon(): void {
    if (this.#flushScheduled) return;
    this.#flushScheduled = true;
    setImmediate(() => this.#flush());
  }

  #flush(): void {
    this.#flushScheduled = false;
    const calls = [...this.#pending.values()];
    this.#pending.clear();
    for (const call of calls) {
      for (const l of [...this.#listeners]) {
        try {
          call(l);
        } catch {
          // A listener's failure must not starve the others of their events.
        }
      }
    }
  }
}

function sequenceOf(name: string, prefix = CONFIG_CHANGE_PREFIX): number {
  if (!name.startsWith(prefix)) return -1;
  const n = Number(name.slice(prefix.length));
  return Number.isInteger(n) ? n : -1;
}

function maxSequence(names: readonly string[], prefix = CONFIG_CHANGE_PREFIX): number {
  let max = -1;
  for (const n of names) max = Math.max(max, sequenceOf(n, prefix));
  return max;
}

/**
 * The store entity a `/config/changes` notification names (its names are Kafka's sanitized znode
 * names; `<user>/clients/<client-id>` is a user's client-id entity); null for what the store
 * does not model.
 */
function changedEntity(type: string, name: string): ConfigEntity | null {
  try {
    if (type === 'topics' || type === 'brokers' || type === 'ips') return { type, name };
    if (type === 'clients') return { type, name: desanitizeEntityName(name) };
    if (type !== 'users') return null;
    if (!name.includes('/')) return { type, name: desanitizeEntityName(name) };
    return parseUserClientEntityName(name) === null ? null : { type: 'user-clients', name };
  } catch {
    return null; // a malformed %-escape written by some other tool
  }
}
