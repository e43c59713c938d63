// Client quotas (KIP-546): DescribeClientQuotas and AlterClientQuotas, sent to any broker
// (ZooKeeper mode: every broker writes the store and every broker applies the change). A null
// entity name is the default entity (`<default>` in Kafka's tools); a null op value removes the
// key. Errors are thrown as the other admin calls throw them: the first failed entry's
// `KafkaResponseError` (INVALID_REQUEST for an unknown key or entity type …).

import { alterClientQuotasApi } from '../../protocol/messages/generated/alter-client-quotas.js';
import { describeClientQuotasApi } from '../../protocol/messages/generated/describe-client-quotas.js';
import { ConfigError, KafkaResponseError } from '../errors.js';
import type { AdminContext } from './context.js';

export type QuotaEntityType = 'user' | 'client-id' | 'ip';

export interface QuotaEntityComponent {
  readonly entityType: QuotaEntityType;
  /** null = the default entity. */
  readonly name: string | null;
}

export interface ClientQuotaEntry {
  readonly entity: QuotaEntityComponent[];
  readonly values: Record<string, number>;
}

export interface ClientQuotaFilterComponent {
  readonly entityType: QuotaEntityType;
  readonly matchType: 'exact' | 'default' | 'any';
  /** The name to match, for `exact`. */
  readonly match?: string;
}

export interface ClientQuotaAlteration {
  readonly entity: QuotaEntityComponent[];
  /** A null value removes the key. */
  readonly ops: { key: string; value: number | null }[];
}

const MATCH_TYPE = { exact: 0, default: 1, any: 2 } as const;

export async function describeClientQuotas(
  ctx: AdminContext,
  filter: { components: readonly ClientQuotaFilterComponent[]; strict?: boolean },
): Promise<ClientQuotaEntry[]> {
  const components = filter.components.map((c) => {
    const matchType = MATCH_TYPE[c.matchType];
    if (matchType === undefined)
      throw new ConfigError(`unknown quota filter match type ${String(c.matchType)}`);
    if (c.matchType === 'exact' && c.match === undefined)
      throw new ConfigError(`an exact ${c.entityType} filter needs a name to match`);
    return { entityType: c.entityType, matchType, match: c.matchType === 'exact' ? c.match! : null };
  });
  const res = await ctx.retry(async () => {
    const link = await ctx.pool.any();
    return link.request(describeClientQuotasApi, { components, strict: filter.strict ?? false });
  });
  if (res.errorCode !== 0)
    throw new KafkaResponseError(res.errorCode, 'DescribeClientQuotas', res.errorMessage);
  return (res.entries ?? []).map((e) => ({
    entity: e.entity.map((c) => ({ entityType: c.entityType as QuotaEntityType, name: c.entityName })),
    values: Object.fromEntries(e.values.map((v) => [v.key, v.value])),
  }));
}

export async function alterClientQuotas(
  ctx: AdminContext,
  alterations: readonly ClientQuotaAlteration[],
  o: { validateOnly?: boolean } = {},
): Promise<void> {
  const entries = alterations.map((a) => ({
    entity: a.entity.map((c) => ({ entityType: c.entityType, entityName: c.name })),
    ops: a.ops.map((op) => ({ key: op.key, value: op.value ?? 0, remove: op.value === null })),
  }));
  const res = await ctx.retry(async () => {
    const link = await ctx.pool.any();
    return link.request(alterClientQuotasApi, { entries, validateOnly: o.validateOnly ?? false });
  });
  const failed = res.entries.find((r) => r.errorCode !== 0);
  if (failed) {
    const entity = failed.entity.map((c) => `${c.entityType}=${c.entityName ?? '<default>'}`).join(',');
    throw new KafkaResponseError(failed.errorCode, `AlterClientQuotas ${entity}`, failed.errorMessage);
  }
}
