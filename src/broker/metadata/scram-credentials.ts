// SCRAM credentials in the metadata store, as Kafka's ZooKeeper-mode broker keeps them: the
// `users` config entity of each user maps a mechanism name to Kafka's credential string
// (`/config/users/<sanitized user>` in ZooKeeper). Authentication reads the store each time, so
// a change made through any broker holds on the next connection. Alter and describe follow
// Kafka's ZkAdminManager checks and messages; alterations run one at a time on this broker, and
// each is the store's versioned read-modify-write of the user's entity (`updateConfigs`), so a
// quota change of the same user (same config map) made meanwhile, here or on another broker,
// is kept rather than overwritten.

import {
  credentialFromSaltedPassword,
  credentialFromString,
  credentialToString,
  SCRAM_MAX_ITERATIONS,
  SCRAM_MECHANISMS,
  SCRAM_MIN_ITERATIONS,
  type ScramCredential,
  type ScramMechanism,
} from '../../net/sasl/scram-crypto.js';
import { ErrorCode } from '../../protocol/errors.js';
import type { MetadataStore } from './store/metadata-store.js';

/** The protocol's mechanism numbers (Kafka's ScramMechanism type). */
const BY_TYPE: Readonly<Record<number, ScramMechanism>> = { 1: 'SCRAM-SHA-256', 2: 'SCRAM-SHA-512' };
const typeOf = (m: ScramMechanism): number => (m === 'SCRAM-SHA-256' ? 1 : 2);

export interface UserResult {
  readonly user: string;
  readonly errorCode: number;
  readonly errorMessage: string | null;
}

export interface DescribedUser extends UserResult {
  readonly credentialInfos: { mechanism: number; iterations: number }[];
}

export interface Upsertion {
  readonly name: string;
  readonly mechanism: number;
  readonly iterations: number;
  readonly salt: Buffer;
  readonly saltedPassword: Buffer;
}

export interface Deletion {
  readonly name: string;
  readonly mechanism: number;
}

const NOT_FOUND_DESCRIBE = 'Attempt to describe a user credential that does not exist';

export class ScramCredentials {
  #queue: Promise<unknown> = Promise.resolve();

  constructor(private readonly store: MetadataStore) {}

  async lookup(user: string, mechanism: ScramMechanism): Promise<ScramCredential | null> {
    const value = (await this.store.configs({ type: 'users', name: user }))[mechanism];
    if (value === undefined) return null;
    try {
      return credentialFromString(value);
    } catch {
      return null;
    }
  }

  /** `users` null or empty = every user that has a credential. */
  async describe(users: readonly string[] | null): Promise<DescribedUser[]> {
    const all = users === null || users.length === 0;
    const names = all ? await this.store.configEntities('users') : [...new Set(users)];
    const out: DescribedUser[] = [];
    for (const user of names) {
      const fail = (errorCode: number, errorMessage: string) =>
        out.push({ user, errorCode, errorMessage, credentialInfos: [] });
      if (user === '') {
        fail(ErrorCode.RESOURCE_NOT_FOUND, 'Username must not be empty');
        continue;
      }
      if (!all && users.filter((u) => u === user).length > 1) {
        fail(
          ErrorCode.DUPLICATE_RESOURCE,
          `Cannot describe SCRAM credentials for the same user twice in a single request: ${user}`,
        );
        continue;
      }
      const configs = await this.store.configs({ type: 'users', name: user });
      const infos = SCRAM_MECHANISMS.flatMap((m) =>
        configs[m] === undefined
          ? []
          : [{ mechanism: typeOf(m), iterations: credentialFromString(configs[m]).iterations }],
      );
      if (infos.length > 0) out.push({ user, errorCode: 0, errorMessage: null, credentialInfos: infos });
      else if (!all) fail(ErrorCode.RESOURCE_NOT_FOUND, `${NOT_FOUND_DESCRIBE}: ${user}`);
    }
    return out;
  }

  alter(upsertions: readonly Upsertion[], deletions: readonly Deletion[]): Promise<UserResult[]> {
    const run = this.#queue.then(() => this.#alter(upsertions, deletions));
    this.#queue = run.catch(() => {});
    return run;
  }

  async #alter(upsertions: readonly Upsertion[], deletions: readonly Deletion[]): Promise<UserResult[]> {
    const results = new Map<string, UserResult>();
    const fail = (user: string, errorCode: number, errorMessage: string) => {
      if (!results.has(user)) results.set(user, { user, errorCode, errorMessage });
    };
    for (const op of [...deletions, ...upsertions]) {
      if (op.name === '') fail('', ErrorCode.UNACCEPTABLE_CREDENTIAL, 'Username must not be empty');
      else if (BY_TYPE[op.mechanism] === undefined)
        fail(op.name, ErrorCode.UNSUPPORTED_SASL_MECHANISM, 'Unknown SCRAM mechanism');
    }
    for (const op of upsertions) {
      if (op.iterations < SCRAM_MIN_ITERATIONS)
        fail(op.name, ErrorCode.UNACCEPTABLE_CREDENTIAL, 'Too few iterations');
      else if (op.iterations > SCRAM_MAX_ITERATIONS)
        fail(op.name, ErrorCode.UNACCEPTABLE_CREDENTIAL, 'Too many iterations');
    }
    const pairs = [...deletions, ...upsertions].filter((op) => !results.has(op.name));
    for (const op of pairs)
      if (pairs.filter((o) => o.name === op.name && o.mechanism === op.mechanism).length > 1)
        fail(
          op.name,
          ErrorCode.DUPLICATE_RESOURCE,
          'A user credential cannot be altered twice in the same request',
        );
    const users = [...new Set(pairs.map((op) => op.name))].filter((u) => !results.has(u));
    for (const user of users) {
      const mine = <T extends Deletion>(ops: readonly T[]) => ops.filter((op) => op.name === user);
      // Computed once, outside the update (which may run again on a concurrent change).
      const upserted = mine(upsertions).map((u) => {
        const m = BY_TYPE[u.mechanism]!;
        return [
          m,
          credentialToString(credentialFromSaltedPassword(m, u.salt, u.saltedPassword, u.iterations)),
        ];
      });
      let missing = false;
      try {
        await this.store.updateConfigs({ type: 'users', name: user }, (configs) => {
          missing = mine(deletions).some((d) => configs[BY_TYPE[d.mechanism]!] === undefined);
          if (missing) return null;
          for (const d of mine(deletions)) delete configs[BY_TYPE[d.mechanism]!];
          for (const [m, value] of upserted) configs[m!] = value!;
          return configs;
        });
        if (missing)
          fail(user, ErrorCode.RESOURCE_NOT_FOUND, 'Attempt to delete a user credential that does not exist');
        else results.set(user, { user, errorCode: 0, errorMessage: null });
      } catch (e) {
        fail(user, ErrorCode.UNKNOWN_SERVER_ERROR, (e as Error).message);
      }
    }
    return [...results.values()];
  }
}
