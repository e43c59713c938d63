// `MetadataStore.updateConfigs`, the read-modify-write that SCRAM and quota alterations of one
// user share (`/config/users/<u>`): on the memory store it is one step; on ZooKeeper a write by
// someone else between the read and the write (another broker, another tool) makes the versioned
// setData fail and the update run again on the new content, so neither change is lost. A null
// result writes nothing; a throw writes nothing and is thrown.

import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { MemoryMetadataService } from '../../../../src/broker/metadata/store/memory-store.js';
import type { MetadataStore } from '../../../../src/broker/metadata/store/metadata-store.js';
import { ZkMetadataStore } from '../../../../src/broker/metadata/store/zk-store.js';
import { ZkClient } from '../../../../src/broker/metadata/zookeeper/zk-client.js';
import { startTestZooKeeper, type TestZooKeeper } from '../../../../src/testkit/zookeeper.js';
import { scaled } from '../../../support/timeouts.js';

let zk: TestZooKeeper;
before(async () => {
  zk = await startTestZooKeeper();
});
after(async () => {
  await zk?.stop();
});

const USER = { type: 'users', name: 'erin' } as const;

async function contract(store: MetadataStore): Promise<void> {
  const first = await store.updateConfigs(USER, (c) => ({ ...c, producer_byte_rate: '1000' }));
  assert.deepEqual(first, { producer_byte_rate: '1000' });
  await store.updateConfigs(USER, (c) => ({ ...c, 'SCRAM-SHA-256': 'cred' }));
  assert.deepEqual(await store.configs(USER), { producer_byte_rate: '1000', 'SCRAM-SHA-256': 'cred' });
  assert.equal(await store.updateConfigs(USER, () => null), null);
  await assert.rejects(
    store.updateConfigs(USER, () => {
      throw new Error('refused');
    }),
    /refused/,
  );
  assert.deepEqual(await store.configs(USER), { producer_byte_rate: '1000', 'SCRAM-SHA-256': 'cred' });
  // Concurrent updates of different keys all land.
  await Promise.all(
    Array.from({ length: 8 }, (_, i) => store.updateConfigs(USER, (c) => ({ ...c, [`k${i}`]: String(i) }))),
  );
  const all = await store.configs(USER);
  for (let i = 0; i < 8; i++) assert.equal(all[`k${i}`], String(i));
}

test('memory store: updateConfigs', async () => {
  const store = new MemoryMetadataService().connect();
  await store.start();
  try {
    await contract(store);
  } finally {
    await store.close();
  }
});

test('ZooKeeper store: updateConfigs, and a write between read and write is not lost', async () => {
  const connectString = await zk.chroot('config-update');
  const open = async () => {
    const s = new ZkMetadataStore({
      connectString,
      sessionTimeoutMs: 10_000,
      connectionTimeoutMs: scaled(20_000),
    });
    await s.start();
    return s;
  };
  const a = await open();
  const b = await open();
  const raw = await ZkClient.connect(connectString, { connectionTimeoutMs: scaled(20_000) });
  try {
    await contract(a);
    // Two stores (two brokers) updating the same user at once: both keys survive.
    await Promise.all([
      a.updateConfigs(USER, (c) => ({ ...c, from_a: '1' })),
      b.updateConfigs(USER, (c) => ({ ...c, from_b: '1' })),
    ]);
    const both = await a.configs(USER);
    assert.equal(both.from_a, '1');
    assert.equal(both.from_b, '1');

    // A raw write (another tool) contends with a's: whichever ZooKeeper takes second fails on
    // its expected version; when that is a's, a re-reads and redoes its update on top.
    let calls = 0;
    const version = (await raw.getData('/config/users/erin')).stat.version;
    let raced: Promise<boolean> = Promise.resolve(false);
    const result = await a.updateConfigs(USER, (c) => {
      calls++;
      if (calls === 1) {
        const text = JSON.stringify({ version: 1, config: { ...c, from_tool: 'yes' } });
        raced = raw.setData('/config/users/erin', Buffer.from(text), version).then(
          () => true,
          () => false,
        );
      }
      return { ...c, from_a_2: '1' };
    });
    const toolWon = await raced;
    const final = await a.configs(USER);
    assert.equal(final.from_a_2, '1', "a's update landed");
    assert.deepEqual(result, final);
    if (toolWon) {
      assert.ok(calls > 1, 'the update ran again after losing its version');
      assert.equal(final.from_tool, 'yes', "the tool's write kept");
    }
    for (const k of ['producer_byte_rate', 'SCRAM-SHA-256', 'from_a', 'from_b'])
      assert.ok(final[k] !== undefined, `${k} kept`);
  } finally {
    await raw.close();
    await a.close();
    await b.close();
  }
});
