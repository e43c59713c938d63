// Shared by the group API handlers (08, 09, 10–16, 42, 47): the broker's group coordinator
// and who is asking (client id and host, as Kafka shows them in DescribeGroups).
import type { GroupCoordinator, RequestOrigin } from '../coordinator/group/index.js';
import type { RequestContext } from './api.js';

export function groupCoordinator(ctx: RequestContext): GroupCoordinator | null {
  return ctx.broker.groups?.coordinator ?? null;
}

export function requestOrigin(ctx: RequestContext): RequestOrigin {
  // Kafka prints the client's InetAddress: "/" + IP, without the port.
  const addr = ctx.conn.remoteAddress;
  const ip = addr.includes(']') ? addr.slice(1, addr.indexOf(']')) : addr.slice(0, addr.lastIndexOf(':'));
  return { clientId: ctx.header.clientId ?? '', clientHost: `/${ip}`, apiVersion: ctx.version };
}

/** DescribeGroups v3+ when asked: READ, DELETE, DESCRIBE (no ACLs: everything is allowed). */
export const GROUP_ALL_OPS = (1 << 3) | (1 << 6) | (1 << 8);
export const OPS_NOT_REQUESTED = -2147483648;
