// DescribeAcls (key 29), v0-3 as Kafka 3.9: needs DESCRIBE on the cluster
// (CLUSTER_AUTHORIZATION_FAILED), then SECURITY_DISABLED without an authorizer; the matching
// bindings come from the authorizer's cache, grouped by resource pattern.

import { ErrorCode } from '../../protocol/errors.js';
import {
  type DescribeAclsRequest,
  type DescribeAclsResponse,
  describeAclsApi,
} from '../../protocol/messages/generated/describe-acls.js';
import { patternKey } from '../security/acl-model.js';
import { NO_AUTHORIZER, toFilter } from './acl-requests.js';
import { CloseConnection, defineApi } from './api.js';
import { AclOp, clusterAllowed } from './authorize.js';

const refusal = (errorCode: number, errorMessage: string | null): DescribeAclsResponse => ({
  throttleTimeMs: 0,
  errorCode,
  errorMessage,
  resources: [],
});

export default defineApi<DescribeAclsRequest, DescribeAclsResponse>({
  api: describeAclsApi,
  minVersion: 0,
  maxVersion: 3,
  handle(ctx, req) {
    const filter = toFilter(req, ctx.version);
    if (filter instanceof CloseConnection) return filter;
    if (!clusterAllowed(ctx, AclOp.DESCRIBE)) return refusal(ErrorCode.CLUSTER_AUTHORIZATION_FAILED, null);
    const authorizer = ctx.broker.authorizer;
    if (authorizer === undefined) return refusal(ErrorCode.SECURITY_DISABLED, NO_AUTHORIZER);
    const resources = new Map<string, DescribeAclsResponse['resources'][number]>();
    for (const { pattern, entry } of authorizer.describe(filter)) {
      const key = patternKey(pattern);
      let r = resources.get(key);
      if (r === undefined) {
        r = {
          resourceType: pattern.resourceType,
          resourceName: pattern.name,
          patternType: pattern.patternType,
          acls: [],
        };
        resources.set(key, r);
      }
      r.acls.push({
        principal: entry.principal,
        host: entry.host,
        operation: entry.operation,
        permissionType: entry.permission,
      });
    }
    return {
      throttleTimeMs: 0,
      errorCode: ErrorCode.NONE,
      errorMessage: null,
      resources: [...resources.values()],
    };
  },
});
