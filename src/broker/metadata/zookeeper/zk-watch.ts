// Standing subscriptions over ZooKeeper's one-shot watches: read with a watch, deliver, and read
// again (re-registering) each time the watch fires — including after a session expiry, where the
// old watches are gone and the client re-reads in the new session. What Kafka's controller does
// by hand in every ZNodeChangeHandler / ZNodeChildChangeHandler.
//
// Delivery is "latest state", not "every change": changes between two reads are folded into the
// next read (ZooKeeper watches never report intermediate values either), and the same value may
// be delivered twice (e.g. after a reconnection).

import type { ZkClient, ZkWatcher } from './zk-client.js';
import { isZkError } from './zk-errors.js';
import type { ZkStat } from './zk-stat.js';

export interface ZkSubscription {
  /** Stops deliveries (a watch already registered fires once more, into the void). */
  close(): void;
}

export interface ZkSubscriptionOptions {
  /** Errors other than connection loss / expiry (which are retried silently); retried after 1 s. */
  onError?: (error: unknown) => void;
}

const RETRY_MS = 1000;

type Read<T> = (watch: ZkWatcher) => Promise<{ value: T } | 'again'>;

function subscribe<T>(
  client: ZkClient,
  read: Read<T>,
  deliver: (value: T) => void,
  options: ZkSubscriptionOptions,
): ZkSubscription {
  let closed = false;
  let running = false;
  let again = false;
  const watch: ZkWatcher = (event) => {
    if (event.type === 'CLOSED') closed = true;
    else kick();
  };
  const kick = (): void => {
    if (closed) return;
    again = true;
    if (running) return;
    running = true;
    void loop();
  };
  const loop = async (): Promise<void> => {
    while (again && !closed) {
      again = false;
      try {
        const r = await read(watch);
        if (r === 'again') again = true;
        else if (!closed) deliver(r.value);
      } catch (e) {
        if (closed || isZkError(e, 'CLOSED')) break;
        again = true;
        if (isZkError(e, 'CONNECTION_LOSS', 'SESSION_EXPIRED')) {
          try {
            await client.waitUntilConnected();
          } catch {
            break; // closed, or expired without renewal: nothing left to watch with
          }
        } else {
          options.onError?.(e);
          await new Promise((r) => setTimeout(r, RETRY_MS).unref());
        }
      }
    }
    running = false;
  };
  kick();
  return {
    close() {
      closed = true;
    },
  };
}

/** Delivers the znode's data and stat, or null while it does not exist, now and after each change. */
export function watchData(
  client: ZkClient,
  path: string,
  onData: (value: { data: Buffer | null; stat: ZkStat } | null) => void,
  options: ZkSubscriptionOptions = {},
): ZkSubscription {
  return subscribe(
    client,
    async (watch) => {
      try {
        return { value: await client.getData(path, { watch }) };
      } catch (e) {
        if (!isZkError(e, 'NO_NODE')) throw e;
      }
      // Missing: watch for its creation. If it appeared in between, read it again.
      return (await client.exists(path, { watch })) === null ? { value: null } : 'again';
    },
    onData,
    options,
  );
}

/** Delivers the znode's children (sorted), or null while it does not exist, now and after each change. */
export function watchChildren(
  client: ZkClient,
  path: string,
  onChildren: (children: string[] | null) => void,
  options: ZkSubscriptionOptions = {},
): ZkSubscription {
  return subscribe(
    client,
    async (watch) => {
      try {
        return { value: (await client.getChildren(path, { watch })).sort() };
      } catch (e) {
        if (!isZkError(e, 'NO_NODE')) throw e;
      }
      return (await client.exists(path, { watch })) === null ? { value: null } : 'again';
    },
    onChildren,
    options,
  );
}
