// SCRAM credentials (KIP-554): DescribeUserScramCredentials and AlterUserScramCredentials, sent
// to any broker (ZooKeeper mode: every broker writes the store). An upsertion salts and hashes
// the password here, as Kafka's admin client does: only the salted password travels.

import { randomBytes } from 'node:crypto';
import { SCRAM_MIN_ITERATIONS, type ScramMechanism, saltedPassword } from '../../net/sasl/scram-crypto.js';
import { alterUserScramCredentialsApi } from '../../protocol/messages/generated/alter-user-scram-credentials.js';
import { describeUserScramCredentialsApi } from '../../protocol/messages/generated/describe-user-scram-credentials.js';
import { ConfigError, KafkaResponseError } from '../errors.js';
import type { AdminContext } from './context.js';

export interface UserScramCredentials {
  readonly user: string;
  readonly credentials: { readonly mechanism: ScramMechanism; readonly iterations: number }[];
}

export type ScramCredentialAlteration =
  | {
      readonly type: 'upsert';
      readonly user: string;
      readonly mechanism: ScramMechanism;
      readonly password: string;
      /** Default 4096 (Kafka's minimum). */
      readonly iterations?: number;
    }
  | { readonly type: 'delete'; readonly user: string; readonly mechanism: ScramMechanism };

const TYPE: Record<ScramMechanism, number> = { 'SCRAM-SHA-256': 1, 'SCRAM-SHA-512': 2 };
const NAME: Record<number, ScramMechanism> = { 1: 'SCRAM-SHA-256', 2: 'SCRAM-SHA-512' };

function mechanismType(m: ScramMechanism): number {
  const t = TYPE[m];
  if (t === undefined) throw new ConfigError(`unknown SCRAM mechanism ${String(m)}`);
  return t;
}

/** Every user with a credential when `users` is absent; a named user without one fails. */
export async function describeUserScramCredentials(
  ctx: AdminContext,
  users?: readonly string[],
): Promise<UserScramCredentials[]> {
  return ctx.retry(async () => {
    const link = await ctx.pool.any();
    const res = await link.request(describeUserScramCredentialsApi, {
      users: users === undefined ? null : users.map((name) => ({ name })),
    });
    if (res.errorCode !== 0)
      throw new KafkaResponseError(res.errorCode, 'DescribeUserScramCredentials', res.errorMessage);
    return res.results.map((r) => {
      if (r.errorCode !== 0)
        throw new KafkaResponseError(r.errorCode, `DescribeUserScramCredentials ${r.user}`, r.errorMessage);
      return {
        user: r.user,
        credentials: r.credentialInfos.map((c) => ({
          mechanism: NAME[c.mechanism]!,
          iterations: c.iterations,
        })),
      };
    });
  });
}

export async function alterUserScramCredentials(
  ctx: AdminContext,
  alterations: readonly ScramCredentialAlteration[],
): Promise<void> {
  const upsertions = alterations.flatMap((a) => {
    if (a.type !== 'upsert') return [];
    const iterations = a.iterations ?? SCRAM_MIN_ITERATIONS;
    const salt = randomBytes(32);
    return [
      {
        name: a.user,
        mechanism: mechanismType(a.mechanism),
        iterations,
        salt,
        saltedPassword: saltedPassword(a.mechanism, a.password, salt, iterations),
      },
    ];
  });
  const deletions = alterations.flatMap((a) =>
    a.type === 'delete' ? [{ name: a.user, mechanism: mechanismType(a.mechanism) }] : [],
  );
  const res = await ctx.retry(async () => {
    const link = await ctx.pool.any();
    return link.request(alterUserScramCredentialsApi, { upsertions, deletions });
  });
  const failed = res.results.find((r) => r.errorCode !== 0);
  if (failed)
    throw new KafkaResponseError(
      failed.errorCode,
      `AlterUserScramCredentials ${failed.user}`,
      failed.errorMessage,
    );
}
