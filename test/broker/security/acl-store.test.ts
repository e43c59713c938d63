// ACLs in the metadata store: the local store keeps them across restarts (journal and
// snapshot), and the ZooKeeper store writes Kafka's layout — `/kafka-acl/<Type>/<name>`,
// `/kafka-acl-extended/prefixed/<Type>/<name>` with Kafka's JSON — leaves a change notification
// that another broker's store reports, and makes a write at a stale version lose (BAD_VERSION).

import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { LocalMetadataStore } from '../../../src/broker/metadata/store/local-store.js';
import type { MetadataStore } from '../../../src/broker/metadata/store/metadata-store.js';
import type { AclResourceRecord } from '../../../src/broker/metadata/store/records.js';
import { ZkMetadataStore } from '../../../src/broker/metadata/store/zk-store.js';
import { writeAcls } from '../../../src/broker/metadata/store/zk-store-acls.js';
import {
  ACL_CHANGE_EXPIRATION_MS,
  ZkStoreWatches,
} from '../../../src/broker/metadata/store/zk-store-watches.js';
import { ZkClient } from '../../../src/broker/metadata/zookeeper/zk-client.js';
import { startTestZooKeeper, type TestZooKeeper } from '../../../src/testkit/zookeeper.js';
import { scaled } from '../../support/timeouts.js';

const topicT: AclResourceRecord = { resourceType: 'Topic', patternType: 'LITERAL', name: 't' };
const prefixed: AclResourceRecord = { resourceType: 'Group', patternType: 'PREFIXED', name: 'app-' };
const readAlice = { principal: 'User:alice', permissionType: 'Allow', operation: 'Read', host: '*' };
const denyBob = { principal: 'User:bob', permissionType: 'Deny', operation: 'All', host: '10.0.0.1' };

let zk: TestZooKeeper;
before(async () => {
  zk = await startTestZooKeeper();
});
after(async () => {
  await zk?.stop();
});

