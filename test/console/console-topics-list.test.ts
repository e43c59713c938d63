// GET /api/topics against one in-process broker: the server filters, sorts and pages the list
// (the browser gets one page, with the counts of all); its answers come from a short-lived cache
// that a write through the console drops at once, and that `fresh=1` bypasses; bad parameters
// are refused with 400, and so is a request target that is no URL (it once threw in the handler).
import assert from 'node:assert/strict';
import { connect } from 'node:net';
import { after, before, test } from 'node:test';
import { Admin, Producer } from '../../src/client/index.js';
import { type ConsoleServer, serveConsole } from '../../src/console/index.js';
import { startTestBroker, type TestBroker } from '../../src/testkit/index.js';
import { scaled } from '../support/timeouts.js';

let broker: TestBroker;
let admin: Admin;
let server: ConsoleServer;

interface Page {
  total: number;
  matching: number;
  offset: number;
  limit: number;
  rows: { name: string; partitions: number; messages: number | null; internal: boolean }[];
}

before(async () => {
  broker = await startTestBroker({ overrides: { 'offsets.topic.num.partitions': 1 } });
  admin = new Admin({ bootstrapServers: broker.bootstrap });
  await admin.createTopics(
    ['list-a', 'list-b', 'list-c', 'list-d', 'other'].map((name, i) => ({
      name,
      numPartitions: i + 1,
      replicationFactor: 1,
    })),
  );
  // Something internal to filter: the group coordinator's topic.
  await admin.alterConsumerGroupOffsets('list-group', [{ topic: 'list-a', partition: 0, offset: 0n }]);
  const p = new Producer({ bootstrapServers: broker.bootstrap });
  try {
    for (const [topic, n] of [
      ['list-c', 5],
      ['list-b', 2],
    ] as const)
      for (let i = 0; i < n; i++) await p.send({ topic, partition: 0, value: `v${i}` });
  } finally {
    await p.close();
  }
  server = await serveConsole({ client: { bootstrapServers: broker.bootstrap }, port: 0 });
});

after(async () => {
  await server?.close();
  await admin?.close();
  await broker?.close();
});

async function page(query: string): Promise<Page> {
  const r = await fetch(`${server.url}api/topics?${query}`);
  assert.equal(r.status, 200, await r.clone().text());
  return (await r.json()) as Page;
}
const names = (p: Page) => p.rows.map((r) => r.name);

test('filter, sort and pages on the server, with the counts of all', async () => {
  const all = await page('');
  assert.deepEqual(names(all), ['list-a', 'list-b', 'list-c', 'list-d', 'other']);
  assert.equal(all.total, 6, 'five topics and __consumer_offsets');
  assert.equal(all.matching, 5, 'internal topics are left out unless asked for');
  assert.ok(names(await page('internal=1')).includes('__consumer_offsets'));
  assert.deepEqual(names(await page('q=LIST-&sort=name&dir=desc')), ['list-d', 'list-c', 'list-b', 'list-a']);
  const second = await page('q=list&limit=2&offset=2');
  assert.deepEqual(
    [names(second), second.matching, second.offset, second.limit],
    [['list-c', 'list-d'], 4, 2, 2],
  );
  const byMessages = await page('sort=messages&dir=desc&limit=2');
  assert.deepEqual(
    byMessages.rows.map((r) => [r.name, r.messages]),
    [
      ['list-c', 5],
      ['list-b', 2],
    ],
  );
  assert.deepEqual(names(await page('sort=partitions&dir=desc&limit=1')), ['other']);
  assert.deepEqual((await page('q=list-c')).rows[0]?.messages, 5);
  assert.deepEqual(names(await page('offset=100')), []);
});

test('a write through the console drops the cache; fresh=1 skips it; bad parameters are 400', async () => {
  await page(''); // cached now
  // Made outside the console: a fresh answer has it (a cached one may not, for up to 5 s).
  await admin.createTopics([{ name: 'list-outside', numPartitions: 1, replicationFactor: 1 }]);
  assert.ok(names(await page('fresh=1')).includes('list-outside'));
  // Made through the console: listed at once, without asking for a fresh answer.
  const created = await fetch(`${server.url}api/topics`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ name: 'list-inside', partitions: 1, replicationFactor: 1 }),
  });
  assert.equal(created.status, 200);
  assert.ok(names(await page('')).includes('list-inside'));
  const produced = await fetch(`${server.url}api/topics/list-inside/messages`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ value: 'x' }),
  });
  assert.equal(produced.status, 200);
  assert.equal((await page('q=list-inside')).rows[0]?.messages, 1);
  for (const bad of ['sort=size', 'dir=up', 'limit=0', 'limit=1001', 'offset=-1', 'limit=x']) {
    const r = await fetch(`${server.url}api/topics?${bad}`);
    assert.equal(r.status, 400, bad);
  }
  assert.equal((await fetch(`${server.url}api/topics/%E0%A4%A`)).status, 400, 'a broken percent-encoding');
});

test('a request target that is no URL is answered 400; the console keeps serving', async () => {
  const sock = connect(server.address.port, '127.0.0.1');
  let answer = '';
  sock.on('data', (d: Buffer) => {
    answer += d.toString();
  });
  sock.write('GET http://[ HTTP/1.1\r\nHost: x\r\n\r\n');
  const deadline = Date.now() + scaled(20_000);
  while (!answer.includes('\r\n\r\n')) {
    if (Date.now() > deadline)
      throw new Error(`timed out waiting for an answer (got ${JSON.stringify(answer)})`);
    await new Promise((r) => setTimeout(r, 50));
  }
  sock.destroy();
  assert.match(answer, /^HTTP\/1\.1 400 /);
  assert.equal((await fetch(`${server.url}api/topics`)).status, 200);
});
