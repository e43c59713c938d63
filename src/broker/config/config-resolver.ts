// Resolves effective config values and their sources the way Kafka's DescribeConfigs reports
// them. Precedence for a topic config: topic override → dynamic per-broker value of a synonym →
// dynamic cluster default → static broker value (server.properties / flags) → Kafka default.
// For broker configs the same chain without the topic level.

import { ConfigSource, type ConfigType } from './config-def.js';
import { dynamicMode } from './dynamic-broker-keys.js';
import { DESCRIBED_BROKER_CONFIGS as BROKER_CONFIGS } from './inert-broker-configs.js';
import { TOPIC_CONFIGS, type TopicConfigDef } from './topic-configs.js';

export interface ConfigSynonymEntry {
  readonly name: string;
  readonly value: string | null;
  readonly source: number;
}

export interface ConfigEntry {
  readonly name: string;
  readonly value: string | null;
  readonly source: number;
  readonly type: ConfigType;
  readonly readOnly: boolean;
  readonly isSensitive: boolean;
  readonly documentation: string;
  /** Most specific first, including the entry's own source. */
  readonly synonyms: readonly ConfigSynonymEntry[];
}

export interface DynamicBrokerConfigs {
  /** Cluster-wide dynamic defaults (resource name ''). */
  readonly cluster: Readonly<Record<string, string>>;
  /** This broker's dynamic values. */
  readonly broker: Readonly<Record<string, string>>;
}

/**
 * Kafka's DynamicBrokerConfig.brokerConfigSynonyms: the broker keys that configure the same
 * thing, most specific first (log.flush.scheduler.interval.ms is the default of
 * log.flush.interval.ms, not the other way round).
 */
export function brokerSynonyms(name: string): readonly string[] {
  for (const group of SYNONYM_GROUPS) if (group.includes(name)) return group;
  if (name === 'log.flush.interval.ms') return ['log.flush.interval.ms', 'log.flush.scheduler.interval.ms'];
  return [name];
}

const SYNONYM_GROUPS: readonly (readonly string[])[] = [
  ['log.roll.ms', 'log.roll.hours'],
  ['log.roll.jitter.ms', 'log.roll.jitter.hours'],
  ['log.retention.ms', 'log.retention.minutes', 'log.retention.hours'],
];

export class ConfigResolver {
  constructor(
    private readonly staticProps: ReadonlyMap<string, string>,
    private readonly dynamic: () => DynamicBrokerConfigs,
  ) {}

  /** Every source of a broker key, most specific first (without the Kafka default). */
  private brokerSources(name: string): ConfigSynonymEntry[] {
    const d = this.dynamic();
    const out: ConfigSynonymEntry[] = [];
    if (d.broker[name] !== undefined)
      out.push({ name, value: d.broker[name]!, source: ConfigSource.DYNAMIC_BROKER_CONFIG });
    if (d.cluster[name] !== undefined)
      out.push({ name, value: d.cluster[name]!, source: ConfigSource.DYNAMIC_DEFAULT_BROKER_CONFIG });
    const s = this.staticProps.get(name);
    if (s !== undefined) out.push({ name, value: s, source: ConfigSource.STATIC_BROKER_CONFIG });
    return out;
  }

  /** Effective value of a broker key (null when unset with no default). */
  brokerValue(name: string): string | null {
    return this.brokerSources(name)[0]?.value ?? BROKER_CONFIGS.get(name)?.default ?? null;
  }

  /**
   * Kafka's ConfigHelper.configSynonyms: every source of `names` (dynamic per-broker, dynamic
   * cluster default, static, Kafka default; each in synonym order), then only the entries from
   * the first one named `name` on. So `log.retention.ms` lists `log.retention.hours` after
   * itself, but a value that comes from `log.retention.hours` alone gives `log.retention.ms` (and
   * the topic's `retention.ms`) no synonyms and the DEFAULT_CONFIG source, exactly as Kafka.
   */
  private configSynonyms(name: string, names: readonly string[]): ConfigSynonymEntry[] {
    const d = this.dynamic();
    const all: ConfigSynonymEntry[] = [];
    const add = (map: (n: string) => string | null | undefined, source: number) => {
      for (const n of names) {
        const value = map(n);
        if (value !== undefined && value !== null) all.push({ name: n, value, source });
      }
    };
    add((n) => d.broker[n], ConfigSource.DYNAMIC_BROKER_CONFIG);
    add((n) => d.cluster[n], ConfigSource.DYNAMIC_DEFAULT_BROKER_CONFIG);
    add((n) => this.staticProps.get(n), ConfigSource.STATIC_BROKER_CONFIG);
    add((n) => BROKER_CONFIGS.get(n)?.default, ConfigSource.DEFAULT_CONFIG);
    const first = all.findIndex((e) => e.name === name);
    return first < 0 ? [] : all.slice(first);
  }

