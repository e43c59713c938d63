// DeleteAcls (key 31), v0-3 as Kafka 3.9: needs ALTER on the cluster, then SECURITY_DISABLED
// without an authorizer. Every binding matching any filter is removed (conditional writes per
// resource pattern); each filter's result lists the bindings it matched.

import { ErrorCode, KafkaError } from '../../protocol/errors.js';
import {
  type DeleteAclsRequest,
  type DeleteAclsResponse,
  deleteAclsApi,
} from '../../protocol/messages/generated/delete-acls.js';
import type { AclBindingFilter } from '../security/acl-model.js';
import { toFilter } from './acl-requests.js';
import { CloseConnection, defineApi } from './api.js';
import { AclOp, clusterAllowed } from './authorize.js';

export default defineApi<DeleteAclsRequest, DeleteAclsResponse>({
  api: deleteAclsApi,
  minVersion: 0,
  maxVersion: 3,
  async handle(ctx, req) {
    const filters: AclBindingFilter[] = [];
    for (const f of req.filters) {
      const filter = toFilter(f, ctx.version);
      if (filter instanceof CloseConnection) return filter;
      filters.push(filter);
    }
    const all = (errorCode: number, errorMessage: string | null): DeleteAclsResponse => ({
      throttleTimeMs: 0,
      filterResults: filters.map(() => ({ errorCode, errorMessage, matchingAcls: [] })),
    });
    if (!clusterAllowed(ctx, AclOp.ALTER)) return all(ErrorCode.CLUSTER_AUTHORIZATION_FAILED, null);
    const authorizer = ctx.broker.authorizer;
    if (authorizer === undefined) return all(ErrorCode.SECURITY_DISABLED, 'No Authorizer is configured.');
    const outcomes = await authorizer.delete(filters);
    return {
      throttleTimeMs: 0,
      filterResults: outcomes.map((o) =>
        'error' in o
          ? {
              errorCode: o.error instanceof KafkaError ? o.error.code : ErrorCode.UNKNOWN_SERVER_ERROR,
              errorMessage: o.error.message,
              matchingAcls: [],
            }
          : {
              errorCode: ErrorCode.NONE,
              errorMessage: null,
              matchingAcls: o.deleted.map(({ pattern, entry }) => ({
                errorCode: ErrorCode.NONE,
                errorMessage: null,
                resourceType: pattern.resourceType,
                resourceName: pattern.name,
                patternType: pattern.patternType,
                principal: entry.principal,
                host: entry.host,
                operation: entry.operation,
                permissionType: entry.permission,
              })),
            },
      ),
    };
  },
});
