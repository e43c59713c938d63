// biome-ignore-all lint/performance/useDomNodeTextContent: playwright's Locator.innerText (rendered text, cells apart), not the DOM property
// The web console in a real browser (Debian's Chromium through playwright-core) against a real
// in-process broker: the console mounted on the broker's http.listener as `samsa start` does, and
// standalone consoles (read-only, with a login) as `samsa console` serves them.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { Admin, Producer } from '../../src/client/index.js';
import {
  type ConsoleHandle,
  type ConsoleServer,
  createConsole,
  serveConsole,
} from '../../src/console/index.js';
import { startTestBroker, type TestBroker } from '../../src/testkit/index.js';
import { exec } from '../interop/support/exec.js';
import { scaled } from '../support/timeouts.js';
import { launchBrowser, openPage, screenshot } from './support.js';

let broker: TestBroker;
let mounted: ConsoleHandle;
let base: string;
let browser: Browser;
let admin: Admin;
const servers: ConsoleServer[] = [];

before(async () => {
  // First: a missing Chromium fails the file at once, with the command that installs it.
  browser = await launchBrowser();
  broker = await startTestBroker({
    overrides: { 'http.listener': '127.0.0.1:0', 'offsets.topic.num.partitions': 1 },
  });
  mounted = createConsole({ client: { bootstrapServers: broker.bootstrap }, refreshMs: 500 });
  broker.mountHttp!('/', mounted.handler);
  base = `http://127.0.0.1:${broker.http!.port}/`;
  admin = new Admin({ bootstrapServers: broker.bootstrap });
});

after(async () => {
  await browser?.close();
  for (const s of servers) await s.close();
  await mounted?.close();
  await admin?.close();
  await broker?.close();
});

/** Answers every confirm() with OK and every prompt() with `answer()`. */
function acceptDialogs(page: Page, answer: () => string = () => ''): void {
  page.on('dialog', (d) => void (d.type() === 'prompt' ? d.accept(answer()) : d.accept()));
}

async function newContext() {
  return browser.newContext({ timezoneId: 'UTC', viewport: { width: 1280, height: 900 } });
}

async function produce(
  topic: string,
  records: { key: string; value: string; timestamp?: number; partition?: number }[],
) {
  const p = new Producer({ bootstrapServers: broker.bootstrap });
  try {
    for (const r of records) await p.send({ topic, ...r });
  } finally {
    await p.close();
  }
}

test('the metrics and health routes still answer next to the console', async () => {
  assert.equal((await fetch(`${base}health/live`)).status, 200);
  assert.equal((await fetch(`${base}metrics`)).status, 200);
  const page = await fetch(base);
  assert.equal(page.status, 200);
  assert.match(await page.text(), /Samsa console/);
  assert.equal((await fetch(`${base}ui/app.js`)).status, 200);
  assert.equal((await fetch(`${base}no-such-file`)).status, 404);
  // A GET never writes: the write routes refuse it.
  assert.equal((await fetch(`${base}api/groups/x/reset`)).status, 405);
});

