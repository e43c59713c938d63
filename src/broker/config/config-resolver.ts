// Resolves effective config values and their sources the way Kafka's DescribeConfigs reports
// them. Precedence for a topic config: topic override → dynamic per-broker value of a synonym →
// dynamic cluster default → static broker value (server.properties / flags) → Kafka default.
// For broker configs the same chain without the topic level.

import { BROKER_CONFIGS } from './broker-configs.js';
import { ConfigSource, type ConfigType } from './config-def.js';
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

  describeBroker(names: readonly string[] | null): ConfigEntry[] {
    const keys = names ?? [...new Set([...BROKER_CONFIGS.keys(), ...this.staticProps.keys()])].sort();
    const out: ConfigEntry[] = [];
    for (const name of keys) {
      const def = BROKER_CONFIGS.get(name);
      if (!def && !this.staticProps.has(name)) continue;
      const synonyms = this.brokerSources(name);
      if (def && def.default !== null)
        synonyms.push({ name, value: def.default, source: ConfigSource.DEFAULT_CONFIG });
      const first = synonyms[0] ?? { value: null, source: ConfigSource.DEFAULT_CONFIG };
      const sensitive = def?.type === 'password';
      out.push({
        name,
        value: sensitive ? null : first.value,
        source: first.source,
        type: def?.type ?? 'string',
        readOnly: !(def?.dynamic ?? false),
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
      const synonyms: ConfigSynonymEntry[] = [];
      if (overrides[name] !== undefined)
        synonyms.push({ name, value: overrides[name]!, source: ConfigSource.TOPIC_CONFIG });
      synonyms.push(...this.topicDefaultChain(def));
      const first = synonyms[0];
      out.push({
        name,
        value: first
          ? first.source === ConfigSource.TOPIC_CONFIG
            ? first.value
            : this.convertSynonym(def, first)
          : def.default,
        source: first ? first.source : ConfigSource.DEFAULT_CONFIG,
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
