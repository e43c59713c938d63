// biome-ignore-all lint/performance/useDomNodeTextContent: playwright's Locator.innerText (rendered text, cells apart), not the DOM property
// CMAK's cluster actions in the browser against a three-broker in-process cluster (ZooKeeper):
// the topic page's per-replica log end offsets (each asked of the replica's own broker), partition
// reassignment (a reordered replica list; a move to a new broker, its data copied there) and
// preferred leader election, each confirmed in the page.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { Admin, Producer } from '../../src/client/index.js';
import { type ConsoleServer, serveConsole } from '../../src/console/index.js';
import { startTestCluster, type TestCluster } from '../../src/testkit/index.js';
import { scaled } from '../support/timeouts.js';
import { launchBrowser, openPage, screenshot } from './support.js';

const TOPIC = 'moves';
let cluster: TestCluster;
let browser: Browser;
let admin: Admin;
let server: ConsoleServer;

before(async () => {
  browser = await launchBrowser();
  cluster = await startTestCluster({
    brokers: 3,
    mode: 'in-process',
    // Leadership moves here only because the test asks for it.
    overrides: { 'auto.leader.rebalance.enable': false, 'offsets.topic.num.partitions': 1 },
  });
  admin = new Admin({ bootstrapServers: cluster.bootstrap() });
  server = await serveConsole({
    client: { bootstrapServers: cluster.bootstrap() },
    port: 0,
    refreshMs: 1000,
  });
});

after(async () => {
  await browser?.close();
  await server?.close();
  await admin?.close();
  await cluster?.close();
});

