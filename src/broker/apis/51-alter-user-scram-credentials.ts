// AlterUserScramCredentials (key 51), v0: upsertions carry the salt, the iteration count and
// the client-side salted password (never the password); the broker stores Kafka's
// StoredKey/ServerKey form. Checks and per-user errors are Kafka's (UNACCEPTABLE_CREDENTIAL for
// an empty name or iterations outside 4096..16384, UNSUPPORTED_SASL_MECHANISM, DUPLICATE_RESOURCE,
// RESOURCE_NOT_FOUND for deleting what does not exist): `metadata/scram-credentials.ts`.

import { ErrorCode } from '../../protocol/errors.js';
import {
  type AlterUserScramCredentialsRequest,
  type AlterUserScramCredentialsResponse,
  alterUserScramCredentialsApi,
} from '../../protocol/messages/generated/alter-user-scram-credentials.js';
import { defineApi } from './api.js';
import { AclOp, clusterAllowed } from './authorize.js';

export default defineApi<AlterUserScramCredentialsRequest, AlterUserScramCredentialsResponse>({
  api: alterUserScramCredentialsApi,
  minVersion: 0,
  maxVersion: 0,
  async handle(ctx, req) {
    const scram = ctx.broker.scram;
    const users = new Set([...req.upsertions, ...req.deletions].map((o) => o.name));
    if (!clusterAllowed(ctx, AclOp.ALTER))
      return {
        throttleTimeMs: 0,
        results: [...users].map((user) => ({
          user,
          errorCode: ErrorCode.CLUSTER_AUTHORIZATION_FAILED,
          errorMessage: null,
        })),
      };
    if (scram === undefined)
      return {
        throttleTimeMs: 0,
        results: [...users].map((user) => ({
          user,
          errorCode: ErrorCode.UNSUPPORTED_VERSION,
          errorMessage: 'this broker keeps no SCRAM credentials',
        })),
      };
    return { throttleTimeMs: 0, results: await scram.alter(req.upsertions, req.deletions) };
  },
});