test('create a topic and produce a message in the browser, then find it by key and by timestamp', async () => {
  const context = await newContext();
  const { page, errors } = await openPage(context);
  acceptDialogs(page);
  const topic = 'ui-orders';
  await page.goto(`${base}#/topics`);
  await page.getByText('Create a topic').click();
  const form = page.getByRole('form', { name: 'Create a topic' });
  await form.getByLabel('Name').fill(topic);
  await form.getByLabel('Partitions').fill('3');
  await form.getByLabel('Replication factor').fill('1');
  await form.getByLabel(/Configs/).fill('retention.ms=86400000');
  await form.getByRole('button', { name: 'Create topic' }).click();
  await page.getByText(`Created ${topic} (3 partitions, RF 1)`).waitFor();
  await page.getByRole('link', { name: topic, exact: true }).waitFor();
  const [created] = await admin.describeTopics([topic]);
  assert.equal(created?.partitions.length, 3);

  // An older record, an hour back: a search from a later time must not find it.
  const now = Date.now();
  await produce(topic, [{ key: 'order-old', value: '{"id":1}', timestamp: now - 3_600_000, partition: 1 }]);

  await page.goto(`${base}#/topics/${topic}/messages`);
  await page.getByText('Produce a message').click();
  const pf = page.getByRole('form', { name: 'Produce a message' });
  await pf.getByLabel('Key', { exact: true }).fill('order-42');
  await pf.getByLabel('Value', { exact: true }).fill('{"id":42,"item":"lamp"}');
  await pf.getByLabel(/Headers/).fill('source=browser');
  await pf.getByRole('button', { name: 'Produce' }).click();
  await page
    .getByTestId('produce-result')
    .filter({ hasText: /Produced to partition \d at offset 0/ })
    .waitFor();

  // By key, from the oldest record of every partition.
  const find = page.getByRole('form', { name: 'Find messages' });
  await find.getByLabel('From').selectOption('oldest');
  await find.getByLabel('Partition').selectOption('all');
  await find.getByLabel('Key contains').fill('order-42');
  await find.getByRole('button', { name: 'Find' }).click();
  await page
    .getByTestId('browse-summary')
    .filter({ hasText: /^1 records shown/ })
    .waitFor();
  const row = page.locator('table.records tbody tr');
  assert.equal(await row.count(), 1);
  assert.match(await row.innerText(), /order-42[\s\S]*"item":"lamp"[\s\S]*source/);
  await page.getByLabel('JSON').check();
  assert.match(await row.innerText(), /"item": "lamp"/);
  await page.getByLabel('hex').check();
  assert.match(await row.innerText(), /7b 22 69 64 22/);
  await page.getByLabel('string').check();
  await screenshot(page, 'messages');

  // By timestamp: from a minute before it, with no key filter: the new record, not the old one.
  const r = (await (await fetch(`${base}api/topics/${topic}/messages?mode=oldest&key=order-42`)).json()) as {
    records: { timestamp: number }[];
  };
  const ts = r.records[0]!.timestamp;
  await find.getByLabel('Key contains').fill('');
  await find.getByLabel('From').selectOption('timestamp');
  await find.getByLabel('Time (local)').fill(new Date(ts - 60_000).toISOString().slice(0, 23));
  await find.getByRole('button', { name: 'Find' }).click();
  await page
    .getByTestId('browse-summary')
    .filter({ hasText: /^1 records shown/ })
    .waitFor();
  assert.match(await row.innerText(), /order-42/);
  assert.doesNotMatch(await page.locator('table.records').innerText(), /order-old/);
  // From two hours back, both.
  await find.getByLabel('Time (local)').fill(new Date(now - 7_200_000).toISOString().slice(0, 23));
  await find.getByRole('button', { name: 'Find' }).click();
  await page
    .getByTestId('browse-summary')
    .filter({ hasText: /^2 records shown/ })
    .waitFor();

  assert.deepEqual(errors, []);
  await context.close();
});

