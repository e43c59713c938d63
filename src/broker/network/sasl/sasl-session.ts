// The SASL state of one connection, as Kafka's SaslServerAuthenticator keeps it:
// handshake (ApiVersions and SaslHandshake allowed) → authenticate (SaslAuthenticate, or raw
// size-prefixed tokens after a v0 handshake) → complete (the principal is `User:<name>`), or
// failed (the connection closes after `connection.failed.authentication.delay.ms`).
// With `connections.max.reauth.ms` a session expires (KIP-368): the client re-authenticates
// with a new SaslHandshake on the same connection, keeping its mechanism and principal.

import { isScramMechanism } from '../../../net/sasl/scram-crypto.js';
import { ErrorCode } from '../../../protocol/errors.js';
import { SaslAuthenticationError, type SaslMechanismServer } from './mechanism.js';
import { PlainServer } from './plain-server.js';
import { type ScramCredentialLookup, ScramServer } from './scram-server.js';

export interface SaslListener {
  readonly enabledMechanisms: readonly string[];
  /** PLAIN's users from the JAAS line: name → password. */
  readonly plainUsers: ReadonlyMap<string, string>;
  /** `connections.max.reauth.ms`; 0 = sessions never expire. */
  readonly reauthMs: number;
  /** `connection.failed.authentication.delay.ms`. */
  readonly failedAuthDelayMs: number;
  /** `sasl.server.max.receive.size`: the largest frame accepted before authentication. */
  readonly maxReceiveBytes: number;
}

export type SaslState = 'handshake' | 'authenticate' | 'complete' | 'failed';

export interface AuthenticateResult {
  readonly errorCode: number;
  readonly errorMessage: string | null;
  readonly authBytes: Buffer;
  readonly sessionLifetimeMs: bigint;
}

const EMPTY = Buffer.alloc(0);

export class SaslSession {
  #state: SaslState = 'handshake';
  #server: SaslMechanismServer | null = null;
  #mechanism: string | null = null;
  #principal: string | null = null;
  #expiresAt = Number.POSITIVE_INFINITY;
  #reauthenticating = false;
  /** Raw tokens follow (SaslHandshake v0: no SaslAuthenticate framing). */
  #raw = false;
  /** The client sent SaslAuthenticate v1+, so it can re-authenticate (KIP-368). */
  #supportsReauth = false;
  /** Why the exchange failed (for the log; never holds a password). */
  failure = '';

  constructor(
    readonly listener: SaslListener,
    private readonly scram: ScramCredentialLookup,
    private readonly now: () => number = Date.now,
  ) {}

  get state(): SaslState {
    return this.#state;
  }

  get rawTokens(): boolean {
    return this.#raw;
  }

  get mechanism(): string | null {
    return this.#mechanism;
  }

  /** `User:<name>` once authenticated. */
  get principal(): string | null {
    return this.#principal;
  }

  get reauthenticating(): boolean {
    return this.#reauthenticating;
  }

  get authenticated(): boolean {
    return this.#state === 'complete' && this.now() < this.#expiresAt;
  }

  get expired(): boolean {
    return this.#state === 'complete' && this.now() >= this.#expiresAt;
  }

  /** A SaslHandshake on an authenticated connection: starts re-authentication if the client can. */
  beginReauthentication(): boolean {
    if (this.#state !== 'complete' || !this.#supportsReauth) return false;
    this.#state = 'handshake';
    this.#reauthenticating = true;
    return true;
  }

  handshake(mechanism: string, version: number): { errorCode: number; mechanisms: string[] } {
    const mechanisms = [...this.listener.enabledMechanisms];
    if (this.#state !== 'handshake') return { errorCode: ErrorCode.ILLEGAL_SASL_STATE, mechanisms };
    if (!mechanisms.includes(mechanism)) {
      this.#fail(`Unsupported SASL mechanism ${mechanism}`);
      return { errorCode: ErrorCode.UNSUPPORTED_SASL_MECHANISM, mechanisms };
    }
    if (this.#reauthenticating && mechanism !== this.#mechanism) {
      this.#fail(
        `SASL mechanism '${mechanism}' requested by client is not supported for re-authentication of mechanism '${this.#mechanism}'`,
      );
      return { errorCode: ErrorCode.UNSUPPORTED_SASL_MECHANISM, mechanisms };
    }
    this.#mechanism = mechanism;
    this.#server = isScramMechanism(mechanism)
      ? new ScramServer(mechanism, this.scram)
      : new PlainServer(this.listener.plainUsers);
    this.#raw = version === 0;
    this.#state = 'authenticate';
    return { errorCode: ErrorCode.NONE, mechanisms };
  }

  /** One SaslAuthenticate request. */
  async authenticate(token: Buffer, version: number): Promise<AuthenticateResult> {
    if (this.#state !== 'authenticate' || this.#raw)
      return {
        errorCode: ErrorCode.ILLEGAL_SASL_STATE,
        errorMessage: 'SaslAuthenticate request received after successful authentication',
        authBytes: EMPTY,
        sessionLifetimeMs: 0n,
      };
    if (version > 0) this.#supportsReauth = true;
    try {
      const authBytes = await this.#evaluate(token);
      const lifetime = this.state === 'complete' ? this.listener.reauthMs : 0;
      return {
        errorCode: ErrorCode.NONE,
        errorMessage: null,
        authBytes,
        sessionLifetimeMs: BigInt(lifetime),
      };
    } catch (e) {
      return {
        errorCode: ErrorCode.SASL_AUTHENTICATION_FAILED,
        errorMessage: this.#clientMessage(e),
        authBytes: EMPTY,
        sessionLifetimeMs: 0n,
      };
    }
  }

  /** One raw token after a v0 handshake; throws (the connection closes) on failure. */
  async rawToken(token: Buffer): Promise<Buffer> {
    try {
      return await this.#evaluate(token);
    } catch (e) {
      this.#clientMessage(e);
      throw e;
    }
  }

  async #evaluate(token: Buffer): Promise<Buffer> {
    const server = this.#server!;
    const response = await server.evaluate(token);
    if (server.complete) {
      const principal = `User:${server.user}`;
      if (this.#reauthenticating && principal !== this.#principal)
        throw new SaslAuthenticationError(
          `Cannot change principals during re-authentication from ${this.#principal}: ${principal}`,
        );
      this.#principal = principal;
      this.#state = 'complete';
      this.#reauthenticating = false;
      this.#expiresAt =
        this.listener.reauthMs > 0 ? this.now() + this.listener.reauthMs : Number.POSITIVE_INFINITY;
    }
    return response;
  }

  #clientMessage(e: unknown): string {
    const message = e instanceof Error ? e.message : String(e);
    this.#fail(message);
    if (e instanceof SaslAuthenticationError) return message;
    const during = this.#reauthenticating ? 're-authentication' : 'authentication';
    return `Authentication failed during ${during} due to invalid credentials with SASL mechanism ${this.#mechanism}`;
  }

  #fail(why: string): void {
    this.#state = 'failed';
    this.failure = why;
  }
}
