// `max.connections`, `max.connections.per.ip` and `max.connections.per.ip.overrides`
// (`host:count,host:count`, Kafka's map syntax) as the connection quotas use them, with Kafka's
// checks: a count is a non-negative int, and a per-IP limit of 0 needs overrides (else no client
// could ever connect).

import type { ConfigResolver } from './config-resolver.js';

export interface ConnectionLimits {
  /** Broker-wide limit, all listeners but a protected inter-broker one. */
  readonly maxConnections: number;
  /** `listener.name.<l>.max.connections`, by upper-case listener name. */
  readonly listenerMaxConnections: ReadonlyMap<string, number>;
  readonly maxConnectionsPerIp: number;
  /** Host (name or address, as configured) → its limit. */
  readonly perIpOverrides: ReadonlyMap<string, number>;
}

/** Parses `host:count,…`; throws with Kafka-like text on a malformed entry. */
export function parseIpOverrides(value: string): Map<string, number> {
  const out = new Map<string, number>();
  for (const raw of value.split(',')) {
    const entry = raw.trim();
    if (entry === '') continue;
    const colon = entry.lastIndexOf(':');
    const host = colon < 0 ? '' : entry.slice(0, colon).trim();
    const count = colon < 0 ? '' : entry.slice(colon + 1).trim();
    if (host === '' || !/^\d+$/.test(count) || Number(count) > 0x7fffffff)
      throw new Error(`Map entry '${entry}' is invalid. The format should be 'key:value'`);
    out.set(host.replace(/^\[(.*)\]$/, '$1'), Number(count));
  }
  return out;
}

export function validateIpOverrides(value: string): string | null {
  try {
    parseIpOverrides(value);
    return null;
  } catch (e) {
    return (e as Error).message;
  }
}

const INT_MAX = 0x7fffffff;

function intValue(v: string | null): number {
  const n = v === null ? Number.NaN : Number(v);
  return Number.isInteger(n) && n >= 0 ? n : INT_MAX;
}

/** The effective limits (static, dynamic cluster default or per-broker value, Kafka's order). */
export function connectionLimits(
  configs: ConfigResolver,
  listenerNames: readonly string[],
): ConnectionLimits {
  const listenerMaxConnections = new Map<string, number>();
  for (const name of listenerNames) {
    const v = configs.brokerValue(`listener.name.${name.toLowerCase()}.max.connections`);
    if (v !== null) listenerMaxConnections.set(name, intValue(v));
  }
  let perIpOverrides = new Map<string, number>();
  try {
    perIpOverrides = parseIpOverrides(configs.brokerValue('max.connections.per.ip.overrides') ?? '');
  } catch {
    // refused when set (validateIpOverrides); an unparsable stored value means no overrides
  }
  return {
    maxConnections: intValue(configs.brokerValue('max.connections')),
    listenerMaxConnections,
    maxConnectionsPerIp: intValue(configs.brokerValue('max.connections.per.ip')),
    perIpOverrides,
  };
}
