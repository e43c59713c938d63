// biome-ignore-all lint/performance/useDomNodeTextContent: playwright's Locator.innerText (rendered text, cells apart), not the DOM property
// The console's security pages in a real browser against a broker with Kafka's AclAuthorizer
// (PLAINTEXT, super.users=User:ANONYMOUS so the console may administer): list, add and remove an
// ACL; set and remove a client quota; a read-only console shows both lists but no write, and its
// API refuses them.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import type { Browser } from 'playwright-core';
import { ANY_ACL } from '../../src/client/admin/acls.js';
import { Admin } from '../../src/client/index.js';
import { type ConsoleServer, serveConsole } from '../../src/console/index.js';
import { startTestBroker, type TestBroker } from '../../src/testkit/index.js';
import { launchBrowser, openPage, screenshot } from './support.js';

let broker: TestBroker;
let browser: Browser;
let admin: Admin;
let server: ConsoleServer;
let readOnly: ConsoleServer;

before(async () => {
  browser = await launchBrowser();
  broker = await startTestBroker({
    overrides: {
      'authorizer.class.name': 'kafka.security.authorizer.AclAuthorizer',
      'super.users': 'User:ANONYMOUS',
      'offsets.topic.num.partitions': 1,
    },
  });
  admin = new Admin({ bootstrapServers: broker.bootstrap });
  const client = { bootstrapServers: broker.bootstrap };
  server = await serveConsole({ client, port: 0 });
  readOnly = await serveConsole({ client, port: 0, readOnly: true });
});

after(async () => {
  await browser?.close();
  await server?.close();
  await readOnly?.close();
  await admin?.close();
  await broker?.close();
});

async function fresh() {
  const context = await browser.newContext({ timezoneId: 'UTC', viewport: { width: 1280, height: 900 } });
  const opened = await openPage(context);
  const seen: string[] = [];
  opened.page.on('dialog', (d) => {
    seen.push(`${d.type()}: ${d.message()}`);
    void d.accept();
  });
  return { context, seen, ...opened };
}

test('ACLs: add one in the page, see it listed, remove it', async () => {
  const { context, page, errors, seen } = await fresh();
  await page.goto(`${server.url}#/acls`);
  await page.getByText('0 of 0 ACLs').waitFor();
  await page.getByText('Add an ACL').click();
  const f = page.getByRole('form', { name: 'Add an ACL' });
  await f.getByLabel('Principal').fill('User:alice');
  await f.getByLabel('Operation').selectOption('READ');
  await f.getByLabel('Resource type').selectOption('TOPIC');
  await f.getByLabel('Resource name').fill('orders-');
  await f.getByLabel('Pattern').selectOption('PREFIXED');
  await f.getByRole('button', { name: 'Add ACL' }).click();
  await page.getByText('1 of 1 ACLs').waitFor();
  assert.match(
    seen.at(-1) ?? '',
    /^confirm: Add the ACL: ALLOW User:alice READ on TOPIC orders- \(PREFIXED\) from \*\?/,
  );
  const row = page.locator('table.acls tbody tr');
  assert.match(await row.innerText(), /User:alice\s+ALLOW\s+READ\s+TOPIC\s+orders-\s+PREFIXED\s+\*/);
  const acls = await admin.describeAcls(ANY_ACL);
  assert.deepEqual(acls, [
    {
      pattern: { resourceType: 'TOPIC', name: 'orders-', patternType: 'PREFIXED' },
      entry: { principal: 'User:alice', host: '*', operation: 'READ', permissionType: 'ALLOW' },
    },
  ]);
  // A second one added outside the console shows up on refresh.
  await admin.createAcls([
    {
      pattern: { resourceType: 'GROUP', name: 'billing', patternType: 'LITERAL' },
      entry: { principal: 'User:bob', host: '*', operation: 'READ', permissionType: 'DENY' },
    },
  ]);
  await page.getByRole('button', { name: 'Refresh' }).click();
  await page.getByText('2 of 2 ACLs').waitFor();
  await screenshot(page, 'acls');

  await page.getByRole('button', { name: /^Remove ALLOW User:alice READ on TOPIC orders-/ }).click();
  await page.getByText('1 of 1 ACLs').waitFor();
  assert.match(seen.at(-1) ?? '', /^confirm: Remove the ACL: ALLOW User:alice READ/);
  assert.deepEqual(
    (await admin.describeAcls(ANY_ACL)).map((b) => b.entry.principal),
    ['User:bob'],
  );
  assert.deepEqual(errors, []);
  await context.close();
});