async function eventually(what: string, check: () => boolean): Promise<void> {
  const deadline = Date.now() + scaled(20_000);
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

async function roundTrip(store: MetadataStore): Promise<void> {
  assert.deepEqual(await store.allAcls(), []);
  await store.writeAcls(topicT, [readAlice], -1);
  await store.writeAcls(prefixed, [readAlice, denyBob], -1);
  const t = await store.acls(topicT);
  assert.equal(t.version, 0);
  assert.deepEqual(t.acls, [readAlice]);
  await assert.rejects(store.writeAcls(topicT, [denyBob], -1), { code: 'BAD_VERSION' });
  await store.writeAcls(topicT, [readAlice, denyBob], 0);
  await assert.rejects(store.writeAcls(topicT, [], 0), { code: 'BAD_VERSION' });
  assert.equal((await store.acls(topicT)).version, 1);
  assert.equal((await store.allAcls()).length, 2);
}

test('the local store keeps ACLs across a restart (journal, then snapshot)', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'samsa-acl-store-'));
  try {
    const first = new LocalMetadataStore(dir);
    await first.start();
    await roundTrip(first);
    await first.close();
    const second = new LocalMetadataStore(dir);
    await second.start();
    const all = await second.allAcls();
    assert.deepEqual(all.map((a) => [a.resource.name, a.acls.length, a.version]).sort(), [
      ['app-', 2, 0],
      ['t', 2, 1],
    ]);
    await second.writeAcls(prefixed, [], 0);
    await second.close();
    const third = new LocalMetadataStore(dir);
    await third.start();
    assert.deepEqual(
      (await third.allAcls()).map((a) => a.resource.name),
      ['t'],
    );
    await third.close();
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test("the ZooKeeper store writes Kafka's znodes and notifies the other brokers", async () => {
  const connectString = await zk.chroot('acl');
  const open = async () => {
    const s = new ZkMetadataStore({
      connectString,
      sessionTimeoutMs: 10_000,
      connectionTimeoutMs: scaled(20_000),
    });
    await s.start();
    return s;
  };
  const one = await open();
  const two = await open();
  try {
    const seen: string[] = [];
    two.watch({ aclsChanged: (r) => seen.push(`${r.patternType}/${r.resourceType}/${r.name}`) });
    await roundTrip(one);
    const raw = one.zkClient!;
    const literal = JSON.parse((await raw.getData('/kafka-acl/Topic/t')).data!.toString());
    assert.deepEqual(literal, { version: 1, acls: [readAlice, denyBob] });
    const ext = JSON.parse((await raw.getData('/kafka-acl-extended/prefixed/Group/app-')).data!.toString());
    assert.equal(ext.acls.length, 2);
    const literalChanges = await raw.getChildren('/kafka-acl-changes');
    assert.ok(literalChanges.every((n) => n.startsWith('acl_changes_')));
    const note = (await raw.getData(`/kafka-acl-changes/${literalChanges.sort()[0]}`)).data!.toString();
    assert.equal(note, 'TOPIC:t');
    const extChanges = await raw.getChildren('/kafka-acl-extended-changes');
    const extNote = JSON.parse(
      (await raw.getData(`/kafka-acl-extended-changes/${extChanges[0]}`)).data!.toString(),
    );
    assert.deepEqual(extNote, { version: 1, resourceType: 'GROUP', name: 'app-', patternType: 'PREFIXED' });
    await eventually('both notifications on the other store', () =>
      ['LITERAL/Topic/t', 'PREFIXED/Group/app-'].every((k) => seen.includes(k)),
    );
    // Deleting the last ACL removes the znode.
    await one.writeAcls(prefixed, [], 0);
    assert.equal((await two.acls(prefixed)).version, -1);
  } finally {
    await one.close();
    await two.close();
  }
});

test('processed ACL change notifications older than 15 minutes are purged, as Kafka does', async () => {
  const connectString = await zk.chroot('acl-purge');
  const client = await ZkClient.connect(connectString, {
    sessionTimeoutMs: 10_000,
    connectionTimeoutMs: scaled(20_000),
    createChroot: true,
  });
  let clock = Date.now();
  const watches = new ZkStoreWatches(client, { log() {} }, { now: () => clock });
  try {
    const literalT: AclResourceRecord = { resourceType: 'Topic', patternType: 'LITERAL', name: 'old' };
    await writeAcls(client, literalT, [readAlice], -1);
    await writeAcls(client, prefixed, [readAlice], -1);
    const seen: string[] = [];
    watches.add({ aclsChanged: (r) => seen.push(r.name) });
    await watches.start();
    // Young notifications stay, after the baseline and after a newer change.
    await writeAcls(client, { ...literalT, name: 'young' }, [readAlice], -1);
    await eventually('the new notification', () => seen.includes('young'));
    await new Promise((r) => setTimeout(r, 200));
    assert.equal((await client.getChildren('/kafka-acl-changes')).length, 2);
    assert.equal((await client.getChildren('/kafka-acl-extended-changes')).length, 1);
    // 15 minutes later the next change is processed, then every processed notification older than
    // 15 minutes is deleted; the new one is young and stays. The clock is set between the two
    // generations (ZooKeeper's ctime is this machine's wall clock), so how long the steps above
    // took under load does not matter.
    const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
    const literalBefore = (await client.getChildren('/kafka-acl-changes')).sort();
    const extendedBefore = await client.getChildren('/kafka-acl-extended-changes');
    await sleep(20);
    clock = Date.now() + ACL_CHANGE_EXPIRATION_MS + 1;
    await sleep(20);
    await writeAcls(client, { ...literalT, name: 'later' }, [readAlice], -1);
    await eventually('the later notification', () => seen.includes('later'));
    const deadline = Date.now() + scaled(20_000);
    const purgedTo = async (path: string, before: string[]) => {
      for (;;) {
        const now = await client.getChildren(path);
        if (now.every((c) => !before.includes(c))) return now;
        assert.ok(
          Date.now() < deadline,
          `old notifications under ${path} were not purged: ${now.join(', ')}`,
        );
        await sleep(50);
      }
    };
    assert.equal((await purgedTo('/kafka-acl-changes', literalBefore)).length, 1, 'the young one stays');
    // The extended list is purged on its own next change; the ACLs themselves are untouched.
    assert.deepEqual(await client.getChildren('/kafka-acl-extended-changes'), extendedBefore);
    await writeAcls(client, { ...prefixed, name: 'p2-' }, [readAlice], -1);
    await eventually('the extended notification', () => seen.includes('p2-'));
    assert.equal(
      (await purgedTo('/kafka-acl-extended-changes', extendedBefore)).length,
      1,
      'the young one stays',
    );
    assert.deepEqual((await client.getChildren('/kafka-acl/Topic')).sort(), ['later', 'old', 'young']);
  } finally {
    watches.close();
    await client.close();
  }
});
