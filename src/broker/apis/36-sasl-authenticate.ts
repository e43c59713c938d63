// SaslAuthenticate (key 36), v0-2 (v1 adds SessionLifetimeMs for KIP-368 re-authentication,
// v2 is flexible). Carries one token of the mechanism chosen by SaslHandshake v1. A failure
// answers SASL_AUTHENTICATION_FAILED with Kafka's message and the connection closes after
// `connection.failed.authentication.delay.ms` (`network/sasl/sasl-gate.ts`). Outside an
// exchange it answers ILLEGAL_SASL_STATE, as Kafka's KafkaApis.

import { ErrorCode } from '../../protocol/errors.js';
import {
  type SaslAuthenticateRequest,
  type SaslAuthenticateResponse,
  saslAuthenticateApi,
} from '../../protocol/messages/generated/sasl-authenticate.js';
import { defineApi } from './api.js';

export default defineApi<SaslAuthenticateRequest, SaslAuthenticateResponse>({
  api: saslAuthenticateApi,
  minVersion: 0,
  maxVersion: 2,
  handle(ctx, req) {
    const session = ctx.conn.sasl;
    if (session === undefined)
      return {
        errorCode: ErrorCode.ILLEGAL_SASL_STATE,
        errorMessage: 'SaslAuthenticate request received after successful authentication',
        authBytes: Buffer.alloc(0),
        sessionLifetimeMs: 0n,
      };
    return session.authenticate(req.authBytes, ctx.version);
  },
});
