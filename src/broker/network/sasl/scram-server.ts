// SASL/SCRAM-SHA-256 and -512 (RFC 5802, RFC 7677) as Kafka's ScramSaslServer: client-first →
// server-first (the client's nonce extended with ours, the user's salt and iterations) →
// client-final (proof checked against the stored key) → server-final (our signature). The
// credential comes from the metadata store; the password never reaches the broker.

import {
  constantTimeEqual,
  hash,
  hmac,
  SCRAM_MIN_ITERATIONS,
  type ScramCredential,
  type ScramMechanism,
  scramNonce,
  xor,
} from '../../../net/sasl/scram-crypto.js';
import {
  type ClientFirst,
  formatServerFirst,
  parseClientFinal,
  parseClientFirst,
} from '../../../net/sasl/scram-messages.js';
import { SaslAuthenticationError, SaslExchangeError, type SaslMechanismServer } from './mechanism.js';

export type ScramCredentialLookup = (
  user: string,
  mechanism: ScramMechanism,
) => Promise<ScramCredential | null>;

interface Pending {
  readonly first: ClientFirst;
  readonly serverFirst: string;
  readonly nonce: string;
  readonly credential: ScramCredential;
}

export class ScramServer implements SaslMechanismServer {
  complete = false;
  user = '';
  #pending: Pending | null = null;
  #done = false;

  constructor(
    readonly mechanism: ScramMechanism,
    private readonly lookup: ScramCredentialLookup,
  ) {}

  async evaluate(token: Buffer): Promise<Buffer> {
    if (this.#done) throw new SaslExchangeError('Unexpected SCRAM message after the exchange ended');
    return this.#pending === null ? this.#first(token.toString('utf8')) : this.#final(token.toString('utf8'));
  }

  async #first(text: string): Promise<Buffer> {
    let first: ClientFirst;
    try {
      first = parseClientFirst(text);
    } catch (e) {
      throw new SaslExchangeError((e as Error).message);
    }
    // Kafka's only extension is delegation-token authentication, which samsa does not have.
    if (first.extensions.get('tokenauth') === 'true')
      throw new SaslExchangeError('Delegation token authentication is not supported');
    const credential = await this.lookup(first.username, this.mechanism);
    if (credential === null) throw new SaslExchangeError('Authentication failed: Invalid user credentials');
    if (first.authzid !== '' && first.authzid !== first.username)
      throw new SaslAuthenticationError(
        'Authentication failed: Client requested an authorization id that is different from username',
      );
    if (credential.iterations < SCRAM_MIN_ITERATIONS)
      throw new SaslExchangeError(
        `Iterations ${credential.iterations} is less than the minimum ${SCRAM_MIN_ITERATIONS}`,
      );
    const nonce = first.nonce + scramNonce();
    const serverFirst = formatServerFirst({
      nonce,
      salt: credential.salt,
      iterations: credential.iterations,
    });
    this.#pending = { first, serverFirst, nonce, credential };
    return Buffer.from(serverFirst, 'utf8');
  }

  async #final(text: string): Promise<Buffer> {
    const p = this.#pending!;
    this.#done = true;
    let final: ReturnType<typeof parseClientFinal>;
    try {
      final = parseClientFinal(text);
    } catch (e) {
      throw new SaslExchangeError((e as Error).message);
    }
    // Kafka accepts any nonce that ends with ours: librdkafka (2.0.x) sends its own nonce in
    // front of the combined one it received.
    if (!final.nonce.endsWith(p.nonce))
      throw new SaslExchangeError('Invalid client nonce in the final client message.');
    const authMessage = `${p.first.bare},${p.serverFirst},${final.withoutProof}`;
    const m = this.mechanism;
    const signature = hmac(m, p.credential.storedKey, authMessage);
    const computedClientKey = xor(final.proof, signature);
    if (
      final.proof.length !== signature.length ||
      !constantTimeEqual(hash(m, computedClientKey), p.credential.storedKey)
    )
      throw new SaslExchangeError('Invalid client credentials');
    this.user = p.first.username;
    this.complete = true;
    return Buffer.from(`v=${hmac(m, p.credential.serverKey, authMessage).toString('base64')}`, 'utf8');
  }
}