test('quotas: set one for a user and a default client id, remove one', async () => {
  const { context, page, errors, seen } = await fresh();
  await page.goto(`${server.url}#/quotas`);
  await page.getByText('No client quota is set').waitFor();
  await page.getByText('Set a quota').click();
  const f = page.getByRole('form', { name: 'Set a quota' });
  await f.getByLabel('User').fill('alice');
  await f.getByLabel('Key').selectOption('producer_byte_rate');
  await f.getByLabel('Value').fill('1048576');
  await f.getByRole('button', { name: 'Apply' }).click();
  const alice = page.locator('tr[data-entity="user=alice"]');
  await alice.waitFor();
  assert.match(seen.at(-1) ?? '', /^confirm: Set producer_byte_rate=1048576 on user=alice\?/);
  assert.match(await alice.innerText(), /1,048,576/);

  await f.getByLabel('User').fill('');
  await f.getByLabel('Client id').fill('<default>');
  await f.getByLabel('Key').selectOption('consumer_byte_rate');
  await f.getByLabel('Value').fill('2000000');
  await f.getByRole('button', { name: 'Apply' }).click();
  await page.locator('tr[data-entity="client-id=<default>"]').waitFor();
  const described = await admin.describeClientQuotas({ components: [] });
  assert.deepEqual(
    described
      .map((e) => [e.entity, e.values])
      .sort((a, b) => JSON.stringify(a).localeCompare(JSON.stringify(b))),
    [
      [[{ entityType: 'client-id', name: null }], { consumer_byte_rate: 2000000 }],
      [[{ entityType: 'user', name: 'alice' }], { producer_byte_rate: 1048576 }],
    ],
  );
  await screenshot(page, 'quotas');

  await f.getByLabel('Client id').fill('');
  await f.getByLabel('User').fill('alice');
  await f.getByLabel('Key').selectOption('producer_byte_rate');
  await f.getByLabel('Action').selectOption('remove');
  await f.getByRole('button', { name: 'Apply' }).click();
  await alice.waitFor({ state: 'detached' });
  assert.match(seen.at(-1) ?? '', /^confirm: Remove producer_byte_rate from user=alice\?/);
  assert.equal((await admin.describeClientQuotas({ components: [] })).length, 1);
  assert.deepEqual(errors, []);
  await context.close();
});

test('read-only: the ACL and quota pages list but offer no write; the API refuses them', async () => {
  const { context, page, errors } = await fresh();
  await page.goto(`${readOnly.url}#/acls`);
  await page.getByText('User:bob').waitFor();
  assert.equal(await page.getByText('Add an ACL').count(), 0);
  assert.equal(await page.getByRole('button', { name: /^Remove/ }).count(), 0);
  await page.goto(`${readOnly.url}#/quotas`);
  await page.locator('tr[data-entity="client-id=<default>"]').waitFor();
  assert.equal(await page.getByText('Set a quota').count(), 0);
  assert.deepEqual(errors, []);
  await context.close();

  const bob = {
    resourceType: 'GROUP',
    name: 'billing',
    patternType: 'LITERAL',
    principal: 'User:bob',
    host: '*',
    operation: 'READ',
    permissionType: 'DENY',
  };
  const writes: [string, string, unknown][] = [
    ['POST', 'api/acls', { ...bob, principal: 'User:mallory' }],
    ['DELETE', 'api/acls', { ...bob, confirm: 'User:bob' }],
    [
      'POST',
      'api/quotas',
      { entity: [{ entityType: 'user', name: 'x' }], values: { producer_byte_rate: 1 } },
    ],
    ['POST', 'api/topics/any/elect-leaders', {}],
    ['POST', 'api/topics/any/reassignments', { partitions: [{ partition: 0, replicas: [1] }] }],
  ];
  for (const [method, path, body] of writes) {
    const r = await fetch(`${readOnly.url}${path}`, {
      method,
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
    assert.equal(r.status, 403, `${method} ${path}`);
  }
  assert.deepEqual(
    (await admin.describeAcls(ANY_ACL)).map((b) => b.entry.principal),
    ['User:bob'],
  );
  // The writable console still checks its input: a delete must repeat the principal.
  const unconfirmed = await fetch(`${server.url}api/acls`, {
    method: 'DELETE',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(bob),
  });
  assert.equal(unconfirmed.status, 400);
  assert.equal((await admin.describeAcls(ANY_ACL)).length, 1);
});
