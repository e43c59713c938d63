// Every listener of a broker: one SocketServer per `listeners` entry, all bound before the broker
// registers, and the endpoints it registers (`advertised.listeners`, an empty host or port taking
// the bound one's, as Kafka's ZooKeeper-mode broker does). `prepareListeners` runs before anything
// else starts, so a listener the broker cannot serve as configured (an SSL listener without a
// usable keystore, a SASL listener without users) stops the start with one line instead of
// serving something weaker.

import { hostname } from 'node:os';
import { type BrokerConfig, bindAddress } from '../config/broker-config.js';
import { listenerSaslConfig } from '../config/listener-sasl-config.js';
import type { ListenerEndpoint } from '../config/listeners.js';
import { type ListenerIdentity, SocketServer, type SocketServerOptions } from './socket-server.js';
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

export type ListenerServerOptions = Omit<SocketServerOptions, 'host' | 'port' | 'listener'>;

export class BrokerListeners {
  private constructor(readonly servers: readonly SocketServer[]) {}

  /** Binds every listener; if one cannot bind, the others are closed again. */
  static async open(
    prepared: readonly PreparedListener[],
    options: ListenerServerOptions,
  ): Promise<BrokerListeners> {
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
    return new BrokerListeners(servers);
  }

  server(listenerName: string): SocketServer | undefined {
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

  async close(): Promise<void> {
    await Promise.all(this.servers.map((s) => s.close()));
  }
}

/** A wildcard bind address cannot be given to clients; use the machine's name instead. */
function advertisableHost(bound: string): string {
  return bound === '0.0.0.0' || bound === '::' ? hostname() : bound;
}
