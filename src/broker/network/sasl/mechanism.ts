// What a server-side SASL mechanism is: a state machine fed the client's tokens. Failures come
// in Kafka's two kinds: `SaslAuthenticationError` carries a message meant for the client
// (PLAIN's "Invalid username or password"); any other error gets the generic "invalid
// credentials" message, because its text could reveal whether a user exists.

export interface SaslMechanismServer {
  readonly mechanism: string;
  /** The server's next token. */
  evaluate(token: Buffer): Promise<Buffer>;
  readonly complete: boolean;
  /** The authenticated user name, once `complete`. */
  readonly user: string;
}

export class SaslAuthenticationError extends Error {
  override name = 'SaslAuthenticationError';
}

/** Any other failure of an exchange (message for the broker's log only). */
export class SaslExchangeError extends Error {
  override name = 'SaslExchangeError';
}
