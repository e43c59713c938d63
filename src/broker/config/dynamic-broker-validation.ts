// Kafka's checks of a new set of dynamic broker configs (DynamicBrokerConfig.validateConfigs), in
// Kafka's order and with its messages: Kafka keys that are not dynamic, SSL keys without their
// listener prefix, values of the wrong type or range, then (cluster default only) per-broker
// keys. Keys no Kafka broker knows are custom configs and pass, as in Kafka
// (DynamicConfig.Broker.validate allows custom props). The messages quote the keys as a Scala
// Set prints, since clients show them verbatim.

import { validateConfigValue } from './config-def.js';
import { dynamicMode, LISTENER_PREFIX_ONLY, listenerOverrideBase } from './dynamic-broker-keys.js';
import { DESCRIBED_BROKER_CONFIGS } from './inert-broker-configs.js';
import { KAFKA_BROKER_KEYS } from './kafka-broker-keys.js';

/** A refused set of configs; the caller adds the resource to the message. */
export class DynamicConfigError extends Error {}

/** Families of Kafka broker keys listed by prefix only (kafka-broker-keys.ts). */
const KAFKA_KEY_FAMILIES = ['ssl.', 'sasl.', 'zookeeper.ssl.'];

function isKafkaBrokerKey(name: string): boolean {
  if (listenerOverrideBase(name) !== null) return false;
  return (
    DESCRIBED_BROKER_CONFIGS.has(name) ||
    KAFKA_BROKER_KEYS.has(name) ||
    KAFKA_KEY_FAMILIES.some((p) => name.startsWith(p))
  );
}

function scalaSet(names: readonly string[]): string {
  return `${names.length > 4 ? 'HashSet' : 'Set'}(${names.join(', ')})`;
}

function refuse(names: readonly string[], message: string): void {
  if (names.length > 0) throw new DynamicConfigError(`${message}: ${scalaSet(names)}`);
}

/**
 * Checks `configs` (the resource's complete new set; null values mean "remove") for the
 * resource `<broker id>` (`perBroker`) or the cluster default, and returns the values to store.
 */
export function validateDynamicBrokerConfigs(
  configs: Readonly<Record<string, string | null>>,
  perBroker: boolean,
): Record<string, string> {
  const set = Object.entries(configs).filter((e): e is [string, string] => e[1] !== null);
  const names = set.map(([n]) => n);
  refuse(
    names.filter((n) => isKafkaBrokerKey(n) && dynamicMode(n) === null),
    'Cannot update these configs dynamically',
  );
  refuse(
    names.filter((n) => LISTENER_PREFIX_ONLY.has(n)),
    'These security configs can be dynamically updated only per-listener using the listener prefix',
  );
  const out: Record<string, string> = {};
  for (const [name, value] of set) {
    const def = DESCRIBED_BROKER_CONFIGS.get(name);
    const err = def === undefined ? null : validateConfigValue(def, value);
    if (err !== null) throw new DynamicConfigError(err);
    out[name] = def === undefined ? value : value.trim();
  }
  if (!perBroker) {
    refuse(
      names.filter((n) => dynamicMode(n) === 'per-broker'),
      'Cannot update these configs at default cluster level, broker id must be specified',
    );
  }
  return out;
}
