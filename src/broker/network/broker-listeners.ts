// Every listener of a broker: one SocketServer per `listeners` entry, all bound before the broker
// registers, and the endpoints it registers (`advertised.listeners`, an empty host or port taking
// the bound one's, as Kafka's ZooKeeper-mode broker does). `prepareListeners` runs before anything
// else starts, so a listener the broker cannot serve as configured (an SSL listener without a
// usable keystore, a SASL listener without users) stops the start with one line instead of
// serving something weaker.

import { hostname } from 'node:os';
import type { Worker } from 'node:worker_threads';
import { type BrokerConfig, bindAddress } from '../config/broker-config.js';
import { listenerSaslConfig } from '../config/listener-sasl-config.js';
import type { ListenerEndpoint } from '../config/listeners.js';
import type { ConnectionQuotas } from './connection-quotas.js';
import { type ListenerIdentity, SocketServer, type SocketServerOptions } from './socket-server.js';
import { NetworkThreads } from './threads/network-threads.js';
import { tlsListener } from './tls-listener.js';

export interface PreparedListener {
  readonly endpoint: ListenerEndpoint;
  readonly identity: ListenerIdentity;
}

/** An endpoint as brokers register it (`/brokers/ids/<id>`, UpdateMetadata). */
export interface RegisteredEndpoint {
  readonly listener: string;
  readonly securityProtocol: string;
  readonly host: string;
  readonly port: number;
}

export function prepareListeners(config: BrokerConfig): PreparedListener[] {
  return config.listeners.listeners.map((endpoint) => ({
    endpoint,
    identity: {
      name: endpoint.name,
      securityProtocol: endpoint.securityProtocol,
      ...(endpoint.securityProtocol === 'SSL' || endpoint.securityProtocol === 'SASL_SSL'
        ? { tls: tlsListener(endpoint, config.props) }
        : {}),
      ...(endpoint.securityProtocol === 'SASL_PLAINTEXT' || endpoint.securityProtocol === 'SASL_SSL'
        ? { sasl: listenerSaslConfig(config.props, endpoint.name) }
        : {}),
    },
  }));
}

export interface ListenerServerOptions
  extends Omit<SocketServerOptions, 'host' | 'port' | 'listener' | 'connectionQuotas'> {
  readonly connectionQuotas?: ConnectionQuotas;
  /**
   * `num.network.threads` > 1: the sockets go to network threads (`threads/`), the event loop
   * only handles requests. Absent or `threads` 1: the event loop does everything.
   */
  readonly networkThreads?: {
    readonly threads: number;
    /** The dispatcher's pipelining table (`pipelineTable`). */
    readonly pipelinable: readonly number[];
    readonly quotasEnabled: () => boolean;
  };
}

/** A bound listener: a `SocketServer`, or one served by network threads. */
export interface ListenerServer {
  readonly listener: ListenerIdentity;
  readonly host: string;
  readonly port: number;
  readonly connectionCount: number;
}

export class BrokerListeners {
  private constructor(
    readonly servers: readonly ListenerServer[],
    private readonly closeAll: () => Promise<void>,
    /** The network threads' workers; none when the event loop does the network work. */
    readonly networkWorkers: () => readonly Worker[] = () => [],
  ) {}

  /** Binds every listener; if one cannot bind, the others are closed again. */
  static async open(
    prepared: readonly PreparedListener[],
    options: ListenerServerOptions,
  ): Promise<BrokerListeners> {
    const threads = options.networkThreads;
    if (threads !== undefined && threads.threads > 1) {
      const { networkThreads: _, buffers: __, ...rest } = options;
      const served = await NetworkThreads.start({
        ...rest,
        ...threads,
        listeners: prepared.map((p) => ({ identity: p.identity, ...bindAddress(p.endpoint) })),
      });
      return new BrokerListeners(
        served.listeners,
        () => served.close(),
        () => served.workers,
      );
    }
    const servers: SocketServer[] = [];
    try {
      for (const p of prepared) {
        const server = new SocketServer({ ...options, ...bindAddress(p.endpoint), listener: p.identity });
        await server.listen();
        servers.push(server);
      }
    } catch (e) {
      await Promise.all(servers.map((s) => s.close()));
      throw e;
    }
    return new BrokerListeners(servers, async () => {
      await Promise.all(servers.map((s) => s.close()));
    });
  }

  server(listenerName: string): ListenerServer | undefined {
    return this.servers.find((s) => s.listener.name === listenerName);
  }

  /** What this broker registers: each advertised listener, completed from its bound socket. */
  endpoints(config: BrokerConfig): RegisteredEndpoint[] {
    return config.listeners.advertised.map((a) => {
      const bound = this.server(a.name)!;
      return {
        listener: a.name,
        securityProtocol: a.securityProtocol,
        host: a.host === '' ? advertisableHost(bound.host) : a.host,
        port: a.port > 0 ? a.port : bound.port,
      };
    });
  }

  get connectionCount(): number {
    return this.servers.reduce((n, s) => n + s.connectionCount, 0);
  }

  close(): Promise<void> {
    return this.closeAll();
  }
}

/** A wildcard bind address cannot be given to clients; use the machine's name instead. */
function advertisableHost(bound: string): string {
  return bound === '0.0.0.0' || bound === '::' ? hostname() : bound;
}