test('a group consumed by kcat shows its lag; offsets reset through the UI are committed', async () => {
  const topic = 'lag-topic';
  const group = 'kcat-group';
  await admin.createTopics([{ name: topic, numPartitions: 1, replicationFactor: 1 }]);
  await produce(
    topic,
    Array.from({ length: 10 }, (_, i) => ({
      key: `k${i}`,
      value: `v${i}`,
      partition: 0,
      timestamp: Date.now() - 5000,
    })),
  );
  // kcat consumes 4 records in the group and commits them when it leaves.
  const k = await exec(
    'kcat',
    ['-b', broker.bootstrap, '-G', group, '-X', 'auto.offset.reset=earliest', '-c', '4', '-f', '%k\n', topic],
    { timeoutMs: 90_000 },
  );
  assert.equal(k.code, 0, k.stderr);
  assert.equal(k.stdout.toString().trim().split('\n').length, 4);
  const committed = await admin.listConsumerGroupOffsets(group);
  assert.deepEqual(
    committed.map((c) => [c.topic, c.partition, c.offset]),
    [[topic, 0, 4n]],
  );

  const context = await newContext();
  const { page, errors } = await openPage(context);
  acceptDialogs(page);
  await page.goto(`${base}#/groups`);
  await page.getByTestId(`lag-${group}`).filter({ hasText: /^6$/ }).waitFor();

  await page.getByRole('link', { name: group }).click();
  await page.getByTestId('total-lag').filter({ hasText: /^6$/ }).waitFor();
  const tp = page.locator(`tr[data-tp="${topic}-0"]`);
  assert.match(await tp.innerText(), /\b4\b[\s\S]*\b10\b[\s\S]*\b6\b/);
  // Lag in time: the record at offset 4 is about 5 s old (never "–" once read).
  const lagTime = await tp.locator('td').nth(5).innerText();
  assert.match(lagTime, /\d+(\.\d)? s|min/);
  await page.locator('.chart svg').waitFor({ timeout: scaled(30_000) });

  await page.getByText('Reset offsets').click();
  const rf = page.getByRole('form', { name: 'Reset offsets' });
  await rf.getByLabel('Mode').selectOption('to-offset');
  await rf.getByLabel('Offset', { exact: true }).fill('2');
  await rf.getByRole('button', { name: 'Preview (dry run)' }).click();
  const plan = page.getByTestId('reset-plan');
  await plan.getByText('Dry run: nothing changed yet').waitFor();
  assert.match(await plan.locator('tbody tr').innerText(), new RegExp(`${topic}\\s+0\\s+4\\s+2`));
  assert.equal((await admin.listConsumerGroupOffsets(group))[0]?.offset, 4n, 'a dry run changes nothing');
  await page.getByRole('button', { name: 'Execute reset' }).click();
  await page.getByText('Offsets reset on 1 partitions.').waitFor();
  assert.equal((await admin.listConsumerGroupOffsets(group))[0]?.offset, 2n);
  await page.getByTestId('total-lag').filter({ hasText: /^8$/ }).waitFor();

  // shift-by through the API the page uses, clamped to the log end as Kafka's tool does.
  const res = await fetch(`${base}api/groups/${group}/reset`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ mode: 'shift-by', value: 100, execute: true }),
  });
  assert.equal(res.status, 200);
  assert.equal((await admin.listConsumerGroupOffsets(group))[0]?.offset, 10n);
  assert.deepEqual(errors, []);
  await context.close();
});

test('every page loads without console errors', async () => {
  const context = await newContext();
  const { page, errors } = await openPage(context);
  const pages: [string, string, RegExp][] = [
    ['overview', '#/', /Cluster id/],
    ['topics', '#/topics', /ui-orders/],
    ['topic', '#/topics/ui-orders', /High watermark/],
    ['messages', '#/topics/ui-orders/messages', /records shown/],
    ['groups', '#/groups', /kcat-group/],
    ['group', '#/groups/kcat-group', /Total lag/],
  ];
  for (const [name, hash, text] of pages) {
    await page.goto(`${base}${hash}`);
    await page.locator('main').getByText(text).first().waitFor();
    await page.waitForLoadState('networkidle').catch(() => {}); // the event stream never idles
    // messages is taken by a test above, groups and group by console-groups (a KIP-848 group
    // beside classic ones), overview by console-throughput (moving rates).
    if (!['overview', 'messages', 'groups', 'group'].includes(name)) await screenshot(page, name);
  }
  // A phone: the overview still renders, tables scroll inside their box.
  await page.setViewportSize({ width: 390, height: 844 });
  await page.goto(`${base}#/topics/ui-orders`);
  await page.getByRole('columnheader', { name: 'High watermark' }).waitFor();
  const width = (await page.evaluate('document.documentElement.scrollWidth')) as number;
  assert.ok(width <= 400, `the page is ${width}px wide on a 390px phone`);
  await screenshot(page, 'topic-phone');
  assert.deepEqual(errors, []);
  await context.close();
});

