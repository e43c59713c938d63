// The brokers as a client of one listener must see them (Kafka's getAliveBrokerNodes(listener)):
// each broker's endpoint for the listener the request came through, so a client on the SSL port
// is sent to SSL ports. A broker without that listener is left out, as Kafka does. Images
// without endpoints (hand-made in tests) give every broker's host/port.

import type { BrokerEndpoint } from '../metadata/store/records.js';
import type { RequestContext } from './api.js';

export interface ListenerBroker {
  readonly nodeId: number;
  readonly host: string;
  readonly port: number;
  readonly rack: string | null;
}

export function brokersForListener(ctx: Pick<RequestContext, 'conn' | 'broker'>): ListenerBroker[] {
  const listener = ctx.conn.security?.listenerName ?? 'PLAINTEXT';
  const out: ListenerBroker[] = [];
  for (const b of ctx.broker.image.brokers) {
    const endpoints = (b as { readonly endpoints?: readonly BrokerEndpoint[] }).endpoints;
    if (endpoints === undefined || endpoints.length === 0) {
      out.push({ nodeId: b.nodeId, host: b.host, port: b.port, rack: b.rack });
      continue;
    }
    const e = endpoints.find((x) => x.listener === listener);
    if (e !== undefined) out.push({ nodeId: b.nodeId, host: e.host, port: e.port, rack: b.rack });
  }
  return out;
}
