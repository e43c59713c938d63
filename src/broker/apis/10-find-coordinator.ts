// FindCoordinator (key 10), v0-6. Key type 0 (group) → the leader of the group's partition of
// __consumer_offsets, which is created on the first lookup as in Kafka. Key type 1
// (transaction) → the leader of the id's partition of __transaction_state, created likewise. v0-3
// carry one key and answer in the top-level fields (v0 without ErrorMessage); v4+ batch keys
// (KIP-699) and answer per key in Coordinators. The coordinator's address is its endpoint for
// the listener the request came through (none: COORDINATOR_NOT_AVAILABLE, as Kafka).
import { ErrorCode, errorInfo } from '../../protocol/errors.js';
import {
  type FindCoordinatorRequest,
  type FindCoordinatorResponse,
  type FindCoordinatorResponseCoordinator,
  findCoordinatorApi,
} from '../../protocol/messages/generated/find-coordinator.js';
import { defineApi, type RequestContext } from './api.js';
import { AclOp, allowed, ResType } from './authorize.js';
import { brokersForListener } from './listener-brokers.js';

const GROUP = 0;
const TRANSACTION = 1;

async function locate(
  ctx: RequestContext,
  key: string,
  keyType: number,
): Promise<FindCoordinatorResponseCoordinator> {
  const fail = (errorCode: number, message?: string) => ({
    key,
    nodeId: -1,
    host: '',
    port: -1,
    errorCode,
    errorMessage: message ?? errorInfo(errorCode).message,
  });
  // Either coordinator answers the same way; only a transactional id may not be empty.
  const owner = keyType === TRANSACTION ? ctx.broker.txns : keyType === GROUP ? ctx.broker.groups : null;
  if (owner === null) return fail(ErrorCode.INVALID_REQUEST, `Unknown coordinator key type ${keyType}.`);
  if (owner === undefined) return fail(ErrorCode.COORDINATOR_NOT_AVAILABLE);
  if (keyType === GROUP && !allowed(ctx, AclOp.DESCRIBE, ResType.GROUP, key))
    return fail(ErrorCode.GROUP_AUTHORIZATION_FAILED);
  if (keyType === TRANSACTION && !allowed(ctx, AclOp.DESCRIBE, ResType.TRANSACTIONAL_ID, key))
    return fail(ErrorCode.TRANSACTIONAL_ID_AUTHORIZATION_FAILED);
  if (keyType === TRANSACTION && key === '')
    return fail(ErrorCode.INVALID_REQUEST, 'The transactional id is empty.');
  const loc = await owner.locate(key);
  if (loc.errorCode !== ErrorCode.NONE) return fail(loc.errorCode);
  const at = brokersForListener(ctx).find((b) => b.nodeId === loc.nodeId);
  if (at === undefined) return fail(ErrorCode.COORDINATOR_NOT_AVAILABLE);
  return {
    key,
    nodeId: loc.nodeId,
    host: at.host,
    port: at.port,
    errorCode: ErrorCode.NONE,
    errorMessage: null,
  };
}

export default defineApi<FindCoordinatorRequest, FindCoordinatorResponse>({
  api: findCoordinatorApi,
  minVersion: 0,
  maxVersion: 6,
  async handle(ctx, req) {
    if (ctx.version >= 4) {
      const coordinators = await Promise.all(req.coordinatorKeys.map((k) => locate(ctx, k, req.keyType)));
      return {
        throttleTimeMs: 0,
        errorCode: 0,
        errorMessage: null,
        nodeId: -1,
        host: '',
        port: -1,
        coordinators,
      };
    }
    const c = await locate(ctx, req.key, ctx.version >= 1 ? req.keyType : GROUP);
    return {
      throttleTimeMs: 0,
      errorCode: c.errorCode,
      errorMessage: c.errorCode === ErrorCode.NONE ? null : c.errorMessage,
      nodeId: c.nodeId,
      host: c.host,
      port: c.port,
      coordinators: [],
    };
  },
});
