// What the three ACL APIs share: turning request filters and creations into the model's bindings,
// Kafka's refusal of UNKNOWN codes (its request classes throw while parsing, so the connection is
// closed), and the SECURITY_DISABLED answer of a broker without an authorizer.

import {
  type AclBinding,
  type AclBindingFilter,
  isKnownOperation,
  isKnownPattern,
  isKnownPermission,
  isKnownResourceType,
  PatternCode,
} from '../security/acl-model.js';
import { CloseConnection } from './api.js';

export const NO_AUTHORIZER = 'No Authorizer is configured on the broker';

/** The wire form shared by DescribeAcls' request and DeleteAcls' filters. */
export interface WireFilter {
  readonly resourceTypeFilter: number;
  readonly resourceNameFilter: string | null;
  readonly patternTypeFilter: number;
  readonly principalFilter: string | null;
  readonly hostFilter: string | null;
  readonly operation: number;
  readonly permissionType: number;
}

export interface WireCreation {
  readonly resourceType: number;
  readonly resourceName: string;
  readonly resourcePatternType: number;
  readonly principal: string;
  readonly host: string;
  readonly operation: number;
  readonly permissionType: number;
}

/**
 * A filter, or the CloseConnection Kafka's parsing amounts to: an UNKNOWN (or undefined) code,
 * or a v0 request with a pattern type other than LITERAL (ANY is read as LITERAL there).
 */
export function toFilter(w: WireFilter, version: number): AclBindingFilter | CloseConnection {
  let patternType = w.patternTypeFilter;
  if (version === 0) {
    if (patternType === PatternCode.ANY) patternType = PatternCode.LITERAL;
    if (patternType !== PatternCode.LITERAL)
      return new CloseConnection('ACL filter: version 0 supports only LITERAL patterns');
  }
  if (
    !isKnownResourceType(w.resourceTypeFilter) ||
    !isKnownPattern(patternType) ||
    !isKnownOperation(w.operation) ||
    !isKnownPermission(w.permissionType)
  )
    return new CloseConnection('ACL filter contains UNKNOWN elements');
  return {
    resourceType: w.resourceTypeFilter,
    name: w.resourceNameFilter,
    patternType,
    principal: w.principalFilter,
    host: w.hostFilter,
    operation: w.operation,
    permission: w.permissionType,
  };
}

/** The binding a creation asks for; UNKNOWN codes close the connection (Kafka's request check). */
export function toBinding(c: WireCreation, version: number): AclBinding | CloseConnection {
  if (version === 0 && c.resourcePatternType !== PatternCode.LITERAL)
    return new CloseConnection('CreateAcls v0 supports only LITERAL patterns');
  if (
    !isKnownResourceType(c.resourceType) ||
    !isKnownPattern(c.resourcePatternType) ||
    !isKnownOperation(c.operation) ||
    !isKnownPermission(c.permissionType)
  )
    return new CloseConnection('CreatableAcls contain unknown elements');
  return {
    pattern: { resourceType: c.resourceType, patternType: c.resourcePatternType, name: c.resourceName },
    entry: { principal: c.principal, host: c.host, operation: c.operation, permission: c.permissionType },
  };
}
