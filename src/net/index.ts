// The outbound Kafka connection, shared by the client and the broker (controller channel, replica
// fetcher). Imports only src/protocol.
export { backoffMs } from './backoff.js';
export {
  BrokerLink,
  type BrokerLinkOptions,
  CLIENT_SOFTWARE_NAME,
  CLIENT_SOFTWARE_VERSION,
  clientThrottles,
  encodeClientRequest,
  type RequestOptions,
  type ThrottleEvent,
} from './broker-link.js';
export {
  Connection,
  type ConnectionOptions,
  type FrameRequest,
  type TlsConnectOptions,
} from './connection.js';
export {
  ClientClosedError,
  ConnectionError,
  errorClass,
  KafkaClientError,
  KafkaResponseError,
  RequestTimeoutError,
  UnsupportedVersionError,
} from './errors.js';
export { JaasConfigError, type JaasLoginModule, parseJaasConfig } from './sasl/jaas-config.js';
export {
  CLIENT_SASL_MECHANISMS,
  type ClientSaslMechanism,
  SaslOptionError,
  type SaslOptions,
  saslFromKafkaProperties,
  validateSaslOptions,
} from './sasl/sasl-options.js';
export {
  credentialFromSaltedPassword,
  isScramMechanism,
  SCRAM_MAX_ITERATIONS,
  SCRAM_MECHANISMS,
  SCRAM_MIN_ITERATIONS,
  type ScramCredential,
  type ScramMechanism,
  saltedPassword,
} from './sasl/scram-crypto.js';
export { opensslCipherList, TlsSettingError, tlsVersionRange } from './tls-settings.js';
export {
  type KeyStoreSpec,
  loadKeyStore,
  loadTrustStore,
  type TlsIdentity,
  TlsStoreError,
  type TrustStoreSpec,
} from './tls-stores.js';
