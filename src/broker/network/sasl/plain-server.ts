// SASL/PLAIN (RFC 4616) as Kafka's PlainSaslServer: one client message
// `authzid NUL authcid NUL password`, checked against the `user_<name>="<password>"` options of
// the listener's JAAS line. The comparison runs in constant time on fixed-size digests, so
// neither the password's length nor its prefix leaks through timing.

import { createHash, timingSafeEqual } from 'node:crypto';
import { SaslAuthenticationError, type SaslMechanismServer } from './mechanism.js';

const digest = (s: string) => createHash('sha256').update(s, 'utf8').digest();

export class PlainServer implements SaslMechanismServer {
  readonly mechanism = 'PLAIN';
  complete = false;
  user = '';

  constructor(private readonly users: ReadonlyMap<string, string>) {}

  async evaluate(token: Buffer): Promise<Buffer> {
    const parts = token.toString('utf8').split('\0');
    if (parts.length !== 3)
      throw new SaslAuthenticationError(
        `Invalid SASL/PLAIN response: expected 3 tokens, got ${parts.length}`,
      );
    const [authzid, username, password] = parts as [string, string, string];
    if (username === '') throw new SaslAuthenticationError('Authentication failed: username not specified');
    if (password === '') throw new SaslAuthenticationError('Authentication failed: password not specified');
    const expected = this.users.get(username);
    // Compared even for an unknown user, so that the answer takes as long either way.
    const same = timingSafeEqual(digest(expected ?? ''), digest(password));
    if (expected === undefined || !same)
      throw new SaslAuthenticationError('Authentication failed: Invalid username or password');
    if (authzid !== '' && authzid !== username)
      throw new SaslAuthenticationError(
        'Authentication failed: Client requested an authorization id that is different from username',
      );
    this.user = username;
    this.complete = true;
    return Buffer.alloc(0);
  }
}
