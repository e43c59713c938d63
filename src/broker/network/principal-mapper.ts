// The principal of a TLS client, as Kafka's SslPrincipalMapper derives it: the certificate's
// subject in RFC 2253 form (most specific first, `CN=client,OU=eng,O=Samsa,C=US`, what Java's
// X500Principal.getName() gives), mapped by `ssl.principal.mapping.rules`: a comma-separated
// list of `RULE:pattern/replacement/[LU]` (the pattern must match the whole name; L/U lower- or
// upper-cases the result) and `DEFAULT` (the name unchanged). The first rule that matches wins;
// none matching fails the authentication. A client without a certificate is ANONYMOUS.

import type { X509Certificate } from 'node:crypto';

export const ANONYMOUS = 'User:ANONYMOUS';

interface Rule {
  readonly pattern: RegExp | null;
  readonly replacement: string;
  readonly toCase: '' | 'L' | 'U';
}

export class PrincipalMappingError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'PrincipalMappingError';
  }
}

const RULE = /^\s*(?:(DEFAULT)|RULE:((?:\\.|[^\\/])*)\/((?:\\.|[^\\/])*)\/([LU]?))\s*(?:,|$)/;

export function parsePrincipalMappingRules(value: string): readonly Rule[] {
  const rules: Rule[] = [];
  let rest = value.trim();
  if (rest === '') return [{ pattern: null, replacement: '', toCase: '' }];
  while (rest.trim() !== '') {
    const m = RULE.exec(rest);
    if (!m) throw new PrincipalMappingError(`Invalid rule: ${rest.split(',')[0]}`);
    if (m[1]) rules.push({ pattern: null, replacement: '', toCase: '' });
    else {
      let pattern: RegExp;
      try {
        pattern = new RegExp(`^(?:${m[2]})$`);
      } catch (e) {
        throw new PrincipalMappingError(`Invalid rule pattern ${m[2]}: ${(e as Error).message}`);
      }
      rules.push({ pattern, replacement: m[3]!.replace(/\\\//g, '/'), toCase: m[4] as Rule['toCase'] });
    }
    rest = rest.slice(m[0].length);
  }
  return rules;
}

/** The RFC 2253 form of a certificate subject (Node prints it in DER order, one RDN a line). */
export function rfc2253Subject(cert: X509Certificate): string {
  return cert.subject
    .split('\n')
    .filter((l) => l !== '')
    .reverse()
    .map((rdn) => rdn.replace(/ \+ /g, '+'))
    .join(',');
}

export function mapPrincipalName(rules: readonly Rule[], dn: string): string {
  for (const r of rules) {
    if (r.pattern === null) return dn;
    if (!r.pattern.test(dn)) continue;
    const name = dn.replace(r.pattern, r.replacement);
    return r.toCase === 'L' ? name.toLowerCase() : r.toCase === 'U' ? name.toUpperCase() : name;
  }
  throw new PrincipalMappingError(`No rules apply to ${dn}`);
}

/** `User:<name>` for a client certificate, ANONYMOUS without one. */
export function sslPrincipal(rules: readonly Rule[], cert: X509Certificate | undefined): string {
  return cert === undefined ? ANONYMOUS : `User:${mapPrincipalName(rules, rfc2253Subject(cert))}`;
}
