// What a TLS listener needs, checked before anything binds: the server certificate from the
// listener's keystore (refusing to start without one: an SSL listener never falls back to
// plaintext), the trusted CAs, `ssl.client.auth`, versions, cipher suites and principal rules.
// The same listener's settings make the client side of inter-broker connections (Kafka uses the
// inter-broker listener's config for both ends).

import { createSecureContext, type TlsOptions } from 'node:tls';
import type { TlsConnectOptions } from '../../net/connection.js';
import { opensslCipherList, tlsVersionRange } from '../../net/tls-settings.js';
import { loadKeyStore, loadTrustStore, type TlsIdentity } from '../../net/tls-stores.js';
import { ConfigError } from '../config/config-error.js';
import {
  type ListenerSslConfig,
  listenerSslConfig,
  type SslClientAuth,
} from '../config/listener-ssl-config.js';
import type { ListenerEndpoint } from '../config/listeners.js';
import { parsePrincipalMappingRules } from './principal-mapper.js';

export interface TlsListener {
  readonly options: TlsOptions;
  readonly clientAuth: SslClientAuth;
  readonly principalRules: ReturnType<typeof parsePrincipalMappingRules>;
}

function fail(listener: string, e: unknown): ConfigError {
  return new ConfigError(`listener ${listener}: ${(e as Error).message}`);
}

function common(name: string, ssl: ListenerSslConfig): { identity: TlsIdentity | null; options: TlsOptions } {
  try {
    const identity = loadKeyStore(ssl.keystore);
    const ca = loadTrustStore(ssl.truststore);
    const ciphers = opensslCipherList(ssl.cipherSuites);
    const options: TlsOptions = {
      ...(identity ?? {}),
      ...(ca !== null ? { ca } : {}),
      ...tlsVersionRange(ssl.enabledProtocols),
      ...(ciphers !== undefined ? { ciphers } : {}),
    };
    // Fails now on a wrong password, a key that does not match its certificate, unknown ciphers.
    createSecureContext(options);
    return { identity, options };
  } catch (e) {
    throw fail(name, e);
  }
}

export function tlsListener(listener: ListenerEndpoint, props: ReadonlyMap<string, string>): TlsListener {
  const ssl = listenerSslConfig(props, listener.name);
  const { identity, options } = common(listener.name, ssl);
  if (identity === null) {
    const prefix = `listener.name.${listener.name.toLowerCase()}.`;
    throw new ConfigError(
      `listener ${listener.name} (${listener.securityProtocol}) has no keystore: set ssl.keystore.location ` +
        `(PKCS12 or PEM) or ssl.keystore.certificate.chain and ssl.keystore.key (or the ${prefix}ssl.* forms)`,
    );
  }
  let principalRules: TlsListener['principalRules'];
  try {
    principalRules = parsePrincipalMappingRules(ssl.principalMappingRules);
  } catch (e) {
    throw new ConfigError(`ssl.principal.mapping.rules: ${(e as Error).message}`);
  }
  return {
    // A certificate is asked for unless auth is none; an invalid one is refused either way
    // (`socket-server.ts`), a missing one only when required.
    options: {
      ...options,
      requestCert: ssl.clientAuth !== 'none',
      rejectUnauthorized: ssl.clientAuth === 'required',
    },
    clientAuth: ssl.clientAuth,
    principalRules,
  };
}

/** The client side of connections to other brokers' `listener` (an SSL inter-broker listener). */
export function interBrokerTls(
  listener: ListenerEndpoint,
  props: ReadonlyMap<string, string>,
): TlsConnectOptions {
  const ssl = listenerSslConfig(props, listener.name);
  const { options } = common(listener.name, ssl);
  return {
    ...(options as TlsConnectOptions),
    rejectUnauthorized: true,
    ...(ssl.endpointIdentificationAlgorithm === '' ? { checkServerIdentity: () => undefined } : {}),
  };
}
