// The four SCRAM messages (RFC 5802 §7) as Kafka's ScramMessages reads them: attributes are
// `x=value` joined by ','; a user name escapes ',' as `=2C` and '=' as `=3D`. The GS2 header
// is `n,,` or `n,a=<authzid>,` (no channel binding: Kafka supports none).

export class ScramMessageError extends Error {
  override name = 'ScramMessageError';
}

export function escapeSaslName(name: string): string {
  return name.replace(/=/g, '=3D').replace(/,/g, '=2C');
}

export function unescapeSaslName(name: string): string {
  if (/=(?!2C|3D)/.test(name)) throw new ScramMessageError('invalid user name encoding');
  return name.replace(/=2C/g, ',').replace(/=3D/g, '=');
}

export interface ClientFirst {
  readonly gs2Header: string;
  readonly authzid: string;
  readonly username: string;
  readonly nonce: string;
  /** `n=…,r=…[,ext]`: the part that enters the AuthMessage. */
  readonly bare: string;
  readonly extensions: ReadonlyMap<string, string>;
}

const CLIENT_FIRST = /^(n,(?:a=([^,]*))?,)(n=([^,]*),r=([^,]+)((?:,[A-Za-z]+=[^,]*)*))$/;

export function parseClientFirst(text: string): ClientFirst {
  const m = CLIENT_FIRST.exec(text);
  if (!m) throw new ScramMessageError('Invalid SCRAM client first message format');
  const extensions = new Map<string, string>();
  for (const ext of (m[6] ?? '').split(',').filter((s) => s !== '')) {
    const eq = ext.indexOf('=');
    extensions.set(ext.slice(0, eq), ext.slice(eq + 1));
  }
  return {
    gs2Header: m[1]!,
    authzid: unescapeSaslName(m[2] ?? ''),
    username: unescapeSaslName(m[4]!),
    nonce: m[5]!,
    bare: m[3]!,
    extensions,
  };
}

export function formatClientFirstBare(username: string, nonce: string): string {
  return `n=${escapeSaslName(username)},r=${nonce}`;
}

export interface ServerFirst {
  readonly nonce: string;
  readonly salt: Buffer;
  readonly iterations: number;
}

const SERVER_FIRST = /^(?:m=[^,]*,)?r=([^,]+),s=([^,]+),i=([0-9]+)(?:,.*)?$/;

export function parseServerFirst(text: string): ServerFirst {
  const m = SERVER_FIRST.exec(text);
  if (!m) throw new ScramMessageError('Invalid SCRAM server first message format');
  return { nonce: m[1]!, salt: Buffer.from(m[2]!, 'base64'), iterations: Number(m[3]) };
}

export function formatServerFirst(f: ServerFirst): string {
  return `r=${f.nonce},s=${f.salt.toString('base64')},i=${f.iterations}`;
}

export interface ClientFinal {
  readonly channelBinding: Buffer;
  readonly nonce: string;
  readonly proof: Buffer;
  /** Everything before `,p=`: the part that enters the AuthMessage. */
  readonly withoutProof: string;
}

const CLIENT_FINAL = /^(c=([^,]*),r=([^,]+)(?:,[A-Za-z]+=[^,]*)*),p=([^,]+)$/;

export function parseClientFinal(text: string): ClientFinal {
  const m = CLIENT_FINAL.exec(text);
  if (!m) throw new ScramMessageError('Invalid SCRAM client final message format');
  return {
    channelBinding: Buffer.from(m[2]!, 'base64'),
    nonce: m[3]!,
    proof: Buffer.from(m[4]!, 'base64'),
    withoutProof: m[1]!,
  };
}

export function formatClientFinalWithoutProof(gs2Header: string, nonce: string): string {
  return `c=${Buffer.from(gs2Header).toString('base64')},r=${nonce}`;
}

/** `v=<signature>` or `e=<error>`. */
export function parseServerFinal(text: string): { signature?: Buffer; error?: string } {
  if (text.startsWith('e=')) return { error: text.slice(2) };
  const m = /^v=([^,]+)/.exec(text);
  if (!m) throw new ScramMessageError('Invalid SCRAM server final message format');
  return { signature: Buffer.from(m[1]!, 'base64') };
}
