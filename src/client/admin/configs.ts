// Config administration: DescribeConfigs and IncrementalAlterConfigs (KIP-339) for topics and
// brokers. Broker resources are sent to that broker (its own dynamic configs); topic resources
// to any broker.
import { describeConfigsApi } from '../../protocol/messages/generated/describe-configs.js';
import { incrementalAlterConfigsApi } from '../../protocol/messages/generated/incremental-alter-configs.js';
import { KafkaResponseError } from '../errors.js';
import type { AdminContext } from './context.js';

export type ConfigResourceType = 'topic' | 'broker' | 'broker-logger' | 'group';
const RESOURCE_TYPE: Record<ConfigResourceType, number> = {
  topic: 2,
  broker: 4,
  'broker-logger': 8,
  group: 32,
};
const SOURCES = [
  'UNKNOWN',
  'DYNAMIC_TOPIC_CONFIG',
  'DYNAMIC_BROKER_CONFIG',
  'DYNAMIC_DEFAULT_BROKER_CONFIG',
  'STATIC_BROKER_CONFIG',
  'DEFAULT_CONFIG',
  'DYNAMIC_BROKER_LOGGER_CONFIG',
  'CLIENT_METRICS_CONFIG',
  'GROUP_CONFIG',
] as const;

export interface ConfigResource {
  type: ConfigResourceType;
  /** Topic name, or broker id as a string ('' = cluster-wide broker default). */
  name: string;
  /** Only these keys (default: all). */
  keys?: string[];
}

export interface ConfigEntry {
  name: string;
  value: string | null;
  readOnly: boolean;
  isDefault: boolean;
  isSensitive: boolean;
  source: (typeof SOURCES)[number];
  /** Where else the value could come from, highest precedence first (only when asked for). */
  synonyms: { name: string; value: string | null; source: (typeof SOURCES)[number] }[];
}

export interface ConfigDescription {
  type: ConfigResourceType;
  name: string;
  entries: ConfigEntry[];
}

export type AlterOp = 'set' | 'delete' | 'append' | 'subtract';
const OPS: Record<AlterOp, number> = { set: 0, delete: 1, append: 2, subtract: 3 };

export interface ConfigAlteration {
  type: ConfigResourceType;
  name: string;
  ops: { key: string; op: AlterOp; value?: string | null }[];
}

/** Where a resource's request goes: its broker for broker resources, else any broker. */
async function target(ctx: AdminContext, r: { type: ConfigResourceType; name: string }) {
  if ((r.type === 'broker' || r.type === 'broker-logger') && r.name !== '') {
    if (ctx.metadata.lastRefresh === 0) await ctx.metadata.refresh();
    return ctx.link(Number(r.name));
  }
  return ctx.pool.any();
}

export async function describeConfigs(
  ctx: AdminContext,
  resources: readonly ConfigResource[],
  o: { includeSynonyms?: boolean } = {},
): Promise<ConfigDescription[]> {
  const out: ConfigDescription[] = [];
  for (const r of resources) {
    const res = await ctx.retry(async () =>
      (await target(ctx, r)).request(describeConfigsApi, {
        resources: [
          { resourceType: RESOURCE_TYPE[r.type], resourceName: r.name, configurationKeys: r.keys ?? null },
        ],
        includeSynonyms: o.includeSynonyms ?? false,
        includeDocumentation: false,
      }),
    );
    for (const d of res.results) {
      if (d.errorCode !== 0)
        throw new KafkaResponseError(d.errorCode, `describe configs of ${r.type} ${r.name}`, d.errorMessage);
      out.push({
        type: r.type,
        name: d.resourceName,
        entries: d.configs.map((c) => ({
          name: c.name,
          value: c.value,
          readOnly: c.readOnly,
          // v0 has isDefault; v1+ reports the source instead.
          isDefault: c.isDefault || c.configSource === 5,
          isSensitive: c.isSensitive,
          source: SOURCES[c.configSource] ?? 'UNKNOWN',
          synonyms: c.synonyms.map((s) => ({
            name: s.name,
            value: s.value,
            source: SOURCES[s.source] ?? 'UNKNOWN',
          })),
        })),
      });
    }
  }
  return out;
}

export async function incrementalAlterConfigs(
  ctx: AdminContext,
  alterations: readonly ConfigAlteration[],
  o: { validateOnly?: boolean } = {},
): Promise<void> {
  for (const a of alterations) {
    const res = await ctx.retry(async () =>
      (await target(ctx, a)).request(incrementalAlterConfigsApi, {
        resources: [
          {
            resourceType: RESOURCE_TYPE[a.type],
            resourceName: a.name,
            configs: a.ops.map((op) => ({
              name: op.key,
              configOperation: OPS[op.op],
              value: op.value ?? null,
            })),
          },
        ],
        validateOnly: o.validateOnly ?? false,
      }),
    );
    for (const r of res.responses) {
      if (r.errorCode !== 0)
        throw new KafkaResponseError(r.errorCode, `alter configs of ${a.type} ${a.name}`, r.errorMessage);
    }
  }
}
