// The client side of SCRAM-SHA-256/512 (RFC 5802): client-first, then the final message with
// the proof computed from the server's salt and iterations, then the server's signature
// checked, so a broker that does not hold our credential cannot pretend to.

import {
  clientKey,
  constantTimeEqual,
  hash,
  hmac,
  SCRAM_MIN_ITERATIONS,
  type ScramMechanism,
  saltedPassword,
  scramNonce,
  serverKey,
  xor,
} from './scram-crypto.js';
import {
  formatClientFinalWithoutProof,
  formatClientFirstBare,
  parseServerFinal,
  parseServerFirst,
  ScramMessageError,
} from './scram-messages.js';

const GS2_HEADER = 'n,,';

export class ScramClient {
  readonly #nonce = scramNonce();
  readonly #firstBare: string;
  #expectedSignature: Buffer | null = null;

  constructor(
    private readonly mechanism: ScramMechanism,
    username: string,
    private readonly password: string,
  ) {
    this.#firstBare = formatClientFirstBare(username, this.#nonce);
  }

  first(): Buffer {
    return Buffer.from(GS2_HEADER + this.#firstBare, 'utf8');
  }

  final(serverFirstBytes: Buffer): Buffer {
    const serverFirstText = serverFirstBytes.toString('utf8');
    const serverFirst = parseServerFirst(serverFirstText);
    if (!serverFirst.nonce.startsWith(this.#nonce) || serverFirst.nonce === this.#nonce)
      throw new ScramMessageError('Invalid server nonce: does not extend the client nonce');
    if (serverFirst.iterations < SCRAM_MIN_ITERATIONS)
      throw new ScramMessageError(
        `Server asked for ${serverFirst.iterations} iterations, fewer than ${SCRAM_MIN_ITERATIONS}`,
      );
    const m = this.mechanism;
    const salted = saltedPassword(m, this.password, serverFirst.salt, serverFirst.iterations);
    const withoutProof = formatClientFinalWithoutProof(GS2_HEADER, serverFirst.nonce);
    const authMessage = `${this.#firstBare},${serverFirstText},${withoutProof}`;
    const ck = clientKey(m, salted);
    const proof = xor(ck, hmac(m, hash(m, ck), authMessage));
    this.#expectedSignature = hmac(m, serverKey(m, salted), authMessage);
    return Buffer.from(`${withoutProof},p=${proof.toString('base64')}`, 'utf8');
  }

  verify(serverFinalBytes: Buffer): void {
    const f = parseServerFinal(serverFinalBytes.toString('utf8'));
    if (f.error !== undefined) throw new ScramMessageError(`SCRAM server error: ${f.error}`);
    if (this.#expectedSignature === null || !constantTimeEqual(f.signature!, this.#expectedSignature))
      throw new ScramMessageError('Invalid server signature in the SCRAM server final message');
  }
}
