// The certificates of a PKCS12 file, for truststores: Node reads a PKCS12 only as a key plus its
// chain (`pfx`), and a truststore has no key. So this walks the file (RFC 7292: the
// authenticated safe's contents, plain or PBES2-encrypted, their certificate bags) and returns
// each certificate as PEM. Only PBES2 (PBKDF2 + AES/3DES-CBC) encryption is read: what OpenSSL 3
// and recent keytools write. The integrity MAC is not checked (a wrong password still fails to
// decrypt encrypted bags); legacy RC2/RC4 encryption is refused with a way out.

import { createDecipheriv, pbkdf2Sync } from 'node:crypto';

export class Pkcs12Error extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'Pkcs12Error';
  }
}

interface Tlv {
  readonly tag: number;
  /** Where the content starts and ends in `buf`. */
  readonly start: number;
  readonly end: number;
}

const OID_DATA = '1.2.840.113549.1.7.1';
const OID_ENCRYPTED_DATA = '1.2.840.113549.1.7.6';
const OID_CERT_BAG = '1.2.840.113549.1.12.10.1.3';
const OID_X509 = '1.2.840.113549.1.9.22.1';
const OID_PBES2 = '1.2.840.113549.1.5.13';
const OID_PBKDF2 = '1.2.840.113549.1.5.12';
const PRF_DIGESTS: Record<string, string> = {
  '1.2.840.113549.2.7': 'sha1',
  '1.2.840.113549.2.8': 'sha224',
  '1.2.840.113549.2.9': 'sha256',
  '1.2.840.113549.2.10': 'sha384',
  '1.2.840.113549.2.11': 'sha512',
};
const CIPHERS: Record<string, { name: string; keyLength: number }> = {
  '2.16.840.1.101.3.4.1.2': { name: 'aes-128-cbc', keyLength: 16 },
  '2.16.840.1.101.3.4.1.22': { name: 'aes-192-cbc', keyLength: 24 },
  '2.16.840.1.101.3.4.1.42': { name: 'aes-256-cbc', keyLength: 32 },
  '1.2.840.113549.3.7': { name: 'des-ede3-cbc', keyLength: 24 },
};

function tlv(buf: Buffer, pos: number, limit = buf.length): Tlv {
  if (pos + 2 > limit) throw new Pkcs12Error('truncated DER');
  const tag = buf[pos]!;
  let len = buf[pos + 1]!;
  let start = pos + 2;
  if (len & 0x80) {
    const n = len & 0x7f;
    if (n === 0 || n > 4 || start + n > limit)
      throw new Pkcs12Error('unsupported DER length (BER files are not read)');
    len = 0;
    for (let i = 0; i < n; i++) len = len * 256 + buf[start + i]!;
    start += n;
  }
  if (start + len > limit) throw new Pkcs12Error('truncated DER');
  return { tag, start, end: start + len };
}

function children(buf: Buffer, parent: Tlv): Tlv[] {
  const out: Tlv[] = [];
  for (let pos = parent.start; pos < parent.end; ) {
    const t = tlv(buf, pos, parent.end);
    out.push(t);
    pos = t.end;
  }
  return out;
}

function expect(t: Tlv | undefined, tag: number, what: string): Tlv {
  if (t === undefined || t.tag !== tag) throw new Pkcs12Error(`not a PKCS12 file (bad ${what})`);
  return t;
}

function oid(buf: Buffer, t: Tlv): string {
  const bytes = buf.subarray(t.start, t.end);
  const parts: number[] = [];
  let v = 0;
  for (const b of bytes) {
    v = v * 128 + (b & 0x7f);
    if ((b & 0x80) === 0) {
      if (parts.length === 0) parts.push(v < 80 ? Math.floor(v / 40) : 2, v < 80 ? v % 40 : v - 80);
      else parts.push(v);
      v = 0;
    }
  }
  return parts.join('.');
}

const content = (buf: Buffer, t: Tlv): Buffer => buf.subarray(t.start, t.end);

/** Every certificate of a PKCS12 file, as PEM. */
export function pkcs12Certificates(file: Buffer, password: string): string[] {
  const pfx = children(file, expect(tlv(file, 0), 0x30, 'PFX'));
  const authSafe = contentInfoData(file, expect(pfx[1], 0x30, 'authSafe'));
  const certs: string[] = [];
  for (const info of children(authSafe, expect(tlv(authSafe, 0), 0x30, 'AuthenticatedSafe'))) {
    const [type, wrapped] = children(authSafe, info);
    const kind = oid(authSafe, expect(type, 0x06, 'ContentInfo type'));
    let safeContents: Buffer;
    if (kind === OID_DATA)
      safeContents = octets(authSafe, children(authSafe, expect(wrapped, 0xa0, 'content'))[0]);
    else if (kind === OID_ENCRYPTED_DATA)
      safeContents = decryptData(authSafe, expect(wrapped, 0xa0, 'content'), password);
    else continue;
    collectCertBags(safeContents, certs);
  }
  return certs;
}

