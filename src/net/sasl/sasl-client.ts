// Authenticates a freshly opened connection (after ApiVersions): SaslHandshake v1 naming the
// mechanism, then SaslAuthenticate round trips — one for PLAIN, two for SCRAM. A refusal is a
// non-retriable KafkaResponseError with the broker's message (UNSUPPORTED_SASL_MECHANISM,
// SASL_AUTHENTICATION_FAILED); the password never appears in an error.

import { ErrorCode } from '../../protocol/errors.js';
import { saslAuthenticateApi } from '../../protocol/messages/generated/sasl-authenticate.js';
import { saslHandshakeApi } from '../../protocol/messages/generated/sasl-handshake.js';
import type { BrokerLink } from '../broker-link.js';
import type { Connection } from '../connection.js';
import { KafkaResponseError } from '../errors.js';
import type { SaslOptions } from './sasl-options.js';
import { ScramClient } from './scram-client.js';
import { ScramMessageError } from './scram-messages.js';

export interface SaslResult {
  /** The broker's session lifetime (KIP-368); 0 = no expiry. */
  readonly sessionLifetimeMs: number;
}

export async function saslAuthenticate(
  link: BrokerLink,
  conn: Connection,
  o: SaslOptions,
): Promise<SaslResult> {
  const where = `SASL ${o.mechanism} authentication with ${link.host}:${link.port}`;
  const hs = await link.requestOn(conn, saslHandshakeApi, { mechanism: o.mechanism }, { minVersion: 1 });
  if (hs.errorCode !== ErrorCode.NONE)
    throw new KafkaResponseError(
      hs.errorCode,
      where,
      `the broker enables ${hs.mechanisms.length > 0 ? hs.mechanisms.join(', ') : 'no mechanism'}`,
    );
  const step = async (token: Buffer) => {
    const res = await link.requestOn(conn, saslAuthenticateApi, { authBytes: token });
    if (res.errorCode !== ErrorCode.NONE)
      throw new KafkaResponseError(res.errorCode, where, res.errorMessage);
    return res;
  };
  if (o.mechanism === 'PLAIN') {
    const res = await step(Buffer.from(`\0${o.username}\0${o.password}`, 'utf8'));
    return { sessionLifetimeMs: Number(res.sessionLifetimeMs) };
  }
  const scram = new ScramClient(o.mechanism, o.username, o.password);
  try {
    const serverFirst = await step(scram.first());
    const serverFinal = await step(scram.final(serverFirst.authBytes));
    scram.verify(serverFinal.authBytes);
    return { sessionLifetimeMs: Number(serverFinal.sessionLifetimeMs) };
  } catch (e) {
    if (e instanceof ScramMessageError)
      throw new KafkaResponseError(ErrorCode.SASL_AUTHENTICATION_FAILED, where, e.message);
    throw e;
  }
}
