// Startup warnings about the broker's config keys, as Kafka logs them: a key no Kafka broker
// knows gets "was supplied but isn't a known config" (plus the closest real key), and the Kafka
// keys samsa accepts but does not act on (num.io.threads, …) are named once, so nobody
// believes a setting works when it is only tolerated.

import { BROKER_CONFIGS } from '../broker/config/broker-configs.js';
import { KAFKA_BROKER_KEY_PREFIXES, KAFKA_BROKER_KEYS } from '../broker/config/kafka-broker-keys.js';
import { TOPIC_CONFIGS } from '../broker/config/topic-configs.js';
import { AUTHORIZER_KEYS } from '../broker/security/authorizer-config.js';
import { didYouMean } from './suggest.js';

export interface ConfigKeyReport {
  /** One line per key that neither samsa nor Kafka knows. */
  readonly unknown: string[];
  /** Kafka broker keys that samsa accepts without acting on them. */
  readonly noEffect: string[];
}

/** Keys a `listener.name.<l>.` prefix overrides for that listener (listener-ssl/sasl-config.ts). */
const PER_LISTENER =
  /^(ssl\.[a-z.]+|sasl\.enabled\.mechanisms|connections\.max\.reauth\.ms|connection\.failed\.authentication\.delay\.ms|plain\.sasl\.jaas\.config)$/;

/** `listener.name.<l>.<key>` that samsa reads for that listener. */
function actsPerListener(key: string): boolean {
  const m = /^listener\.name\.[^.]+\.(.+)$/.exec(key);
  if (!m) return false;
  const rest = m[1]!;
  return PER_LISTENER.test(rest) && (rest.includes('jaas') || BROKER_CONFIGS.has(rest));
}

export function configKeyReport(keys: Iterable<string>): ConfigKeyReport {
  const unknown: string[] = [];
  const noEffect: string[] = [];
  const candidates = [...new Set([...BROKER_CONFIGS.keys(), ...KAFKA_BROKER_KEYS])];
  for (const key of keys) {
    if (BROKER_CONFIGS.has(key) || actsPerListener(key) || AUTHORIZER_KEYS.includes(key)) continue;
    if (KAFKA_BROKER_KEYS.has(key) || KAFKA_BROKER_KEY_PREFIXES.some((p) => key.startsWith(p))) {
      noEffect.push(key);
      continue;
    }
    const topicDef = TOPIC_CONFIGS.get(key);
    const hint = topicDef?.synonyms[0]
      ? ` (${key} is a topic config; its broker-wide default is ${topicDef.synonyms[0].name})`
      : didYouMean(key, candidates, (s) => `'${s}'`);
    unknown.push(`The configuration '${key}' was supplied but isn't a known config${hint}`);
  }
  return { unknown, noEffect };
}
