// The one way handlers ask the authorizer (docs/design.md, "ACLs"): each answers "allowed" at
// once when no authorizer is configured, so a broker without ACLs pays one property read per
// check and allocates nothing. Where a check sits in a handler, and which error it answers, follow
// Kafka's KafkaApis.

import { ErrorCode } from '../../protocol/errors.js';
import { AclOp, CLUSTER_NAME, ResType } from '../security/acl-model.js';
import type { RequestContext } from './api.js';

export { AclOp, ResType };

/** Whether the request's principal may `op` on the resource (true without an authorizer). */
export function allowed(ctx: RequestContext, op: number, resourceType: number, name: string): boolean {
  const a = ctx.broker.authorizer;
  return a === undefined || a.authorize(ctx.conn, op, resourceType, name);
}

/** `allowed` on the cluster resource. */
export function clusterAllowed(ctx: RequestContext, op: number): boolean {
  const a = ctx.broker.authorizer;
  return a === undefined || a.authorize(ctx.conn, op, ResType.CLUSTER, CLUSTER_NAME);
}

/**
 * The names among `items` the principal may not `op` (each name decided once); null when there is
 * none, which is always the case without an authorizer.
 */
export function deniedNames<T>(
  ctx: RequestContext,
  op: number,
  resourceType: number,
  items: Iterable<T>,
  nameOf: (item: T) => string,
): Set<string> | null {
  const a = ctx.broker.authorizer;
  if (a === undefined) return null;
  let denied: Set<string> | null = null;
  const decided = new Set<string>();
  for (const item of items) {
    const name = nameOf(item);
    if (decided.has(name)) continue;
    decided.add(name);
    if (a.authorize(ctx.conn, op, resourceType, name)) continue;
    denied ??= new Set();
    denied.add(name);
  }
  return denied;
}

/** Kafka's authorized-operations bit field for the resource (every supported one without an authorizer). */
export function authorizedOperations(
  ctx: RequestContext,
  resourceType: number,
  name: string,
  all: number,
): number {
  const a = ctx.broker.authorizer;
  return a === undefined ? all : a.authorizedOperations(ctx.conn, resourceType, name);
}

/**
 * Fetch: followers need CLUSTER_ACTION (without it every partition is refused), consumers READ
 * on each topic; null when nothing is refused.
 */
export function deniedFetchTopics(
  ctx: RequestContext,
  fromFollower: boolean,
  targets: readonly { readonly topic: string }[],
): Set<string> | null {
  if (ctx.broker.authorizer === undefined) return null;
  if (!fromFollower) return deniedNames(ctx, AclOp.READ, ResType.TOPIC, targets, (t) => t.topic);
  return clusterAllowed(ctx, AclOp.CLUSTER_ACTION) ? null : new Set(targets.map((t) => t.topic));
}

/** A topic of a per-partition answer refused as a whole. */
export interface RefusedTopic {
  readonly name: string;
  readonly partitions: { partitionIndex: number; errorCode: number }[];
}

const NONE_REFUSED: readonly RefusedTopic[] = [];

/**
 * Splits request topics into those the principal may `op` and the refused ones, answered
 * TOPIC_AUTHORIZATION_FAILED per partition (OffsetCommit, TxnOffsetCommit, OffsetDelete).
 */
export function splitDeniedTopics<
  T extends { readonly name: string; readonly partitions: readonly { readonly partitionIndex: number }[] },
>(
  ctx: RequestContext,
  op: number,
  topics: readonly T[],
): { allowedTopics: readonly T[]; refused: readonly RefusedTopic[] } {
  const denied = deniedNames(ctx, op, ResType.TOPIC, topics, (t) => t.name);
  if (denied === null) return { allowedTopics: topics, refused: NONE_REFUSED };
  return {
    allowedTopics: topics.filter((t) => !denied.has(t.name)),
    refused: topics
      .filter((t) => denied.has(t.name))
      .map((t) => ({
        name: t.name,
        partitions: t.partitions.map((p) => ({
          partitionIndex: p.partitionIndex,
          errorCode: ErrorCode.TOPIC_AUTHORIZATION_FAILED,
        })),
      })),
  };
}

/**
 * DescribeConfigs / AlterConfigs / IncrementalAlterConfigs: `op` (DESCRIBE_CONFIGS or
 * ALTER_CONFIGS) on the cluster for BROKER and BROKER_LOGGER resources, on the topic for TOPIC
 * ones. The error to answer, or NONE.
 */
export function configRefusal(
  ctx: RequestContext,
  op: number,
  configResourceType: number,
  name: string,
): number {
  if (ctx.broker.authorizer === undefined) return ErrorCode.NONE;
  if (configResourceType === 4 || configResourceType === 8)
    return clusterAllowed(ctx, op) ? ErrorCode.NONE : ErrorCode.CLUSTER_AUTHORIZATION_FAILED;
  if (configResourceType === 2)
    return allowed(ctx, op, ResType.TOPIC, name) ? ErrorCode.NONE : ErrorCode.TOPIC_AUTHORIZATION_FAILED;
  return ErrorCode.NONE;
}
