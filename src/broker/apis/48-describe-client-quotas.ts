// DescribeClientQuotas (key 48), v0-1: the quotas of the entities a filter matches, from the
// metadata store (`quota/quota-admin.ts`, Kafka's ZooKeeper-mode rules). Needs DESCRIBE_CONFIGS
// on the cluster. A filter Kafka refuses answers its error code and message with no entries.

import { ErrorCode } from '../../protocol/errors.js';
import {
  type DescribeClientQuotasRequest,
  type DescribeClientQuotasResponse,
  describeClientQuotasApi,
} from '../../protocol/messages/generated/describe-client-quotas.js';
import { QuotaRequestError } from '../quota/quota-admin.js';
import { entityComponents } from '../quota/quota-entities.js';
import { defineApi } from './api.js';
import { AclOp, clusterAllowed } from './authorize.js';

const failure = (errorCode: number, errorMessage: string | null): DescribeClientQuotasResponse => ({
  throttleTimeMs: 0,
  errorCode,
  errorMessage,
  entries: null,
});

export default defineApi<DescribeClientQuotasRequest, DescribeClientQuotasResponse>({
  api: describeClientQuotasApi,
  minVersion: 0,
  maxVersion: 1,
  async handle(ctx, req) {
    if (!clusterAllowed(ctx, AclOp.DESCRIBE_CONFIGS))
      return failure(ErrorCode.CLUSTER_AUTHORIZATION_FAILED, null);
    const admin = ctx.broker.quotas?.admin;
    if (admin === undefined) return failure(ErrorCode.UNSUPPORTED_VERSION, 'client quotas are not available');
    try {
      const described = await admin.describe(req.components, req.strict);
      return {
        throttleTimeMs: 0,
        errorCode: 0,
        errorMessage: null,
        entries: described.map(({ entity, values }) => ({
          entity: entityComponents(entity),
          values: [...values].map(([key, value]) => ({ key, value })),
        })),
      };
    } catch (e) {
      if (e instanceof QuotaRequestError) return failure(e.errorCode, e.message);
      return failure(ErrorCode.UNKNOWN_SERVER_ERROR, (e as Error).message);
    }
  },
});
