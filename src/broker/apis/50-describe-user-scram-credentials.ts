// DescribeUserScramCredentials (key 50), v0: each user's SCRAM mechanisms and iteration counts
// (never salts or keys), from the metadata store (`metadata/scram-credentials.ts`). A null or
// empty user list describes every user with a credential; a named user without one answers
// RESOURCE_NOT_FOUND, a user named twice DUPLICATE_RESOURCE, as Kafka's ZooKeeper-mode broker.

import { ErrorCode } from '../../protocol/errors.js';
import {
  type DescribeUserScramCredentialsRequest,
  type DescribeUserScramCredentialsResponse,
  describeUserScramCredentialsApi,
} from '../../protocol/messages/generated/describe-user-scram-credentials.js';
import { defineApi } from './api.js';
import { AclOp, clusterAllowed } from './authorize.js';

export default defineApi<DescribeUserScramCredentialsRequest, DescribeUserScramCredentialsResponse>({
  api: describeUserScramCredentialsApi,
  minVersion: 0,
  maxVersion: 0,
  async handle(ctx, req) {
    if (!clusterAllowed(ctx, AclOp.DESCRIBE))
      return {
        throttleTimeMs: 0,
        errorCode: ErrorCode.CLUSTER_AUTHORIZATION_FAILED,
        errorMessage: null,
        results: [],
      };
    const scram = ctx.broker.scram;
    if (scram === undefined)
      return { throttleTimeMs: 0, errorCode: ErrorCode.UNSUPPORTED_VERSION, errorMessage: null, results: [] };
    try {
      const results = await scram.describe(req.users?.map((u) => u.name) ?? null);
      return { throttleTimeMs: 0, errorCode: 0, errorMessage: null, results };
    } catch (e) {
      return {
        throttleTimeMs: 0,
        errorCode: ErrorCode.UNKNOWN_SERVER_ERROR,
        errorMessage: (e as Error).message,
        results: [],
      };
    }
  },
});
