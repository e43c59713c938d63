// biome-ignore-all lint/performance/useDomNodeTextContent: playwright's Locator.innerText (rendered text, cells apart), not the DOM property
// The console's writes in a real browser against one in-process broker: add partitions, change a
// topic config (the override shown, then removed back to the default), delete a group and a topic
// (each confirmed by typing its name); the topic page's per-replica log end offsets; the ACL page
// of a broker without an authorizer (its SECURITY_DISABLED answer, shown, not an error).
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { Admin, Producer } from '../../src/client/index.js';
import { type ConsoleServer, serveConsole } from '../../src/console/index.js';
import { startTestBroker, type TestBroker } from '../../src/testkit/index.js';
import { scaled } from '../support/timeouts.js';
import { launchBrowser, openPage } from './support.js';

let broker: TestBroker;
let browser: Browser;
let admin: Admin;
let server: ConsoleServer;

before(async () => {
  browser = await launchBrowser();
  broker = await startTestBroker({ overrides: { 'offsets.topic.num.partitions': 1 } });
  admin = new Admin({ bootstrapServers: broker.bootstrap });
  server = await serveConsole({ client: { bootstrapServers: broker.bootstrap }, port: 0, refreshMs: 500 });
});

after(async () => {
  await browser?.close();
  await server?.close();
  await admin?.close();
  await broker?.close();
});

/** Every confirm() is accepted (and counted); every prompt() is answered `answer()`. */
function dialogs(page: Page, answer: () => string = () => '') {
  const seen: string[] = [];
  page.on('dialog', (d) => {
    seen.push(`${d.type()}: ${d.message()}`);
    void (d.type() === 'prompt' ? d.accept(answer()) : d.accept());
  });
  return seen;
}

