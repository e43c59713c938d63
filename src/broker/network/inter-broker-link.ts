// How this broker connects to the other brokers' inter-broker listener (replica fetchers, the
// controller channel, controlled shutdown, AlterPartition, transaction markers): TLS when the
// listener's protocol is SSL or SASL_SSL, SASL with the broker's own identity when it is
// SASL_PLAINTEXT or SASL_SSL. Resolved once at start, so a bad setting stops the start.

import type { BrokerLinkOptions } from '../../net/index.js';
import { interBrokerSaslOptions } from '../config/listener-sasl-config.js';
import type { ListenerEndpoint } from '../config/listeners.js';
import { interBrokerTls } from './tls-listener.js';

export type LinkSecurity = Pick<BrokerLinkOptions, 'tls' | 'sasl'>;

export function interBrokerLinkSecurity(
  listener: ListenerEndpoint,
  props: ReadonlyMap<string, string>,
): LinkSecurity {
  const protocol = listener.securityProtocol;
  return {
    ...(protocol === 'SSL' || protocol === 'SASL_SSL' ? { tls: interBrokerTls(listener, props) } : {}),
    ...(protocol === 'SASL_PLAINTEXT' || protocol === 'SASL_SSL'
      ? { sasl: interBrokerSaslOptions(props, listener.name) }
      : {}),
  };
}
