// What node-zookeeper-client 1.1.3 lacks to be trusted with a broker's session, added from the
// outside through its ConnectionManager (all the internals we touch are named in
// `ConnectionManagerInternals`; if they are missing we do nothing rather than break):
//
// 1. A read timeout. The library pings when the socket is idle but never notices that the server
//    stopped answering: a stopped server, a half-open connection, or a connection the server
//    stopped serving after the session was closed elsewhere (measured: the client then waits
//    forever, with every request unanswered). ZooKeeper's Java client drops the connection when
//    nothing arrived for 2/3 of the session timeout and reconnects, which is where it learns that
//    its session expired. We do the same.
// 2. A close that really stops. `close()` on a client that is not connected leaves a pending
//    reconnect timer that later opens a socket (and a fresh session) on its own.

import type { Socket } from 'node:net';
import type { Client } from 'node-zookeeper-client';

/** ConnectionManager states (lib/ConnectionManager.js STATES). */
const CM_CONNECTING = 1;
const CM_CONNECTED = 2;
const CM_CONNECTED_READ_ONLY = 3;
const CM_CLOSING = -1;
const CM_CLOSED = -2;

interface ConnectionManagerInternals {
  socket?: Socket;
  sessionTimeout: number;
  state: number;
  connectTimeoutHandler: ReturnType<typeof setTimeout> | null;
  onSocketData: (buf: Buffer) => void;
  onSocketConnected: () => void;
  connect: () => void;
  on(event: 'state', listener: (state: number) => void): unknown;
  removeListener(event: 'state', listener: (state: number) => void): unknown;
}

function internals(client: Client): ConnectionManagerInternals | null {
  const cm = (client as unknown as { connectionManager?: Partial<ConnectionManagerInternals> })
    .connectionManager;
  if (
    !cm ||
    typeof cm.onSocketData !== 'function' ||
    typeof cm.onSocketConnected !== 'function' ||
    typeof cm.connect !== 'function' ||
    typeof cm.on !== 'function' ||
    typeof cm.sessionTimeout !== 'number'
  )
    return null;
  return cm as ConnectionManagerInternals;
}

export interface Watchdog {
  stop(): void;
}

/**
 * Drops the connection when nothing was received for 2/3 of the (negotiated) session timeout
 * while connected or mid-handshake; the library then reconnects with the same session, or learns
 * that it expired. Pings (every 1/3 of the timeout when idle) keep a healthy connection busy.
 */
export function installReadTimeout(client: Client): Watchdog {
  const cm = internals(client);
  if (!cm) return { stop() {} };
  let last = Date.now();
  const original = cm.onSocketData;
  // The library binds socket listeners at connect time from the instance, so an own property wins.
  cm.onSocketData = function (this: ConnectionManagerInternals, buf: Buffer) {
    last = Date.now();
    original.call(this, buf);
  };
  const onState = (): void => {
    last = Date.now();
  };
  cm.on('state', onState);
  const period = Math.max(50, Math.min(500, Math.floor(cm.sessionTimeout / 10)));
  const timer = setInterval(() => {
    const live =
      cm.state === CM_CONNECTING || cm.state === CM_CONNECTED || cm.state === CM_CONNECTED_READ_ONLY;
    const socket = cm.socket;
    if (!live || !socket || socket.destroyed || socket.connecting) return;
    if (Date.now() - last > (cm.sessionTimeout * 2) / 3) {
      last = Date.now();
      socket.destroy(); // → 'close' → the library fails pending requests with CONNECTION_LOSS and reconnects
    }
  }, period);
  timer.unref();
  return {
    stop() {
      clearInterval(timer);
      cm.removeListener('state', onState);
    },
  };
}

/** True once the library's connection manager reached CLOSED (after close() or an expiry). */
export function isClosed(client: Client): boolean {
  const cm = internals(client);
  return cm ? cm.state === CM_CLOSED : true;
}

/**
 * Makes sure a handle never touches the network again: no reconnect, no pending connect timer,
 * a socket that a late timer opens is destroyed at once. Call after close() (or instead of it,
 * when the session is gone or was never established).
 */
export function abandon(client: Client): void {
  const cm = internals(client);
  if (!cm || (cm.state !== CM_CLOSED && cm.state !== CM_CLOSING)) {
    try {
      client.close();
    } catch {
      // close() asserts nothing we rely on; a throw here must not stop the cleanup below.
    }
  }
  if (!cm) return;
  cm.connect = () => {};
  cm.onSocketConnected = function (this: ConnectionManagerInternals) {
    this.socket?.destroy();
  };
  if (cm.connectTimeoutHandler) clearTimeout(cm.connectTimeoutHandler);
  cm.connectTimeoutHandler = null;
  cm.socket?.destroy();
}
