// Quotas of users, clients and user+client pairs for `samsa configs` (KIP-546): the entities on
// the command line become a strict DescribeClientQuotas filter (a name: exact; --entity-default:
// the default; no name: any), and alterations one AlterClientQuotas entry. Values print as Java
// prints a double (1048576.0, 1.5E7), the way kafka-configs shows them.
import type { Admin } from '../../client/admin/admin.js';
import { CommandError, CommandUsageError } from './common.js';
import type { Entity } from './configs-args.js';

type QuotaEntityType = 'user' | 'client-id' | 'ip';

export interface QuotaLine {
  readonly entity: { entityType: QuotaEntityType; name: string | null }[];
  readonly values: Record<string, number>;
}

function quotaType(e: Entity): QuotaEntityType {
  return e.type === 'users' ? 'user' : e.type === 'ips' ? 'ip' : 'client-id';
}

/** Java's Double.toString: a '.0' on whole numbers, exponent form from 10^7 and below 10^-3. */
export function javaDouble(n: number): string {
  const abs = Math.abs(n);
  if (abs === 0 || (abs >= 1e-3 && abs < 1e7)) return Number.isInteger(n) ? `${n}.0` : String(n);
  const [mantissa, exponent] = n.toExponential().split('e') as [string, string];
  return `${mantissa.includes('.') ? mantissa : `${mantissa}.0`}E${Number(exponent)}`;
}

const ENTITY_WORDS: Record<string, string> = { user: 'user-principal', 'client-id': 'client-id', ip: 'ip' };
const ORDER = ['user', 'client-id', 'ip'];

/** `Quota configs for user-principal 'alice', client-id 'app' are producer_byte_rate=1024.0`. */
export function quotaLineText(q: QuotaLine): string {
  const who = [...q.entity]
    .sort((a, b) => ORDER.indexOf(a.entityType) - ORDER.indexOf(b.entityType))
    .map((c) =>
      c.name === null || c.name === ''
        ? `the default ${ENTITY_WORDS[c.entityType]}`
        : `${ENTITY_WORDS[c.entityType]} '${c.name}'`,
    )
    .join(', ');
  const values = Object.entries(q.values)
    .map(([k, v]) => `${k}=${javaDouble(v)}`)
    .join(', ');
  return `Quota configs for ${who} are ${values}\n`;
}

export async function describeQuotas(admin: Admin, entities: readonly Entity[]): Promise<QuotaLine[]> {
  const found = await admin.describeClientQuotas({
    components: entities.map((e) =>
      e.name === null
        ? { entityType: quotaType(e), matchType: 'any' as const }
        : e.name === ''
          ? { entityType: quotaType(e), matchType: 'default' as const }
          : { entityType: quotaType(e), matchType: 'exact' as const, match: e.name },
    ),
    strict: true,
  });
  return found
    .map((q) => ({
      entity: q.entity.map((c) => ({ entityType: c.entityType, name: c.name })),
      values: q.values,
    }))
    .sort((a, b) => (quotaLineText(a) < quotaLineText(b) ? -1 : 1));
}

export async function alterQuotas(
  admin: Admin,
  entities: readonly Entity[],
  toAdd: Record<string, string>,
  toDelete: readonly string[],
): Promise<void> {
  const current = (await describeQuotas(admin, entities))[0]?.values ?? {};
  const missing = toDelete.filter((k) => !(k in current));
  if (missing.length > 0)
    throw new CommandError(
      `Invalid config(s): ${missing.join(',')} (no such quota is set; samsa configs --describe lists the quotas)`,
    );
  const ops = [
    ...Object.entries(toAdd).map(([key, text]) => {
      const value = Number(text);
      if (text.trim() === '' || !Number.isFinite(value))
        throw new CommandUsageError(
          `cannot parse quota configuration value for ${key}: "${text}" is not a number`,
        );
      return { key, value };
    }),
    ...toDelete.map((key) => ({ key, value: null })),
  ];
  await admin.alterClientQuotas([
    {
      entity: entities.map((e) => ({ entityType: quotaType(e), name: e.name === '' ? null : e.name! })),
      ops,
    },
  ]);
}
