// CreateAcls (key 30), v0-3 as Kafka 3.9: needs ALTER on the cluster (every creation
// CLUSTER_AUTHORIZATION_FAILED), then SECURITY_DISABLED without an authorizer. Each creation
// is checked as Kafka's controller checks it (INVALID_REQUEST with its message: ANY/MATCH
// types, a CLUSTER name other than kafka-cluster, an empty name, a principal without a type);
// the valid ones are written to the metadata store and are in force here when the answer leaves.

import { ErrorCode, KafkaError } from '../../protocol/errors.js';
import {
  type CreateAclsRequest,
  type CreateAclsResponse,
  createAclsApi,
} from '../../protocol/messages/generated/create-acls.js';
import { type AclBinding, invalidBindingReason } from '../security/acl-model.js';
import { toBinding } from './acl-requests.js';
import { CloseConnection, defineApi } from './api.js';
import { AclOp, clusterAllowed } from './authorize.js';

type Result = CreateAclsResponse['results'][number];

export default defineApi<CreateAclsRequest, CreateAclsResponse>({
  api: createAclsApi,
  minVersion: 0,
  maxVersion: 3,
  async handle(ctx, req) {
    const bindings: AclBinding[] = [];
    for (const c of req.creations) {
      const b = toBinding(c, ctx.version);
      if (b instanceof CloseConnection) return b;
      bindings.push(b);
    }
    const all = (errorCode: number, errorMessage: string | null): CreateAclsResponse => ({
      throttleTimeMs: 0,
      results: bindings.map(() => ({ errorCode, errorMessage })),
    });
    if (!clusterAllowed(ctx, AclOp.ALTER)) return all(ErrorCode.CLUSTER_AUTHORIZATION_FAILED, null);
    const authorizer = ctx.broker.authorizer;
    if (authorizer === undefined) return all(ErrorCode.SECURITY_DISABLED, 'No Authorizer is configured.');
    const results: Result[] = bindings.map((b) => {
      const why = invalidBindingReason(b);
      return why === null
        ? { errorCode: ErrorCode.NONE, errorMessage: null }
        : { errorCode: ErrorCode.INVALID_REQUEST, errorMessage: why };
    });
    const valid = bindings.filter((_, i) => results[i]!.errorCode === ErrorCode.NONE);
    const outcomes = await authorizer.create(valid);
    let next = 0;
    results.forEach((r, i) => {
      if (r.errorCode !== ErrorCode.NONE) return;
      const e = outcomes[next++];
      if (e) {
        ctx.broker.logger.log('warn', 'CreateAcls failed', {
          binding: describeBinding(bindings[i]!),
          error: e.message,
        });
        results[i] = {
          errorCode: e instanceof KafkaError ? e.code : ErrorCode.UNKNOWN_SERVER_ERROR,
          errorMessage: e.message,
        };
      }
    });
    return { throttleTimeMs: 0, results };
  },
});

function describeBinding(b: AclBinding): string {
  return `${b.pattern.resourceType}:${b.pattern.patternType}:${b.pattern.name} ${b.entry.principal}@${b.entry.host}`;
}
