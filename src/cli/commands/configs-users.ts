// `samsa configs` for users and clients, as kafka-configs does it with --bootstrap-server: a
// user's SCRAM credentials through Describe/AlterUserScramCredentials (the password is salted by
// the admin client, only iterations are ever shown), quotas of users, clients and user+client
// pairs through Describe/AlterClientQuotas. Quotas and credentials are not altered in one go.
import type { Admin } from '../../client/admin/admin.js';
import type { ScramCredentialAlteration } from '../../client/admin/scram.js';
import { KafkaResponseError } from '../../client/errors.js';
import { ErrorCode } from '../../protocol/errors.js';
import { CommandError, type CommandIO, CommandUsageError } from './common.js';
import {
  type Entity,
  IP_QUOTA_KEYS,
  isScramMechanism,
  parseScramCredential,
  QUOTA_KEYS,
} from './configs-args.js';
import { alterQuotas, describeQuotas, type QuotaLine, quotaLineText } from './configs-quotas.js';
import { toJson } from './groups-print.js';

export async function describeUsersAndClients(
  admin: Admin,
  entities: readonly Entity[],
  json: boolean,
  io: CommandIO,
): Promise<void> {
  // Kafka shows credentials only for users alone, never for the default user.
  const user = entities.length === 1 && entities[0]!.type === 'users' ? entities[0]! : null;
  const quotas: QuotaLine[] = await describeQuotas(admin, entities).catch((e: unknown) => {
    // A broker without quotas still has credentials to show; a client has nothing else.
    if (user !== null && quotasUnsupported(e)) return [];
    throw e;
  });
  const scram = user !== null && user.name !== '' ? await scramCredentials(admin, user.name) : [];
  if (json) {
    io.stdout.write(
      toJson({
        quotas: quotas.map((q) => ({ entity: q.entity, values: q.values })),
        ...(user !== null && user.name !== '' ? { scramCredentials: scram } : {}),
      }),
    );
    return;
  }
  for (const q of quotas) io.stdout.write(quotaLineText(q));
  for (const u of scram)
    io.stdout.write(
      `SCRAM credential configs for user-principal '${u.user}' are ${u.credentials
        .map((c) => `${c.mechanism}=iterations=${c.iterations}`)
        .join(', ')}\n`,
    );
  if (quotas.length === 0 && scram.length === 0 && user?.name)
    io.stderr.write(`samsa: user-principal '${user.name}' has no quota and no SCRAM credential configs\n`);
}

function quotasUnsupported(e: unknown): boolean {
  return (e as { code?: unknown }).code === 'UNSUPPORTED_VERSION';
}

/** The credentials of one user, or of every user (null); a user without any has none. */
async function scramCredentials(admin: Admin, name: string | null) {
  try {
    return await admin.describeUserScramCredentials(name === null ? undefined : [name]);
  } catch (e) {
    if (e instanceof KafkaResponseError && e.errorCode === ErrorCode.RESOURCE_NOT_FOUND) return [];
    throw e;
  }
}

export async function alterUsersAndClients(
  admin: Admin,
  entities: readonly Entity[],
  toAdd: Record<string, string>,
  toDelete: readonly string[],
  io: CommandIO,
): Promise<void> {
  const keys = [...Object.keys(toAdd), ...toDelete];
  if (entities[0]!.type === 'ips') {
    const unexpected = keys.filter((k) => !IP_QUOTA_KEYS.includes(k));
    if (unexpected.length > 0)
      throw new CommandUsageError(
        `only connection quota configs can be set for ips (${IP_QUOTA_KEYS.join(', ')}); unexpected: ${unexpected.join(',')}`,
      );
  }
  const scramKeys = keys.filter(isScramMechanism);
  const unknown = keys.filter((k) => !isScramMechanism(k) && !QUOTA_KEYS.includes(k));
  const usersAlone = entities.length === 1 && entities[0]!.type === 'users';
  if (entities[0]!.type !== 'ips' && (unknown.length > 0 || (!usersAlone && scramKeys.length > 0))) {
    const allowed = usersAlone ? 'quota and SCRAM credential configs' : 'quota configs';
    throw new CommandUsageError(
      `only ${allowed} can be set for ${usersAlone ? 'users' : 'clients'}; unexpected: ${[...unknown, ...(usersAlone ? [] : scramKeys)].join(',')} (quotas: ${QUOTA_KEYS.join(', ')})`,
    );
  }
  const entity = entities[0]!;
  if (scramKeys.length > 0) {
    if (entity.name === '')
      throw new CommandUsageError('SCRAM credentials belong to a named user, not to --entity-default');
    if (scramKeys.length !== keys.length)
      throw new CommandUsageError('alter quotas and SCRAM credentials in separate commands');
    const alterations: ScramCredentialAlteration[] = [
      ...toDelete
        .filter(isScramMechanism)
        .map((mechanism) => ({ type: 'delete' as const, user: entity.name!, mechanism })),
      ...Object.entries(toAdd).map(([mechanism, value]) => ({
        type: 'upsert' as const,
        user: entity.name!,
        ...parseScramCredential(mechanism, value),
      })),
    ];
    try {
      await admin.alterUserScramCredentials(alterations);
    } catch (e) {
      if (e instanceof KafkaResponseError && e.errorCode === ErrorCode.RESOURCE_NOT_FOUND)
        throw new CommandError(
          `Invalid config(s): ${toDelete.join(',')} (user '${entity.name}' has no such credential; samsa configs --describe --user ${entity.name} lists them)`,
        );
      throw e;
    }
  } else await alterQuotas(admin, entities, toAdd, toDelete);
  const target = entities.find((e) => e.name !== '') ?? null;
  io.stdout.write(
    target === null
      ? `Completed updating default config for ${entities.map((e) => e.type).join(' and ')} in the cluster.\n`
      : `Completed updating config for ${target.type.slice(0, -1)} ${target.name}.\n`,
  );
}
