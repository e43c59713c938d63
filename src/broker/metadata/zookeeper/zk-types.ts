// Public types of the ZooKeeper client (zk-client.ts): options, connection states, events, watches.

export interface ZkClientOptions {
  /** Requested session timeout (the server clamps it to its min/max). Kafka's default: 18000. */
  sessionTimeoutMs?: number;
  /** How long connect() waits for a session before failing. Default: sessionTimeoutMs. */
  connectionTimeoutMs?: number;
  /** Create the chroot of the connect string if missing (Kafka brokers do). Default false. */
  createChroot?: boolean;
  /** Open a new session when the current one expires. Default true. */
  renewExpiredSession?: boolean;
  /** Join an existing session instead of opening one (ZooKeeper's own way to expire a session in tests). */
  session?: { readonly id: bigint; readonly password: Buffer };
  /**
   * Told the time in ms from sending each request to its answer (errors included; not a
   * request failed locally by an expiry or close): Kafka's ZooKeeperRequestLatencyMs.
   */
  onRequestLatency?: (ms: number) => void;
}

export type ZkConnectionState = 'CONNECTING' | 'CONNECTED' | 'DISCONNECTED' | 'EXPIRED' | 'CLOSED';

export type ZkWatchEventType =
  | 'NODE_CREATED'
  | 'NODE_DELETED'
  | 'NODE_DATA_CHANGED'
  | 'NODE_CHILDREN_CHANGED'
  /** The watch's session expired: it will never fire; re-read and re-register. */
  | 'SESSION_EXPIRED'
  /** The client was closed. */
  | 'CLOSED';

export interface ZkWatchEvent {
  readonly type: ZkWatchEventType;
  readonly path: string;
}

/** A one-shot watcher: called at most once per registration, asynchronously. */
export type ZkWatcher = (event: ZkWatchEvent) => void;

export interface ZkClientEvents {
  /** A connection (first or re-established) with `sessionId`. */
  connected: [sessionId: bigint];
  /** The connection broke; the session lives on until the session timeout. */
  disconnected: [];
  /** The session `sessionId` expired: its ephemerals and watches are gone. */
  expired: [sessionId: bigint];
  /** After an expiry, a new session is connected (only with renewExpiredSession). */
  newSession: [sessionId: bigint];
  closed: [];
}
