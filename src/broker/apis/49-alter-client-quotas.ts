// AlterClientQuotas (key 49), v0-1: sets or removes quota keys of user, client-id, user/client-id
// and IP entities (`<default>` with a null name) in the metadata store, each entry judged on its
// own with Kafka's INVALID_REQUEST messages (`quota/quota-admin.ts`); `validateOnly` checks
// without writing. Every broker applies a change through the store's change notifications.
// Needs ALTER_CONFIGS on the cluster (else every entry answers CLUSTER_AUTHORIZATION_FAILED).

import { ErrorCode } from '../../protocol/errors.js';
import {
  type AlterClientQuotasRequest,
  type AlterClientQuotasResponse,
  alterClientQuotasApi,
} from '../../protocol/messages/generated/alter-client-quotas.js';
import { defineApi } from './api.js';
import { AclOp, clusterAllowed } from './authorize.js';

export default defineApi<AlterClientQuotasRequest, AlterClientQuotasResponse>({
  api: alterClientQuotasApi,
  minVersion: 0,
  maxVersion: 1,
  async handle(ctx, req) {
    const echo = (entity: AlterClientQuotasRequest['entries'][number]['entity']) =>
      entity.map((c) => ({ entityType: c.entityType, entityName: c.entityName }));
    const all = (errorCode: number, errorMessage: string | null): AlterClientQuotasResponse => ({
      throttleTimeMs: 0,
      entries: req.entries.map((e) => ({ errorCode, errorMessage, entity: echo(e.entity) })),
    });
    if (!clusterAllowed(ctx, AclOp.ALTER_CONFIGS)) return all(ErrorCode.CLUSTER_AUTHORIZATION_FAILED, null);
    const admin = ctx.broker.quotas?.admin;
    if (admin === undefined) return all(ErrorCode.UNSUPPORTED_VERSION, 'client quotas are not available');
    const results = await admin.alter(req.entries, req.validateOnly);
    return {
      throttleTimeMs: 0,
      entries: req.entries.map((e, i) => ({ ...results[i]!, entity: echo(e.entity) })),
    };
  },
});