  describeBroker(names: readonly string[] | null): ConfigEntry[] {
    const d = this.dynamic();
    const set = (n: string) =>
      this.staticProps.has(n) || d.broker[n] !== undefined || d.cluster[n] !== undefined;
    const listed = [...BROKER_CONFIGS.values()]
      .filter((c) => c.describedWhenUnset !== false)
      .map((c) => c.name);
    const keys =
      names ??
      [
        ...new Set([
          ...listed,
          ...this.staticProps.keys(),
          ...Object.keys(d.cluster),
          ...Object.keys(d.broker),
        ]),
      ].sort();
    const out: ConfigEntry[] = [];
    for (const name of keys) {
      const def = BROKER_CONFIGS.get(name);
      if (!def && !set(name)) continue;
      const sensitive = isSensitiveBrokerKey(name);
      const synonyms = this.configSynonyms(name, brokerSynonyms(name)).map((s) =>
        sensitive ? { ...s, value: null } : s,
      );
      out.push({
        name,
        value: sensitive ? null : this.brokerValue(name),
        source: synonyms[0]?.source ?? ConfigSource.DEFAULT_CONFIG,
        type: def?.type ?? 'string',
        // Kafka: readOnly unless DynamicBrokerConfig lists the key (custom keys are read-only too).
        readOnly: dynamicMode(name) === null,
        isSensitive: sensitive,
        documentation: def?.doc ?? '',
        synonyms,
      });
    }
    return out;
  }

  /** The value a topic key takes from the broker when the topic does not override it. */
  private topicDefaultChain(def: TopicConfigDef): ConfigSynonymEntry[] {
    const chain: ConfigSynonymEntry[] = [];
    for (const syn of def.synonyms) chain.push(...this.brokerSources(syn.name));
    const last = def.synonyms.at(-1);
    const brokerDefault = last ? BROKER_CONFIGS.get(last.name)?.default : undefined;
    if (last && brokerDefault !== undefined && brokerDefault !== null) {
      chain.push({ name: last.name, value: brokerDefault, source: ConfigSource.DEFAULT_CONFIG });
    }
    return chain;
  }

  private convertSynonym(def: TopicConfigDef, e: ConfigSynonymEntry): string | null {
    if (e.value === null) return null;
    const conv = def.synonyms.find((s) => s.name === e.name)?.convert;
    return conv ? conv(e.value) : e.value;
  }

  /** Effective value of one topic key for a topic with the given overrides. */
  topicValue(name: string, overrides: Readonly<Record<string, string>>): string | null {
    const def = TOPIC_CONFIGS.get(name);
    if (!def) return overrides[name] ?? null;
    if (overrides[name] !== undefined) return overrides[name]!;
    const first = this.topicDefaultChain(def)[0];
    return first ? this.convertSynonym(def, first) : def.default;
  }

  /** All topic keys with effective values (what the log layer and validation need). */
  topicProps(overrides: Readonly<Record<string, string>>): Record<string, string> {
    const out: Record<string, string> = {};
    for (const name of TOPIC_CONFIGS.keys()) {
      const v = this.topicValue(name, overrides);
      if (v !== null) out[name] = v;
    }
    return out;
  }

  /** Broker-level defaults of every topic key, i.e. topicProps without overrides. */
  topicDefaults(): Record<string, string> {
    return this.topicProps({});
  }

  describeTopic(overrides: Readonly<Record<string, string>>, names: readonly string[] | null): ConfigEntry[] {
    const keys = names ?? [...TOPIC_CONFIGS.keys()];
    const out: ConfigEntry[] = [];
    for (const name of keys) {
      const def = TOPIC_CONFIGS.get(name);
      if (!def) continue;
      // Kafka's createTopicConfigEntry: the override, then the synonyms of the topic key's
      // primary broker key (ServerTopicConfigSynonyms), cut as configSynonyms cuts them.
      const primary = def.synonyms[0]?.name;
      const synonyms = primary === undefined ? [] : this.configSynonyms(primary, brokerSynonyms(primary));
      if (overrides[name] !== undefined)
        synonyms.unshift({ name, value: overrides[name]!, source: ConfigSource.TOPIC_CONFIG });
      out.push({
        name,
        value: this.topicValue(name, overrides),
        source: synonyms[0]?.source ?? ConfigSource.DEFAULT_CONFIG,
        type: def.type,
        readOnly: false,
        isSensitive: false,
        documentation: def.doc,
        synonyms,
      });
    }
    return out;
  }
}

/**
 * Kafka's rule (KafkaConfig.maybeSensitive on the key's type): a password is never described.
 * A `listener.name.<l>.[<mechanism>.]<key>` override has the type of `<key>`, and one whose type
 * cannot be told (`...plain.sasl.jaas.config` with an unknown mechanism) counts as sensitive.
 */
export function isSensitiveBrokerKey(name: string): boolean {
  const def = BROKER_CONFIGS.get(name);
  if (def !== undefined) return def.type === 'password';
  const m = /^listener\.name\.[^.]+\.(.+)$/.exec(name);
  if (m === null) return false;
  const base = BROKER_CONFIGS.get(m[1]!) ?? BROKER_CONFIGS.get(m[1]!.replace(/^[a-z0-9-]+\./, ''));
  return base === undefined || base.type === 'password';
}
