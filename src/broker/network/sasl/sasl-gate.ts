// What stands between a SASL connection and the request handlers: until the exchange completes
// only ApiVersions, SaslHandshake and SaslAuthenticate (or, after a v0 handshake, raw tokens)
// are answered; any other request closes the connection, as Kafka's SaslServerAuthenticator
// does. A failed exchange answers (Kafka's error response) after
// `connection.failed.authentication.delay.ms`, then closes. Once authenticated the principal
// goes on the connection context and requests pass through; an expired session (KIP-368)
// accepts only a SaslHandshake that starts re-authentication.

import type { Logger } from '../../logger.js';
import type { ConnectionContext, RequestHandler, RequestOutcome } from '../connection.js';
import type { SaslSession } from './sasl-session.js';

const SASL_HANDSHAKE = 17;
const API_VERSIONS = 18;
const SASL_AUTHENTICATE = 36;

const close = (reason: string): RequestOutcome => ({ kind: 'close', reason, rejected: true });

/** The raw-token answer of a v0 exchange: int32 size + token. */
function sizePrefixed(token: Buffer): Buffer[] {
  const size = Buffer.alloc(4);
  size.writeInt32BE(token.length);
  return token.length === 0 ? [size] : [size, token];
}

export class SaslGate implements RequestHandler {
  constructor(
    private readonly inner: RequestHandler,
    private readonly session: SaslSession,
    private readonly logger: Logger,
  ) {}

  canPipeline(frame: Buffer, conn?: ConnectionContext): boolean {
    // A raw token is no Kafka request: the inner handler never sees it.
    if (this.session.state === 'authenticate' && this.session.rawTokens) return false;
    // Asked even before authentication: the dispatcher notes each request's arrival here.
    const pipelinable = this.inner.canPipeline(frame, conn);
    return this.session.authenticated && pipelinable;
  }

  releasesFrame(frame: Buffer): boolean {
    return this.session.authenticated && this.inner.releasesFrame?.(frame) === true;
  }

  /** An unauthenticated peer may not make the broker buffer large frames (Kafka's limit). */
  maxFrameBytes(): number {
    return this.session.authenticated ? Number.POSITIVE_INFINITY : this.session.listener.maxReceiveBytes;
  }

  async handle(frame: Buffer, conn: ConnectionContext): Promise<RequestOutcome> {
    const s = this.session;
    if (s.state === 'authenticate' && s.rawTokens) return this.#rawToken(frame, conn);
    if (frame.length < 8) return close(`truncated request header (${frame.length} bytes)`);
    const key = frame.readInt16BE(0);
    if (s.state === 'complete') {
      if (key === SASL_HANDSHAKE && s.beginReauthentication()) return this.#exchange(frame, conn);
      if (s.expired)
        return close('SASL session expired (connections.max.reauth.ms) and was not re-authenticated');
      return this.inner.handle(frame, conn);
    }
    const allowed =
      s.state === 'handshake'
        ? key === SASL_HANDSHAKE || (key === API_VERSIONS && !s.reauthenticating)
        : key === SASL_AUTHENTICATE;
    if (!allowed) return close(`API key ${key} before SASL authentication completed`);
    return this.#exchange(frame, conn);
  }

  async #exchange(frame: Buffer, conn: ConnectionContext): Promise<RequestOutcome> {
    const outcome = await this.inner.handle(frame, conn);
    if (this.session.state === 'failed') {
      await this.#failed(conn);
      const reason = 'SASL authentication failed';
      return outcome.kind === 'respond' ? { ...outcome, closeAfter: reason } : close(reason);
    }
    if (this.session.state === 'complete') this.#authenticated(conn);
    return outcome;
  }

  async #rawToken(token: Buffer, conn: ConnectionContext): Promise<RequestOutcome> {
    try {
      const response = await this.session.rawToken(token);
      if (this.session.state === 'complete') this.#authenticated(conn);
      return { kind: 'respond', chunks: sizePrefixed(response) };
    } catch {
      await this.#failed(conn);
      return close('SASL authentication failed');
    }
  }

  #authenticated(conn: ConnectionContext): void {
    const principal = this.session.principal!;
    if (conn.security?.principal !== principal) {
      conn.security = {
        listenerName: conn.security?.listenerName ?? '',
        securityProtocol: conn.security?.securityProtocol ?? '',
        principal,
      };
    }
    this.logger.log('debug', 'SASL authentication succeeded', {
      conn: conn.remoteAddress,
      mechanism: this.session.mechanism,
      principal,
    });
  }

  /** Logs the failure (the reason never holds a password) and waits Kafka's delay. */
  async #failed(conn: ConnectionContext): Promise<void> {
    this.logger.log('info', 'Failed authentication', {
      conn: conn.remoteAddress,
      listener: conn.security?.listenerName,
      mechanism: this.session.mechanism,
      reason: this.session.failure,
    });
    const delay = this.session.listener.failedAuthDelayMs;
    if (delay > 0) await new Promise((r) => setTimeout(r, delay));
  }
}