/** Waits for a dialog whose "type: message" matches. */
async function dialogSeen(seen: string[], re: RegExp): Promise<void> {
  const deadline = Date.now() + scaled(20_000);
  while (!seen.some((s) => re.test(s))) {
    if (Date.now() > deadline) throw new Error(`no dialog matching ${re} (seen: ${seen.join(' | ')})`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

async function fresh() {
  const context = await browser.newContext({ timezoneId: 'UTC', viewport: { width: 1280, height: 900 } });
  return { context, ...(await openPage(context)) };
}

test('add partitions, set a config override and reset it to the default, per-replica LEO', async () => {
  const topic = 'grow-me';
  await admin.createTopics([{ name: topic, numPartitions: 1, replicationFactor: 1 }]);
  const p = new Producer({ bootstrapServers: broker.bootstrap });
  try {
    for (let i = 0; i < 7; i++) await p.send({ topic, partition: 0, key: `k${i}`, value: `v${i}` });
  } finally {
    await p.close();
  }
  const { context, page, errors } = await fresh();
  const seen = dialogs(page);
  await page.goto(`${server.url}#/topics/${topic}`);
  const rows = page.locator('table.partitions tbody tr');
  await rows.first().waitFor();
  assert.equal(await rows.count(), 1);
  // The replica's own log end offset, as its broker reports it (ListOffsets, replica id -2).
  const leo = await admin.replicaLogEndOffsets([{ topic, partition: 0, replicas: [broker.nodeId] }]);
  assert.equal(leo[0]?.logEndOffset, 7n);
  assert.match(await page.getByTestId(`replica-0-${broker.nodeId}`).innerText(), /LEO 7$/);

  await page.getByText('Add partitions', { exact: true }).first().click();
  const add = page.getByRole('form', { name: 'Add partitions' });
  await add.getByLabel('New partition count').fill('3');
  await add.getByRole('button', { name: 'Add partitions' }).click();
  await rows.nth(2).waitFor();
  assert.equal(await rows.count(), 3);
  assert.equal((await admin.describeTopics([topic]))[0]?.partitions.length, 3);
  assert.match(seen.at(-1) ?? '', /^confirm: Grow grow-me from 1 to 3 partitions/);

  // An override: shown as such, then removed (back to the broker's default).
  await page.getByText('Change a config').click();
  const cfg = page.getByRole('form', { name: 'Change a config' });
  await cfg.getByLabel('Key').fill('retention.ms');
  await cfg.getByLabel('Value').fill('3600000');
  await cfg.getByRole('button', { name: 'Apply' }).click();
  const override = page.locator('tr.override[data-config="retention.ms"]');
  await override.waitFor();
  assert.match(await override.innerText(), /3600000[\s\S]*override[\s\S]*DYNAMIC_TOPIC_CONFIG/);
  assert.match(seen.at(-1) ?? '', /^confirm: Set retention.ms=3600000 on grow-me\?/);
  const described = async () =>
    (await admin.describeConfigs([{ type: 'topic', name: topic }]))[0]!.entries.find(
      (e) => e.name === 'retention.ms',
    )!;
  assert.equal((await described()).value, '3600000');

  await cfg.getByLabel('Action').selectOption('delete');
  await cfg.getByRole('button', { name: 'Apply' }).click();
  await override.waitFor({ state: 'detached' });
  assert.match(seen.at(-1) ?? '', /^confirm: Remove the override of retention.ms on grow-me\?/);
  await page.getByLabel('Show defaults too').check();
  const dflt = page.locator('tr.default[data-config="retention.ms"]');
  assert.match(await dflt.innerText(), /604800000[\s\S]*default/);
  assert.equal((await described()).value, '604800000');
  assert.notEqual((await described()).source, 'DYNAMIC_TOPIC_CONFIG');
  assert.deepEqual(errors, []);
  await context.close();
});

test('delete a group: a wrong name deletes nothing, the typed id does', async () => {
  const topic = 'group-topic';
  const group = 'doomed-group';
  await admin.createTopics([{ name: topic, numPartitions: 1, replicationFactor: 1 }]);
  await admin.alterConsumerGroupOffsets(group, [{ topic, partition: 0, offset: 0n }]);
  const { context, page, errors } = await fresh();
  let answer = 'not-the-group';
  const seen = dialogs(page, () => answer);
  await page.goto(`${server.url}#/groups/${group}`);
  await page.getByTestId('total-lag').waitFor();
  await page.getByRole('button', { name: 'Delete group' }).click();
  await dialogSeen(seen, /^prompt: Delete group doomed-group/);
  assert.equal(
    (await admin.listGroups()).some((g) => g.groupId === group),
    true,
    'a wrong name deletes nothing',
  );

  answer = group;
  await page.getByRole('button', { name: 'Delete group' }).click();
  await page.waitForURL(/#\/groups$/);
  await page.getByRole('heading', { name: 'Consumer groups' }).waitFor();
  assert.equal(
    (await admin.listGroups()).some((g) => g.groupId === group),
    false,
  );
  assert.deepEqual(errors, []);
  await context.close();
});

test('delete a topic from its page, confirmed by typing its name', async () => {
  const topic = 'short-lived';
  await admin.createTopics([{ name: topic, numPartitions: 2, replicationFactor: 1 }]);
  const { context, page, errors } = await fresh();
  let answer = 'short';
  const seen = dialogs(page, () => answer);
  await page.goto(`${server.url}#/topics/${topic}`);
  await page.locator('table.partitions tbody tr').first().waitFor();
  await page.getByRole('button', { name: 'Delete topic' }).click();
  // A name that does not match: an alert says so and nothing is deleted.
  await dialogSeen(seen, /^prompt: Delete topic short-lived/);
  await dialogSeen(seen, /^alert: The name did not match/);
  assert.equal((await admin.listTopics()).includes(topic), true);

  answer = topic;
  await page.getByRole('button', { name: 'Delete topic' }).click();
  await page.waitForURL(/#\/topics$/);
  await page.getByRole('heading', { name: 'Topics' }).waitFor();
  assert.equal((await admin.listTopics()).includes(topic), false);
  assert.equal(await page.getByRole('link', { name: topic, exact: true }).count(), 0);
  assert.deepEqual(errors, []);
  await context.close();
});

test('without an authorizer, the ACL page shows the broker’s SECURITY_DISABLED answer', async () => {
  const r = await fetch(`${server.url}api/acls`);
  assert.equal(r.status, 200);
  const body = (await r.json()) as { enabled: boolean; error: string; message: string };
  assert.equal(body.enabled, false);
  assert.equal(body.error, 'SECURITY_DISABLED');
  const { context, page, errors } = await fresh();
  await page.goto(`${server.url}#/acls`);
  const note = page.getByTestId('security-disabled');
  await note.waitFor();
  assert.match(await note.innerText(), /SECURITY_DISABLED/);
  assert.equal(await page.getByText('Add an ACL').count(), 0);
  // Quotas need no authorizer: the page lists none yet.
  await page.goto(`${server.url}#/quotas`);
  await page.getByText('No client quota is set').waitFor();
  assert.deepEqual(errors, []);
  await context.close();
});
