// SCRAM credentials through the metadata store's `users` entities on the memory and local
// backends (ZooKeeper: sasl-scram.test.ts): alter, describe, look up; the local store keeps them
// across a restart (journal, then the compacted file) and user names any string may be.

import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { ScramCredentials } from '../../../src/broker/metadata/scram-credentials.js';
import { LocalMetadataStore } from '../../../src/broker/metadata/store/local-store.js';
import { MemoryMetadataService } from '../../../src/broker/metadata/store/memory-store.js';
import type { MetadataStore } from '../../../src/broker/metadata/store/metadata-store.js';
import { desanitizeUserName, sanitizeUserName } from '../../../src/broker/metadata/store/zk-user-names.js';
import { clientKey, hash, saltedPassword } from '../../../src/net/sasl/scram-crypto.js';

const USER = 'User with space/slash*é';
const salt = Buffer.alloc(32, 7);

function upsert(name: string, mechanism: number, password: string, iterations = 4096) {
  const m = mechanism === 1 ? 'SCRAM-SHA-256' : 'SCRAM-SHA-512';
  return { name, mechanism, iterations, salt, saltedPassword: saltedPassword(m, password, salt, iterations) };
}

async function exercise(store: MetadataStore): Promise<void> {
  const scram = new ScramCredentials(store);
  const results = await scram.alter([upsert(USER, 1, 'pw-1'), upsert('bob', 2, 'pw-2', 5000)], []);
  assert.deepEqual(
    results.map((r) => [r.user, r.errorCode]).sort(),
    [
      ['User with space/slash*é', 0],
      ['bob', 0],
    ].sort(),
  );
  const c = await scram.lookup(USER, 'SCRAM-SHA-256');
  assert.ok(c !== null);
  assert.deepEqual(
    c.storedKey,
    hash('SCRAM-SHA-256', clientKey('SCRAM-SHA-256', saltedPassword('SCRAM-SHA-256', 'pw-1', salt, 4096))),
  );
  assert.equal(await scram.lookup(USER, 'SCRAM-SHA-512'), null);
  assert.deepEqual(await scram.describe(['bob']), [
    { user: 'bob', errorCode: 0, errorMessage: null, credentialInfos: [{ mechanism: 2, iterations: 5000 }] },
  ]);
}

test('memory backend: alter, describe and look up', async () => {
  const store = new MemoryMetadataService().connect();
  await store.start();
  try {
    await exercise(store);
    assert.deepEqual(await store.configEntities('users'), ['User with space/slash*é', 'bob'].sort());
  } finally {
    await store.close();
  }
});

test('local backend: credentials survive restarts', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'samsa-scram-store-'));
  try {
    const s1 = new LocalMetadataStore(dir);
    await s1.start();
    await exercise(s1);
    await s1.close();
    for (let i = 0; i < 2; i++) {
      const s = new LocalMetadataStore(dir);
      await s.start();
      const scram = new ScramCredentials(s);
      assert.ok((await scram.lookup(USER, 'SCRAM-SHA-256')) !== null, `restart ${i + 1}`);
      assert.equal((await scram.lookup('bob', 'SCRAM-SHA-512'))?.iterations, 5000);
      await s.close();
    }
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});

test("ZooKeeper user names are sanitized as Kafka's Sanitizer does", () => {
  assert.equal(sanitizeUserName('alice'), 'alice');
  assert.equal(sanitizeUserName('a b*c/d@e~f'), 'a%20b%2Ac%2Fd%40e%7Ef');
  assert.equal(sanitizeUserName('é'), '%C3%A9');
  assert.equal(desanitizeUserName(sanitizeUserName(USER)), USER);
  assert.equal(desanitizeUserName('a+b'), 'a b');
});