test('read-only mode: the UI offers no write and the API refuses every one (403)', async () => {
  const ro = await serveConsole({ client: { bootstrapServers: broker.bootstrap }, readOnly: true, port: 0 });
  servers.push(ro);
  const context = await newContext();
  const { page, errors } = await openPage(context);
  await page.goto(`${ro.url}#/topics`);
  await page.getByRole('link', { name: 'ui-orders' }).waitFor();
  assert.equal(await page.getByText('read-only', { exact: true }).count(), 1);
  assert.equal(await page.getByText('Create a topic').count(), 0);
  assert.equal(await page.getByRole('button', { name: /Delete/ }).count(), 0);
  await page.goto(`${ro.url}#/topics/ui-orders/messages`);
  await page.getByTestId('browse-summary').waitFor();
  assert.equal(await page.getByText('Produce a message').count(), 0);
  await page.goto(`${ro.url}#/groups/kcat-group`);
  await page.getByTestId('total-lag').waitFor();
  assert.equal(await page.getByText('Reset offsets').count(), 0);
  assert.equal(await page.getByRole('button', { name: 'Delete group' }).count(), 0);
  assert.deepEqual(errors, []);
  await context.close();

  const json = { 'content-type': 'application/json' };
  const writes: [string, string, unknown][] = [
    ['POST', 'api/topics', { name: 'ro-topic', partitions: 1 }],
    ['DELETE', 'api/topics/ui-orders', { confirm: 'ui-orders' }],
    ['POST', 'api/topics/ui-orders/messages', { key: 'k', value: 'v' }],
    ['POST', 'api/topics/ui-orders/partitions', { count: 5 }],
    ['POST', 'api/topics/ui-orders/configs', { set: { 'retention.ms': '1' } }],
    ['POST', 'api/groups/kcat-group/reset', { mode: 'to-earliest', execute: true }],
    ['DELETE', 'api/groups/kcat-group', { confirm: 'kcat-group' }],
  ];
  for (const [method, path, body] of writes) {
    const r = await fetch(`${ro.url}${path}`, { method, headers: json, body: JSON.stringify(body) });
    assert.equal(r.status, 403, `${method} ${path}`);
    assert.match(((await r.json()) as { error: string }).error, /read-only/);
  }
  assert.equal((await admin.listTopics()).includes('ro-topic'), false);
  assert.equal((await admin.describeTopics(['ui-orders']))[0]?.partitions.length, 3);
  assert.equal((await admin.listConsumerGroupOffsets('kcat-group'))[0]?.offset, 10n);
  // Reads still work.
  assert.equal((await fetch(`${ro.url}api/topics`)).status, 200);
});

test('the login protects every route, the event stream and the static files included', async () => {
  const secured = await serveConsole({
    client: { bootstrapServers: broker.bootstrap },
    users: [{ user: 'admin', password: 's3cret' }],
    port: 0,
  });
  servers.push(secured);
  const auth = (u: string, p: string) => ({
    authorization: `Basic ${Buffer.from(`${u}:${p}`).toString('base64')}`,
  });
  const paths = [
    '',
    'index.html',
    'ui/app.js',
    'ui/style.css',
    'ui/vendor/preact.mjs',
    'api/session',
    'api/cluster',
    'api/topics',
    'api/groups',
    'api/events',
    'nothing-here',
  ];
  for (const p of paths) {
    const none = await fetch(`${secured.url}${p}`);
    assert.equal(none.status, 401, `/${p} without credentials`);
    assert.match(none.headers.get('www-authenticate') ?? '', /^Basic realm=/);
    assert.equal(
      (await fetch(`${secured.url}${p}`, { headers: auth('admin', 'wrong') })).status,
      401,
      `/${p} wrong password`,
    );
    assert.equal(
      (await fetch(`${secured.url}${p}`, { headers: auth('root', 's3cret') })).status,
      401,
      `/${p} unknown user`,
    );
  }
  const post = await fetch(`${secured.url}api/topics`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ name: 'sneaky' }),
  });
  assert.equal(post.status, 401);
  for (const p of ['', 'ui/app.js', 'api/topics']) {
    assert.equal(
      (await fetch(`${secured.url}${p}`, { headers: auth('admin', 's3cret') })).status,
      200,
      `/${p} logged in`,
    );
  }
  const ac = new AbortController();
  const events = await fetch(`${secured.url}api/events`, {
    headers: auth('admin', 's3cret'),
    signal: ac.signal,
  });
  assert.equal(events.status, 200);
  assert.match(events.headers.get('content-type') ?? '', /text\/event-stream/);
  ac.abort();

  // The browser logs in with the credentials and the whole app works behind the login.
  const context = await browser.newContext({ httpCredentials: { username: 'admin', password: 's3cret' } });
  const { page, errors } = await openPage(context);
  await page.goto(`${secured.url}#/topics`);
  await page.getByRole('link', { name: 'ui-orders' }).waitFor();
  assert.match(await page.locator('header').innerText(), /admin/);
  assert.deepEqual(errors, []);
  await context.close();
});
