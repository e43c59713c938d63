// `listeners`, `advertised.listeners`, `listener.security.protocol.map` and the inter-broker
// listener, checked with Kafka's rules (KafkaConfig / EndPoint) and, where Kafka has one, its
// message. Listener names are upper-cased as Kafka normalises them. A SASL inter-broker listener's
// own identity is checked with the listener's SASL settings (`listener-sasl-config.ts`).

import { parseList } from './config-def.js';
import { ConfigError } from './config-error.js';

export const SECURITY_PROTOCOLS = ['PLAINTEXT', 'SSL', 'SASL_PLAINTEXT', 'SASL_SSL'] as const;
export type SecurityProtocol = (typeof SECURITY_PROTOCOLS)[number];

export interface ListenerEndpoint {
  /** Upper-case listener name, e.g. `PLAINTEXT`, `INTERNAL`. */
  readonly name: string;
  readonly securityProtocol: SecurityProtocol;
  /** '' = every interface (bind) or the machine's name (advertised). */
  readonly host: string;
  /** 0 = an ephemeral port (bind), or the bound one (advertised). */
  readonly port: number;
}

export interface ListenersConfig {
  /** What to bind, in `listeners` order. */
  readonly listeners: readonly ListenerEndpoint[];
  /** What to register and give to clients (defaults to `listeners`). */
  readonly advertised: readonly ListenerEndpoint[];
  /** The listener brokers and the controller connect to each other over. */
  readonly interBrokerListener: string;
}

const ENDPOINT = /^(.*):\/\/\[?([0-9a-zA-Z\-%._:]*)\]?:(-?[0-9]+)$/;

export function isSecurityProtocol(s: string): s is SecurityProtocol {
  return (SECURITY_PROTOCOLS as readonly string[]).includes(s);
}

export function parseSecurityProtocolMap(value: string): Map<string, SecurityProtocol> {
  const map = new Map<string, SecurityProtocol>();
  for (const entry of parseList(value)) {
    const colon = entry.lastIndexOf(':');
    const name = entry.slice(0, colon).trim().toUpperCase();
    const protocol = entry
      .slice(colon + 1)
      .trim()
      .toUpperCase();
    const bad = (why: string) =>
      new ConfigError(`Invalid value ${value} for configuration listener.security.protocol.map: ${why}`);
    if (colon <= 0 || name === '')
      throw bad(`${JSON.stringify(entry)} is not LISTENER_NAME:SECURITY_PROTOCOL`);
    if (!isSecurityProtocol(protocol))
      throw bad(`unknown security protocol ${protocol} (one of ${SECURITY_PROTOCOLS.join(', ')})`);
    map.set(name, protocol);
  }
  return map;
}

/** A `listeners`-style list; `distinctPorts` as Kafka (true for `listeners` only). */
export function parseEndpoints(
  value: string,
  protocols: ReadonlyMap<string, SecurityProtocol>,
  distinctPorts: boolean,
): ListenerEndpoint[] {
  const fail = (why: string) => new ConfigError(`Error creating broker listeners from '${value}': ${why}`);
  const endpoints = parseList(value).map((entry): ListenerEndpoint => {
    const m = ENDPOINT.exec(entry);
    if (!m) throw fail(`Unable to parse ${entry} to a broker endpoint`);
    const name = m[1]!.toUpperCase();
    const port = Number(m[3]);
    if (port < 0 || port > 65535) throw fail(`Invalid port in ${entry}`);
    const securityProtocol = protocols.get(name);
    if (securityProtocol === undefined) throw fail(`No security protocol defined for listener ${name}`);
    return { name, securityProtocol, host: m[2]!, port };
  });
  if (endpoints.length === 0) throw fail('no listener');
  if (new Set(endpoints.map((e) => e.name)).size !== endpoints.length)
    throw new ConfigError(`Each listener must have a different name, listeners: ${value}`);
  const ports = endpoints.map((e) => e.port).filter((p) => p !== 0);
  if (distinctPorts && new Set(ports).size !== ports.length)
    throw new ConfigError(`Each listener must have a different port, listeners: ${value}`);
  return endpoints;
}

/** `get(key)` is the value (default included); `isSet(key)` whether the operator gave it. */
export function resolveListeners(
  get: (key: string) => string | null,
  isSet: (key: string) => boolean,
): ListenersConfig {
  const protocols = parseSecurityProtocolMap(get('listener.security.protocol.map') ?? '');
  const listenersValue = get('listeners') ?? '';
  const listeners = parseEndpoints(listenersValue, protocols, true);
  const advertisedValue = get('advertised.listeners');
  const advertised = advertisedValue ? parseEndpoints(advertisedValue, protocols, false) : listeners;
  const names = listeners.map((l) => l.name);
  const stray = advertised.filter((a) => !names.includes(a.name)).map((a) => a.name);
  if (stray.length > 0)
    throw new ConfigError(
      `advertised.listeners listener names must be equal to or a subset of the ones defined in listeners. ` +
        `Found ${stray.join(',')}. The valid options based on the current configuration are ${names.join(',')}`,
    );
  if (advertisedValue && advertised.some((a) => a.host === '0.0.0.0' || a.host === '::'))
    throw new ConfigError(
      'advertised.listeners cannot use the nonroutable meta-address 0.0.0.0. Use a routable IP address.',
    );
  if (isSet('inter.broker.listener.name') && isSet('security.inter.broker.protocol'))
    throw new ConfigError(
      'Only one of inter.broker.listener.name and security.inter.broker.protocol should be set.',
    );
  const interBrokerListener = (
    get('inter.broker.listener.name') ??
    get('security.inter.broker.protocol') ??
    'PLAINTEXT'
  ).toUpperCase();
  if (!advertised.some((a) => a.name === interBrokerListener))
    throw new ConfigError(
      `inter.broker.listener.name must be a listener name defined in advertised.listeners. ` +
        `The valid options based on currently configured listeners are ${advertised.map((a) => a.name).join(',')}`,
    );
  return { listeners, advertised, interBrokerListener };
}
