// Throw-away certificates for the TLS tests, made with `openssl` in a temp dir: a CA, a broker
// certificate for localhost/127.0.0.1, a client certificate, an expired client certificate, a
// client certificate from another CA, and PKCS12 forms (password `secret`). EC keys: fast to make.

import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export const STORE_PASSWORD = 'secret';

export interface TestCerts {
  readonly dir: string;
  /** PEM files. */
  readonly caCert: string;
  readonly brokerCert: string;
  readonly brokerKey: string;
  /** Key then certificate chain in one file (`ssl.keystore.type=PEM` with a location). */
  readonly brokerPem: string;
  readonly brokerP12: string;
  /** The CA alone in a PKCS12 truststore. */
  readonly truststoreP12: string;
  readonly clientCert: string;
  readonly clientKey: string;
  readonly clientP12: string;
  readonly expiredCert: string;
  readonly expiredKey: string;
  readonly foreignCert: string;
  readonly foreignKey: string;
  /** The client certificate's subject as Kafka prints it (RFC 2253). */
  readonly clientSubject: string;
  read(file: string): string;
  remove(): void;
}

function openssl(dir: string, args: string[]): void {
  execFileSync('openssl', args, { cwd: dir, stdio: ['ignore', 'ignore', 'pipe'] });
}

function keyAndCsr(dir: string, name: string, subject: string): void {
  openssl(dir, ['ecparam', '-name', 'prime256v1', '-genkey', '-noout', '-out', `${name}.key`]);
  openssl(dir, ['req', '-new', '-key', `${name}.key`, '-subj', subject, '-out', `${name}.csr`]);
}

function selfSignedCa(dir: string, name: string, subject: string): void {
  openssl(dir, ['ecparam', '-name', 'prime256v1', '-genkey', '-noout', '-out', `${name}.key`]);
  openssl(dir, [
    'req',
    '-x509',
    '-new',
    '-key',
    `${name}.key`,
    '-subj',
    subject,
    '-days',
    '30',
    '-out',
    `${name}.pem`,
  ]);
}

function sign(dir: string, name: string, ca: string, ext: string): void {
  writeFileSync(join(dir, `${name}.ext`), ext);
  openssl(dir, [
    'x509',
    '-req',
    '-in',
    `${name}.csr`,
    '-CA',
    `${ca}.pem`,
    '-CAkey',
    `${ca}.key`,
    '-CAcreateserial',
    '-days',
    '30',
    '-extfile',
    `${name}.ext`,
    '-out',
    `${name}.pem`,
  ]);
}

/** Valid 2020-01-01 to 2020-01-02: `openssl ca` is the 3.0 way to set past dates. */
function signExpired(dir: string, name: string, ca: string): void {
  writeFileSync(join(dir, 'index.txt'), '');
  writeFileSync(join(dir, 'serial'), '1000\n');
  writeFileSync(
    join(dir, 'ca.cnf'),
    [
      '[ca]',
      'default_ca = d',
      '[d]',
      'database = index.txt',
      'new_certs_dir = .',
      'serial = serial',
      'default_md = sha256',
      'policy = p',
      'unique_subject = no',
      '[p]',
      'commonName = supplied',
      '',
    ].join('\n'),
  );
  openssl(dir, [
    'ca',
    '-batch',
    '-config',
    'ca.cnf',
    '-cert',
    `${ca}.pem`,
    '-keyfile',
    `${ca}.key`,
    '-in',
    `${name}.csr`,
    '-out',
    `${name}.pem`,
    '-startdate',
    '20200101000000Z',
    '-enddate',
    '20200102000000Z',
    '-notext',
  ]);
}

function pkcs12(dir: string, name: string, withKey: boolean): void {
  const args = [
    'pkcs12',
    '-export',
    '-in',
    `${name}.pem`,
    '-out',
    `${name}.p12`,
    '-passout',
    `pass:${STORE_PASSWORD}`,
  ];
  openssl(dir, withKey ? [...args, '-inkey', `${name}.key`, '-certfile', 'ca.pem'] : [...args, '-nokeys']);
}

export function makeTestCerts(): TestCerts {
  const dir = mkdtempSync(join(tmpdir(), 'samsa-tls-'));
  selfSignedCa(dir, 'ca', '/CN=Samsa Test CA');
  selfSignedCa(dir, 'other-ca', '/CN=Some Other CA');
  keyAndCsr(dir, 'broker', '/CN=localhost');
  sign(
    dir,
    'broker',
    'ca',
    'subjectAltName=DNS:localhost,IP:127.0.0.1\nextendedKeyUsage=serverAuth,clientAuth\n',
  );
  keyAndCsr(dir, 'client', '/C=US/O=Samsa/OU=eng/CN=client');
  sign(dir, 'client', 'ca', 'extendedKeyUsage=clientAuth\n');
  keyAndCsr(dir, 'expired', '/CN=expired-client');
  signExpired(dir, 'expired', 'ca');
  keyAndCsr(dir, 'foreign', '/CN=foreign-client');
  sign(dir, 'foreign', 'other-ca', 'extendedKeyUsage=clientAuth\n');
  const f = (n: string) => join(dir, n);
  writeFileSync(
    f('broker-all.pem'),
    readFileSync(f('broker.key'), 'utf8') + readFileSync(f('broker.pem'), 'utf8'),
  );
  pkcs12(dir, 'broker', true);
  pkcs12(dir, 'client', true);
  openssl(dir, [
    'pkcs12',
    '-export',
    '-nokeys',
    '-in',
    'ca.pem',
    '-out',
    'truststore.p12',
    '-passout',
    `pass:${STORE_PASSWORD}`,
  ]);
  return {
    dir,
    caCert: f('ca.pem'),
    brokerCert: f('broker.pem'),
    brokerKey: f('broker.key'),
    brokerPem: f('broker-all.pem'),
    brokerP12: f('broker.p12'),
    truststoreP12: f('truststore.p12'),
    clientCert: f('client.pem'),
    clientKey: f('client.key'),
    clientP12: f('client.p12'),
    expiredCert: f('expired.pem'),
    expiredKey: f('expired.key'),
    foreignCert: f('foreign.pem'),
    foreignKey: f('foreign.key'),
    clientSubject: 'CN=client,OU=eng,O=Samsa,C=US',
    read: (file) => readFileSync(file, 'utf8'),
    remove: () => rmSync(dir, { recursive: true, force: true }),
  };
}