function contentInfoData(buf: Buffer, info: Tlv): Buffer {
  const [type, wrapped] = children(buf, info);
  if (oid(buf, expect(type, 0x06, 'content type')) !== OID_DATA)
    throw new Pkcs12Error('public-key integrity mode is not supported');
  return octets(buf, children(buf, expect(wrapped, 0xa0, 'content'))[0]);
}

/** An OCTET STRING, primitive or constructed from chunks. */
function octets(buf: Buffer, t: Tlv | undefined): Buffer {
  if (t?.tag === 0x04) return content(buf, t);
  if (t?.tag === 0x24) return Buffer.concat(children(buf, t).map((c) => octets(buf, c)));
  throw new Pkcs12Error('not a PKCS12 file (bad OCTET STRING)');
}

function decryptData(buf: Buffer, wrapped: Tlv, password: string): Buffer {
  const encryptedData = children(buf, children(buf, wrapped)[0]!);
  const [, algorithm, encrypted] = children(buf, expect(encryptedData[1], 0x30, 'EncryptedContentInfo'));
  const [algOid, params] = children(buf, expect(algorithm, 0x30, 'algorithm'));
  const name = oid(buf, expect(algOid, 0x06, 'algorithm'));
  if (name !== OID_PBES2)
    throw new Pkcs12Error(
      `its certificates are encrypted with the legacy algorithm ${name}; re-export it with AES (OpenSSL 3's default, keytool -importkeystore on a recent JDK)`,
    );
  if (encrypted === undefined || (encrypted.tag !== 0x80 && encrypted.tag !== 0xa0))
    throw new Pkcs12Error('not a PKCS12 file (bad encryptedContent)');
  const data =
    encrypted.tag === 0x80
      ? content(buf, encrypted)
      : Buffer.concat(children(buf, encrypted).map((c) => octets(buf, c)));
  const [kdf, scheme] = children(buf, expect(params, 0x30, 'PBES2 parameters'));
  const [kdfOid, kdfParams] = children(buf, expect(kdf, 0x30, 'key derivation'));
  if (oid(buf, expect(kdfOid, 0x06, 'key derivation')) !== OID_PBKDF2)
    throw new Pkcs12Error('PBES2 without PBKDF2');
  const kp = children(buf, expect(kdfParams, 0x30, 'PBKDF2 parameters'));
  const salt = content(buf, expect(kp[0], 0x04, 'salt'));
  const iterations = content(buf, expect(kp[1], 0x02, 'iterations')).readUIntBE(
    0,
    Math.min(6, kp[1]!.end - kp[1]!.start),
  );
  const prfTlv = kp.slice(2).find((t) => t.tag === 0x30);
  const digest = prfTlv === undefined ? 'sha1' : PRF_DIGESTS[oid(buf, children(buf, prfTlv)[0]!)];
  const [cipherOid, ivTlv] = children(buf, expect(scheme, 0x30, 'encryption scheme'));
  const cipher = CIPHERS[oid(buf, expect(cipherOid, 0x06, 'cipher'))];
  if (digest === undefined || cipher === undefined)
    throw new Pkcs12Error('unsupported PBES2 digest or cipher');
  const key = pbkdf2Sync(Buffer.from(password, 'utf8'), salt, iterations, cipher.keyLength, digest);
  try {
    const d = createDecipheriv(cipher.name, key, content(buf, expect(ivTlv, 0x04, 'iv')));
    return Buffer.concat([d.update(data), d.final()]);
  } catch {
    throw new Pkcs12Error('cannot decrypt it: wrong password?');
  }
}

function collectCertBags(safeContents: Buffer, out: string[]): void {
  for (const bag of children(safeContents, expect(tlv(safeContents, 0), 0x30, 'SafeContents'))) {
    const [bagId, value] = children(safeContents, bag);
    if (oid(safeContents, expect(bagId, 0x06, 'bag id')) !== OID_CERT_BAG) continue;
    const certBag = children(safeContents, children(safeContents, expect(value, 0xa0, 'bag value'))[0]!);
    if (oid(safeContents, expect(certBag[0], 0x06, 'cert id')) !== OID_X509) continue;
    const der = octets(safeContents, children(safeContents, expect(certBag[1], 0xa0, 'cert value'))[0]);
    const b64 = der.toString('base64').replace(/(.{64})/g, '$1\n');
    out.push(`-----BEGIN CERTIFICATE-----\n${b64.trimEnd()}\n-----END CERTIFICATE-----\n`);
  }
}
