// SaslHandshake (key 17), v0-1. The client names its mechanism; the answer lists the listener's
// `sasl.enabled.mechanisms`. v0 means the exchange that follows is raw size-prefixed tokens,
// v1 that it is SaslAuthenticate requests. An unknown or disabled mechanism answers
// UNSUPPORTED_SASL_MECHANISM and the connection closes (the gate, `network/sasl/sasl-gate.ts`,
// sees the session fail). Outside an exchange — a non-SASL listener, an authenticated
// connection that cannot re-authenticate — it answers ILLEGAL_SASL_STATE, as Kafka's KafkaApis.

import { ErrorCode } from '../../protocol/errors.js';
import {
  type SaslHandshakeRequest,
  type SaslHandshakeResponse,
  saslHandshakeApi,
} from '../../protocol/messages/generated/sasl-handshake.js';
import { defineApi } from './api.js';

export default defineApi<SaslHandshakeRequest, SaslHandshakeResponse>({
  api: saslHandshakeApi,
  minVersion: 0,
  maxVersion: 1,
  handle(ctx, req) {
    const session = ctx.conn.sasl;
    if (session === undefined) return { errorCode: ErrorCode.ILLEGAL_SASL_STATE, mechanisms: [] };
    return session.handshake(req.mechanism, ctx.version);
  },
});
