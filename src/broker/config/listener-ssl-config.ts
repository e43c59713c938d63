// The `ssl.*` settings of one listener, as Kafka resolves them (ChannelBuilders: the config
// "with prefix override"): each `listener.name.<listener>.ssl.<key>` wins over `ssl.<key>` key by
// key, the listener name lower-cased in the prefix; what neither sets takes Kafka's default.

import type { KeyStoreSpec, TrustStoreSpec } from '../../net/tls-stores.js';
import { BROKER_CONFIGS } from './broker-configs.js';
import { parseList } from './config-def.js';

export type SslClientAuth = 'none' | 'requested' | 'required';

export interface ListenerSslConfig {
  readonly keystore: KeyStoreSpec;
  readonly truststore: TrustStoreSpec;
  readonly clientAuth: SslClientAuth;
  readonly enabledProtocols: readonly string[];
  readonly cipherSuites: readonly string[];
  /** `ssl.endpoint.identification.algorithm`: 'https' checks the host name; '' does not. */
  readonly endpointIdentificationAlgorithm: string;
  readonly principalMappingRules: string;
}

export function listenerSslConfig(
  props: ReadonlyMap<string, string>,
  listenerName: string,
): ListenerSslConfig {
  const prefix = `listener.name.${listenerName.toLowerCase()}.`;
  const get = (key: string): string | null =>
    props.get(prefix + key) ?? props.get(key) ?? BROKER_CONFIGS.get(key)?.default ?? null;
  return {
    keystore: {
      type: get('ssl.keystore.type'),
      location: get('ssl.keystore.location'),
      password: get('ssl.keystore.password'),
      keyPassword: get('ssl.key.password'),
      certificateChain: get('ssl.keystore.certificate.chain'),
      key: get('ssl.keystore.key'),
    },
    truststore: {
      type: get('ssl.truststore.type'),
      location: get('ssl.truststore.location'),
      password: get('ssl.truststore.password'),
      certificates: get('ssl.truststore.certificates'),
    },
    clientAuth: (get('ssl.client.auth') ?? 'none').toLowerCase() as SslClientAuth,
    enabledProtocols: parseList(get('ssl.enabled.protocols') ?? ''),
    cipherSuites: parseList(get('ssl.cipher.suites') ?? ''),
    endpointIdentificationAlgorithm: (get('ssl.endpoint.identification.algorithm') ?? '').trim(),
    principalMappingRules: get('ssl.principal.mapping.rules') ?? 'DEFAULT',
  };
}
