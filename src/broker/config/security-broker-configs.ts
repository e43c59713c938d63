// The listener, TLS and SASL keys Samsa acts on, with Kafka's types and defaults. Kept in their own
// list (spread into BROKER_CONFIGS) so the security keys are found in one place; `dynamic`
// comes from Kafka's table like every other broker key. Values are resolved per listener by
// `listener-ssl-config.ts` (`listener.name.<l>.ssl.*` wins key by key) and
// `listener-sasl-config.ts` (`listener.name.<l>.sasl.enabled.mechanisms`,
// `listener.name.<l>.<mechanism>.sasl.jaas.config`).

import type { BrokerConfigDef } from './broker-configs.js';
import { atLeast, type ConfigDef, oneOf } from './config-def.js';
import { dynamicMode } from './dynamic-broker-keys.js';

function def(
  name: string,
  type: ConfigDef['type'],
  dflt: string | null,
  doc: string,
  validate?: ConfigDef['validate'],
): BrokerConfigDef {
  return {
    name,
    type,
    default: dflt,
    doc,
    dynamic: dynamicMode(name) !== null,
    ...(validate ? { validate } : {}),
  };
}

export const SECURITY_BROKER_CONFIGS: readonly BrokerConfigDef[] = [
  def(
    'authorizer.class.name',
    'string',
    '',
    "The authorizer: Kafka's AclAuthorizer or StandardAuthorizer turn ACLs on; empty allows everything.",
  ),
  def(
    'listener.security.protocol.map',
    'string',
    'PLAINTEXT:PLAINTEXT,SSL:SSL,SASL_PLAINTEXT:SASL_PLAINTEXT,SASL_SSL:SASL_SSL',
    'Listener name to security protocol.',
  ),
  def('inter.broker.listener.name', 'string', null, 'Listener brokers and the controller talk over.'),
  def(
    'security.inter.broker.protocol',
    'string',
    'PLAINTEXT',
    'Security protocol between brokers (when inter.broker.listener.name is not set).',
    oneOf(['PLAINTEXT', 'SSL', 'SASL_PLAINTEXT', 'SASL_SSL'], true),
  ),
  def('ssl.keystore.type', 'string', 'JKS', 'Keystore format: PKCS12 or PEM (JKS must be converted).'),
  def('ssl.keystore.location', 'string', null, 'Keystore file.'),
  def('ssl.keystore.password', 'password', null, 'Keystore password.'),
  def('ssl.key.password', 'password', null, 'Private key password.'),
  def('ssl.keystore.certificate.chain', 'password', null, 'Certificate chain (PEM).'),
  def('ssl.keystore.key', 'password', null, 'Private key (PEM).'),
  def('ssl.truststore.type', 'string', 'JKS', 'Truststore format: PKCS12 or PEM.'),
  def('ssl.truststore.location', 'string', null, 'Truststore file.'),
  def('ssl.truststore.password', 'password', null, 'Truststore password.'),
  def('ssl.truststore.certificates', 'password', null, 'Trusted certificates (PEM).'),
  def(
    'ssl.client.auth',
    'string',
    'none',
    'Client authentication.',
    oneOf(['required', 'requested', 'none']),
  ),
  def('ssl.enabled.protocols', 'list', 'TLSv1.2,TLSv1.3', 'Enabled TLS versions.'),
  def('ssl.cipher.suites', 'list', '', 'Cipher suites (IANA or OpenSSL names; empty = the defaults).'),
  def('ssl.endpoint.identification.algorithm', 'string', 'https', 'Hostname verification (inter-broker).'),
  def('ssl.principal.mapping.rules', 'string', 'DEFAULT', 'Certificate subject to principal name rules.'),
  def(
    'sasl.enabled.mechanisms',
    'list',
    'GSSAPI',
    'SASL mechanisms of SASL listeners (samsa: PLAIN, SCRAM-SHA-256, SCRAM-SHA-512).',
  ),
  def('sasl.jaas.config', 'password', null, 'JAAS login context (PLAIN users: user_<name>="<password>").'),
  def(
    'sasl.mechanism.inter.broker.protocol',
    'string',
    'GSSAPI',
    'SASL mechanism brokers authenticate to each other with (samsa: PLAIN, SCRAM-SHA-256, SCRAM-SHA-512).',
  ),
  def(
    'connections.max.reauth.ms',
    'long',
    '0',
    'SASL session lifetime before re-authentication (KIP-368); 0 = never.',
    atLeast(0),
  ),
  def(
    'sasl.server.max.receive.size',
    'int',
    '524288',
    'Largest request accepted before SASL authentication.',
    atLeast(0),
  ),
  def(
    'connection.failed.authentication.delay.ms',
    'int',
    '100',
    'Delay before closing a connection whose authentication failed.',
    atLeast(0),
  ),
];
