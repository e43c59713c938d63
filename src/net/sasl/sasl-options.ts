// The `sasl` option of the client (and of any BrokerLink): Kafka's `sasl.mechanism` plus the
// user name and password its JAAS line would carry. `saslFromKafkaProperties` maps
// `sasl.mechanism` + `sasl.jaas.config` (PlainLoginModule / ScramLoginModule `username`,
// `password`), as the Java client reads them.

import { JaasConfigError, parseJaasConfig } from './jaas-config.js';

export const CLIENT_SASL_MECHANISMS = ['PLAIN', 'SCRAM-SHA-256', 'SCRAM-SHA-512'] as const;
export type ClientSaslMechanism = (typeof CLIENT_SASL_MECHANISMS)[number];

export interface SaslOptions {
  readonly mechanism: ClientSaslMechanism;
  readonly username: string;
  readonly password: string;
}

export class SaslOptionError extends Error {
  override name = 'SaslOptionError';
}

/** Checks a `sasl` option; messages never include the password. */
export function validateSaslOptions(o: SaslOptions): SaslOptions {
  if (!(CLIENT_SASL_MECHANISMS as readonly string[]).includes(o.mechanism))
    throw new SaslOptionError(
      `sasl.mechanism ${String(o.mechanism)} is not supported (one of ${CLIENT_SASL_MECHANISMS.join(', ')})`,
    );
  if (typeof o.username !== 'string' || o.username === '')
    throw new SaslOptionError('sasl: username is empty');
  if (typeof o.password !== 'string' || o.password === '')
    throw new SaslOptionError('sasl: password is empty');
  return { mechanism: o.mechanism, username: o.username, password: o.password };
}

/** `sasl.mechanism` (default GSSAPI, as Kafka) and `sasl.jaas.config` → the `sasl` option. */
export function saslFromKafkaProperties(props: Readonly<Record<string, string>>): SaslOptions {
  const mechanism = (props['sasl.mechanism'] ?? 'GSSAPI').trim().toUpperCase();
  const jaas = props['sasl.jaas.config'];
  if (jaas === undefined)
    throw new SaslOptionError('sasl.jaas.config is required for SASL (username and password)');
  let username: string | undefined;
  let password: string | undefined;
  try {
    for (const m of parseJaasConfig(jaas)) {
      username ??= m.options.get('username');
      password ??= m.options.get('password');
    }
  } catch (e) {
    if (e instanceof JaasConfigError) throw new SaslOptionError(`sasl.jaas.config: ${e.message}`);
    throw e;
  }
  return validateSaslOptions({
    mechanism: mechanism as ClientSaslMechanism,
    username: username ?? '',
    password: password ?? '',
  });
}
