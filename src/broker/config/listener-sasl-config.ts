// The SASL settings of one SASL_PLAINTEXT / SASL_SSL listener, resolved as Kafka's broker does:
// `listener.name.<l>.sasl.enabled.mechanisms` over `sasl.enabled.mechanisms`; the JAAS line of a
// mechanism from `listener.name.<l>.<mechanism lower-cased>.sasl.jaas.config`, else
// `sasl.jaas.config`; PLAIN's users are its `user_<name>="<password>"` options. Checked before
// anything binds: a mechanism samsa lacks (GSSAPI — Kafka's default — or OAUTHBEARER) or PLAIN
// without users stops the start with one line. Messages never quote a JAAS value.

import { JaasConfigError, parseJaasConfig } from '../../net/sasl/jaas-config.js';
import type { ClientSaslMechanism, SaslOptions } from '../../net/sasl/sasl-options.js';
import type { SaslListener } from '../network/sasl/sasl-session.js';
import { BROKER_CONFIGS } from './broker-configs.js';
import { parseList } from './config-def.js';
import { ConfigError } from './config-error.js';

export const SUPPORTED_SASL_MECHANISMS: readonly string[] = ['PLAIN', 'SCRAM-SHA-256', 'SCRAM-SHA-512'];

export function listenerSaslConfig(props: ReadonlyMap<string, string>, listenerName: string): SaslListener {
  const prefix = `listener.name.${listenerName.toLowerCase()}.`;
  const get = (key: string): string | null =>
    props.get(prefix + key) ?? props.get(key) ?? BROKER_CONFIGS.get(key)?.default ?? null;
  const fail = (why: string) => new ConfigError(`listener ${listenerName}: ${why}`);
  const enabledMechanisms = parseList(get('sasl.enabled.mechanisms') ?? '').map((m) => m.toUpperCase());
  if (enabledMechanisms.length === 0) throw fail('sasl.enabled.mechanisms is empty');
  const unsupported = enabledMechanisms.filter((m) => !SUPPORTED_SASL_MECHANISMS.includes(m));
  if (unsupported.length > 0)
    throw fail(
      `SASL mechanism ${unsupported.join(', ')} is not supported by samsa; set sasl.enabled.mechanisms ` +
        `(or ${prefix}sasl.enabled.mechanisms) to ${SUPPORTED_SASL_MECHANISMS.join(', ')} or a subset`,
    );
  const plainUsers = new Map<string, string>();
  if (enabledMechanisms.includes('PLAIN')) {
    const jaasKey = `${prefix}plain.sasl.jaas.config`;
    const jaas = props.get(jaasKey) ?? props.get('sasl.jaas.config');
    if (jaas === undefined)
      throw fail(`PLAIN is enabled but has no JAAS configuration: set ${jaasKey} (or sasl.jaas.config)`);
    let modules: ReturnType<typeof parseJaasConfig>;
    try {
      modules = parseJaasConfig(jaas);
    } catch (e) {
      if (e instanceof JaasConfigError) throw fail(`invalid JAAS configuration for PLAIN: ${e.message}`);
      throw e;
    }
    for (const m of modules)
      for (const [k, v] of m.options)
        if (k.startsWith('user_') && k.length > 5) plainUsers.set(k.slice(5), v);
    if (plainUsers.size === 0)
      throw fail('the JAAS configuration for PLAIN names no user (options user_<name>="<password>")');
  }
  return {
    enabledMechanisms,
    plainUsers,
    reauthMs: Number(get('connections.max.reauth.ms') ?? '0'),
    failedAuthDelayMs: Number(get('connection.failed.authentication.delay.ms') ?? '100'),
    maxReceiveBytes: Number(get('sasl.server.max.receive.size') ?? '524288'),
  };
}

/**
 * The SASL identity this broker presents to the other brokers' inter-broker listener, resolved as
 * Kafka does: the mechanism is `sasl.mechanism.inter.broker.protocol` (GSSAPI by default, which
 * samsa lacks: refused with one line) and must be enabled on that listener; the user name and
 * password are the `username` / `password` options of the mechanism's JAAS line on the listener.
 */
export function interBrokerSaslOptions(
  props: ReadonlyMap<string, string>,
  listenerName: string,
): SaslOptions {
  const prefix = `listener.name.${listenerName.toLowerCase()}.`;
  const fail = (why: string) => new ConfigError(`inter-broker listener ${listenerName}: ${why}`);
  const mechanism = (props.get('sasl.mechanism.inter.broker.protocol') ?? 'GSSAPI').trim().toUpperCase();
  if (!SUPPORTED_SASL_MECHANISMS.includes(mechanism))
    throw fail(
      `sasl.mechanism.inter.broker.protocol ${mechanism} is not supported by samsa; set it to ` +
        `${SUPPORTED_SASL_MECHANISMS.join(', ')}`,
    );
  const { enabledMechanisms } = listenerSaslConfig(props, listenerName);
  if (!enabledMechanisms.includes(mechanism))
    throw fail(
      `sasl.mechanism.inter.broker.protocol ${mechanism} must be included in sasl.enabled.mechanisms ` +
        `when SASL is used for inter-broker communication`,
    );
  const jaasKey = `${prefix}${mechanism.toLowerCase()}.sasl.jaas.config`;
  const jaas = props.get(jaasKey) ?? props.get('sasl.jaas.config');
  if (jaas === undefined)
    throw fail(`set ${jaasKey} with the broker's own username="..." password="..." options`);
  let username: string | undefined;
  let password: string | undefined;
  try {
    for (const m of parseJaasConfig(jaas)) {
      username ??= m.options.get('username');
      password ??= m.options.get('password');
    }
  } catch (e) {
    if (e instanceof JaasConfigError) throw fail(`invalid JAAS configuration for ${mechanism}: ${e.message}`);
    throw e;
  }
  if (!username || !password)
    throw fail(
      `the JAAS configuration of ${jaasKey} needs the broker's own username="..." and password="..."`,
    );
  return { mechanism: mechanism as ClientSaslMechanism, username, password };
}
