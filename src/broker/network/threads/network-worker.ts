// A network thread (`num.network.threads` > 1): owns listening sockets and every connection they
// accept — reads, framing, the memory budget, ordering, writes — with the single-thread broker's
// own `SocketServer` and `Connection`. Only handling happens elsewhere: each request goes to the
// event loop (`RemoteHandler`), which owns all broker state. This file is the thread's entry.

import { readlinkSync } from 'node:fs';
import { parentPort, workerData } from 'node:worker_threads';
import type { Logger, LogLevel } from '../../logger.js';
import { type ListenerIdentity, SocketServer } from '../socket-server.js';
import { FramePool } from './frame-pool.js';
import { MessageBatcher, type ToMain, type ToWorker, type WorkerSetup } from './messages.js';
import { RemoteHandler, RemoteQuotas, RequestLink } from './remote-handler.js';

const port = parentPort!;
const setup = workerData as WorkerSetup;
const out = new MessageBatcher<ToMain>((items, transfer) => port.postMessage(items, transfer));

const levels = new Set(setup.logLevels);
const logger: Logger = {
  enabled: (level) => levels.has(level),
  log(level: LogLevel, msg: string, fields?: Readonly<Record<string, unknown>>) {
    if (!levels.has(level)) return;
    out.push({ t: 'log', level, msg, ...(fields ? { fields: plain(fields) } : {}) });
  },
};

/** Log fields as a message can carry them (an Error's message; no functions). */
function plain(fields: Readonly<Record<string, unknown>>): Record<string, unknown> {
  const r: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(fields)) r[k] = v instanceof Error ? v.message : v;
  return r;
}

const frames = new FramePool();
const link = new RequestLink(out, frames, setup.pipelinable, setup.quotasEnabled);
const indexOf = (name: string) => setup.listeners.findIndex((l) => l.name === name);
const quotas = setup.quotas ? new RemoteQuotas(out, indexOf) : undefined;
const servers: SocketServer[] = [];

/** This thread's id in /proc (for `top -H`, per-thread CPU); -1 where there is no /proc. */
function threadId(): number {
  try {
    return Number(readlinkSync('/proc/thread-self').split('/').at(-1));
  } catch {
    return -1;
  }
}

async function start(): Promise<void> {
  logger.log('info', 'network thread started', { networkThread: setup.index, tid: threadId() });
  for (let l = 0; l < setup.listeners.length; l++) {
    const listener = setup.listeners[l]!;
    if (!listener.bind) continue;
    const identity: ListenerIdentity = {
      name: listener.name,
      securityProtocol: listener.securityProtocol,
      ...(listener.tls ? { tls: listener.tls } : {}),
    };
    const handler = new RemoteHandler(link, l, listener.saslMaxReceiveBytes);
    const server = new SocketServer({
      host: listener.host,
      port: listener.port,
      reusePort: listener.reusePort,
      pauseOnConnect: true,
      maxRequestBytes: setup.maxRequestBytes,
      queuedMaxRequestBytes: setup.queuedMaxRequestBytes,
      idleMs: setup.idleMs,
      maxConnections: setup.maxConnections,
      handler,
      logger,
      buffers: frames,
      ...(setup.maxBacklogBytes !== undefined ? { maxBacklogBytes: setup.maxBacklogBytes } : {}),
      ...(setup.shutdownTimeoutMs !== undefined ? { shutdownTimeoutMs: setup.shutdownTimeoutMs } : {}),
      listener: identity,
      ...(quotas ? { connectionQuotas: quotas } : {}),
      onConnectionClosed: (ctx) => handler.closed(ctx),
    });
    try {
      await server.listen();
    } catch (e) {
      const err = e as NodeJS.ErrnoException;
      out.push({ t: 'bind-failed', l, error: err.message, ...(err.code ? { code: err.code } : {}) });
      continue;
    }
    servers.push(server);
    out.push({ t: 'bound', l, host: server.host, port: server.port });
  }
}

async function stop(): Promise<void> {
  await Promise.all(servers.map((s) => s.close()));
  frames.close();
  out.push({ t: 'stopped' });
  out.flush();
  port.close();
}

port.on('message', (items: ToWorker[]) => {
  for (const m of items) {
    switch (m.t) {
      case 'outcome':
        link.answer(m);
        break;
      case 'admit':
        quotas?.decided(m.q, m.outcome);
        break;
      case 'make-room':
        quotas?.makeRoom(setup.listeners[m.l]!.name);
        break;
      case 'quotas-enabled':
        link.enableQuotas();
        break;
      case 'stop':
        void stop();
        break;
    }
  }
});

void start();