async function until<T>(what: string, fn: () => Promise<T | undefined | false>, ms = 60_000): Promise<T> {
  const deadline = Date.now() + scaled(ms);
  for (;;) {
    const v = await fn().catch(() => undefined);
    if (v !== undefined && v !== false) return v;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

const partition = async (p: number) => (await admin.describeTopics([TOPIC]))[0]!.partitions[p]!;

/** The rendered cells of a partition's row: partition, leader, preferred, replicas, ISR, … */
async function rowCells(page: Page, p: number): Promise<string[]> {
  return page.locator(`table.partitions tr[data-partition="${p}"] td`).allInnerTexts();
}

test('per-replica LEO, reassignment and preferred leader election in the browser', {
  timeout: scaled(400_000),
}, async () => {
  await admin.createTopics([{ name: TOPIC, replicaAssignment: { 0: [1, 2], 1: [1, 2] } }]);
  await until('full ISRs', async () => {
    const [t] = await admin.describeTopics([TOPIC]);
    return t?.partitions.every((p) => p.isr.length === 2 && p.leader === 1);
  });
  const producer = new Producer({ bootstrapServers: cluster.bootstrap(), acks: 'all' });
  try {
    for (let i = 0; i < 20; i++)
      await Promise.all([0, 1].map((p) => producer.send({ topic: TOPIC, partition: p, value: `v${i}` })));
  } finally {
    await producer.close();
  }

  const context = await browser.newContext({ timezoneId: 'UTC', viewport: { width: 1280, height: 900 } });
  const { page, errors } = await openPage(context);
  const seen: string[] = [];
  page.on('dialog', (d) => {
    seen.push(`${d.type()}: ${d.message()}`);
    void d.accept();
  });
  await page.goto(`${server.url}#/topics/${TOPIC}`);
  await page.locator('table.partitions tr[data-partition="1"]').waitFor();

  // Each replica's own log end offset, as its broker reports it: 20 on leader and follower alike.
  const leos = await admin.replicaLogEndOffsets(
    [0, 1].map((p) => ({ topic: TOPIC, partition: p, replicas: [1, 2] })),
  );
  assert.deepEqual(leos.map((l) => [l.partition, l.broker, l.logEndOffset]).sort(), [
    [0, 1, 20n],
    [0, 2, 20n],
    [1, 1, 20n],
    [1, 2, 20n],
  ]);
  for (const l of leos)
    assert.match(
      await page.getByTestId(`replica-${l.partition}-${l.broker}`).innerText(),
      new RegExp(`^${l.broker}${l.broker === 1 ? ' \\(leader\\)' : ''}\\s*· .* · LEO ${l.logEndOffset}$`),
    );

  // Reorder partition 1's replicas: broker 2 becomes its preferred leader, broker 1 still leads.
  await page.getByText('Partition reassignment').click();
  const rf = page.getByRole('form', { name: 'Reassign a partition' });
  await rf.getByLabel('Partition').selectOption('1');
  assert.equal(await rf.getByLabel(/Replicas/).inputValue(), '1, 2');
  await rf.getByLabel(/Replicas/).fill('2, 1');
  await rf.getByRole('button', { name: 'Start reassignment' }).click();
  await page.getByTestId('reassign-result').filter({ hasText: 'Reassignment started.' }).waitFor();
  assert.match(seen.at(-1) ?? '', /^confirm: Move moves-1 from replicas \[1, 2\] to \[2, 1\]\?/);
  await until('partition 1 on [2, 1]', async () => (await partition(1)).replicas.join() === '2,1');
  await page.getByTestId('reassign-progress').filter({ hasText: 'No reassignment in progress' }).waitFor();
  await page.getByRole('button', { name: 'Refresh' }).click();
  await until('the page shows [2, 1]', async () => (await rowCells(page, 1))[3] === '2, 1');
  // As in Kafka, a reassignment keeps a leader that stays a replica.
  assert.equal((await partition(1)).leader, 1);
  assert.match((await rowCells(page, 1))[2]!, /^2\s*not leading$/);

  // Preferred leader election for the whole topic: broker 2 leads partition 1 again.
  await page.getByText('Preferred leader election').click();
  const ef = page.getByRole('form', { name: 'Preferred leader election' });
  await ef.getByLabel('Partition').selectOption('all');
  await ef.getByRole('button', { name: 'Elect preferred leader' }).click();
  await page.getByTestId('elect-result').waitFor();
  assert.match(
    seen.at(-1) ?? '',
    /^confirm: Elect the preferred leader \(first replica\) of every partition of moves\?/,
  );
  assert.match(
    await page.getByTestId('elect-result').innerText(),
    /Preferred leader elected on partitions 1\./,
  );
  await until('broker 2 leads partition 1', async () => (await partition(1)).leader === 2);
  assert.equal((await partition(0)).leader, 1, 'partition 0 already had its preferred leader');
  await until('the page shows leader 2', async () => {
    if ((await rowCells(page, 1))[1] === '2') return true;
    await page.getByRole('button', { name: 'Refresh' }).click();
    return false;
  });
  assert.equal((await rowCells(page, 1))[2], '2');

  // Move partition 0 to brokers {3, 2}: broker 3 gets a copy of the data, broker 1 drops it.
  await rf.getByLabel('Partition').selectOption('0');
  await rf.getByLabel(/Replicas/).fill('3, 2');
  await rf.getByRole('button', { name: 'Start reassignment' }).click();
  await page.getByTestId('reassign-result').filter({ hasText: 'Reassignment started.' }).waitFor();
  // The page follows the move by itself (reloaded every 2 s while one is listed).
  await until(
    'the page shows partition 0 on [3, 2]',
    async () => (await rowCells(page, 0))[3] === '3, 2',
    120_000,
  );
  await page.getByTestId('reassign-progress').filter({ hasText: 'No reassignment in progress' }).waitFor();
  await until('replica 3 of partition 0 at LEO 20', async () =>
    /LEO 20$/.test(await page.getByTestId('replica-0-3').innerText()),
  );
  assert.equal(await page.getByTestId('replica-0-1').count(), 0);
  const p0 = await partition(0);
  assert.deepEqual(p0.replicas, [3, 2]);
  await screenshot(page, 'topic-cluster');
  assert.deepEqual(errors, []);
  await context.close();
});

test('the reassignment API checks its input, and cancelling with nothing in progress says so', async () => {
  const post = (path: string, body: unknown) =>
    fetch(`${server.url}api/topics/${TOPIC}/${path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
  assert.equal((await post('reassignments', { partitions: [] })).status, 400);
  assert.equal(
    (await post('reassignments', { partitions: [{ partition: 0, replicas: [2, 2] }] })).status,
    400,
  );
  const unknownBroker = await post('reassignments', { partitions: [{ partition: 0, replicas: [2, 9] }] });
  assert.notEqual(unknownBroker.status, 200);
  const cancel = await post('reassignments', { partitions: [{ partition: 0, replicas: null }] });
  assert.notEqual(cancel.status, 200);
  assert.match(((await cancel.json()) as { error: string }).error, /NO_REASSIGNMENT_IN_PROGRESS/);
  const listed = (await (await fetch(`${server.url}api/topics/${TOPIC}/reassignments`)).json()) as unknown[];
  assert.deepEqual(listed, []);
  const elect = (await (await post('elect-leaders', { partitions: [0] })).json()) as {
    results: { partition: number; error: string | null; message: string | null }[];
  };
  assert.deepEqual(elect.results, [
    { partition: 0, error: 'ELECTION_NOT_NEEDED', message: elect.results[0]!.message },
  ]);
});
