// biome-ignore-all lint/performance/useDomNodeTextContent: playwright's Locator.innerText (rendered text, cells apart), not the DOM property
// The console's login with the user's own SASL credentials, against a broker with a
// SASL_PLAINTEXT listener (SCRAM-SHA-256/512 credentials made with our Admin, PLAIN users from
// JAAS) and Kafka's AclAuthorizer: right and wrong credentials per mechanism, the session cookie's
// attributes, ACLs applied per logged-in user (a topic without Describe is not listed, a write
// without the right is refused), logout, expiry, CSRF, and hostile login bodies and cookies; the
// login page in Chromium.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import type { Browser } from 'playwright-core';
import { Admin } from '../../src/client/index.js';
import { type ConsoleServer, serveConsole } from '../../src/console/index.js';
import { startTestBroker, type TestBroker } from '../../src/testkit/index.js';
import { PASSWORDS, plainJaas } from '../broker/sasl/support.js';
import { scaled } from '../support/timeouts.js';
import { launchBrowser, openPage, screenshot } from './support.js';

const SCRAM = { alice: 'alice-Scram-77b1', bob: 'bob-Scram-3e02', admin: 'admin-Scram-c9d4' };
let broker: TestBroker;
let admin: Admin;
let server: ConsoleServer;
let browser: Browser;

before(async () => {
  browser = await launchBrowser();
  broker = await startTestBroker({
    overrides: {
      listeners: 'PLAINTEXT://127.0.0.1:0,SASL_PLAINTEXT://127.0.0.1:0',
      'sasl.enabled.mechanisms': 'PLAIN,SCRAM-SHA-256,SCRAM-SHA-512',
      'sasl.jaas.config': plainJaas(),
      'authorizer.class.name': 'kafka.security.authorizer.AclAuthorizer',
      // The test sets things up over PLAINTEXT (ANONYMOUS); admin is the cluster's operator.
      'super.users': 'User:admin;User:ANONYMOUS',
      'offsets.topic.num.partitions': 1,
      // A failed login's answer waits this long (Kafka's delay against guessing): the console
      // must not hold more than a few such checks at once.
      'connection.failed.authentication.delay.ms': 1000,
    },
  });
  admin = new Admin({ bootstrapServers: broker.bootstrapFor('PLAINTEXT') });
  await admin.alterUserScramCredentials([
    { type: 'upsert', user: 'alice', mechanism: 'SCRAM-SHA-256', password: SCRAM.alice },
    { type: 'upsert', user: 'bob', mechanism: 'SCRAM-SHA-256', password: SCRAM.bob },
    { type: 'upsert', user: 'admin', mechanism: 'SCRAM-SHA-512', password: SCRAM.admin },
  ]);
  await admin.createTopics(
    ['alice-orders', 'alice-audit', 'secret-payroll'].map((name) => ({
      name,
      numPartitions: 1,
      replicationFactor: 1,
    })),
  );
  // alice may describe and read the alice-* topics; bob may do nothing.
  await admin.createAcls(
    (['DESCRIBE', 'READ'] as const).map((operation) => ({
      pattern: { resourceType: 'TOPIC', name: 'alice-', patternType: 'PREFIXED' },
      entry: { principal: 'User:alice', host: '*', operation, permissionType: 'ALLOW' },
    })),
  );
  server = await serveConsole({
    client: { bootstrapServers: broker.bootstrapFor('SASL_PLAINTEXT') },
    port: 0,
    saslLogin: { mechanisms: ['SCRAM-SHA-256', 'SCRAM-SHA-512', 'PLAIN'] },
    refreshMs: 500,
  });
});

after(async () => {
  await browser?.close();
  await server?.close();
  await admin?.close();
  await broker?.close();
});

interface Login {
  status: number;
  cookie: string | null;
  setCookie: string | null;
  body: { user?: string; csrf?: string; error?: string };
}

async function login(user: string, password: string, mechanism?: string, url = server.url): Promise<Login> {
  const r = await fetch(`${url}api/login`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ user, password, ...(mechanism ? { mechanism } : {}) }),
  });
  const setCookie = r.headers.get('set-cookie');
  return {
    status: r.status,
    setCookie,
    cookie: setCookie?.split(';', 1)[0] ?? null,
    body: (await r.json()) as Login['body'],
  };
}

const as = (l: Login, extra: Record<string, string> = {}) => ({ cookie: l.cookie ?? '', ...extra });

async function topicsOf(l: Login, url = server.url): Promise<string[]> {
  const r = await fetch(`${url}api/topics?internal=1`, { headers: as(l) });
  assert.equal(r.status, 200);
  return ((await r.json()) as { rows: { name: string }[] }).rows.map((t) => t.name);
}

test('SCRAM and PLAIN credentials are checked against the cluster; a session cookie follows', async () => {
  const alice = await login('alice', SCRAM.alice);
  assert.equal(alice.status, 200, JSON.stringify(alice.body));
  assert.equal(alice.body.user, 'alice');
  assert.match(alice.cookie ?? '', /^samsa_console_session=[A-Za-z0-9_-]{43}$/);
  for (const attr of ['HttpOnly', 'SameSite=Strict', 'Path=/', 'Max-Age=28800'])
    assert.ok(alice.setCookie!.split('; ').includes(attr), `${attr} in ${alice.setCookie}`);
  const session = (await (await fetch(`${server.url}api/session`, { headers: as(alice) })).json()) as {
    user: string;
    login: string;
    csrf: string;
  };
  assert.deepEqual([session.user, session.login, session.csrf], ['alice', 'sasl', alice.body.csrf]);

  assert.equal((await login('admin', SCRAM.admin, 'SCRAM-SHA-512')).status, 200);
  assert.equal((await login('bob', PASSWORDS.bob, 'PLAIN')).status, 200);

  for (const [user, password, mechanism] of [
    ['alice', 'wrong', undefined],
    ['alice', SCRAM.alice, 'SCRAM-SHA-512'], // alice has no SCRAM-SHA-512 credential
    ['mallory', 'whatever', undefined],
    ['bob', 'wrong', 'PLAIN'],
  ] as const) {
    const r = await login(user, password, mechanism);
    assert.equal(r.status, 401, `${user}/${mechanism}: ${JSON.stringify(r.body)}`);
    assert.equal(r.setCookie, null);
    assert.equal(r.body.error, 'wrong user name or password');
  }
  const gssapi = await login('alice', SCRAM.alice, 'GSSAPI');
  assert.equal(gssapi.status, 400);
  assert.match(gssapi.body.error ?? '', /mechanism is one of SCRAM-SHA-256, SCRAM-SHA-512, PLAIN/);
});

test('without a session: the page and its scripts load, the API answers 401', async () => {
  assert.equal((await fetch(server.url)).status, 200);
  assert.equal((await fetch(`${server.url}ui/app.js`)).status, 200);
  const session = (await (await fetch(`${server.url}api/session`)).json()) as {
    user: null;
    login: string;
    mechanisms: string[];
  };
  assert.deepEqual(session, {
    readOnly: false,
    user: null,
    login: 'sasl',
    mechanisms: ['SCRAM-SHA-256', 'SCRAM-SHA-512', 'PLAIN'],
  });
  for (const p of [
    'api/topics',
    'api/cluster',
    'api/groups',
    'api/events',
    'api/acls',
    'api/topics/alice-orders',
  ]) {
    const r = await fetch(`${server.url}${p}`);
    assert.equal(r.status, 401, p);
    assert.deepEqual(await r.json(), { error: 'log in first', login: true });
  }
  const write = await fetch(`${server.url}api/topics`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ name: 'anonymous-topic' }),
  });
  assert.equal(write.status, 401);
  assert.equal((await admin.listTopics()).includes('anonymous-topic'), false);
});

test("each user sees what the cluster's ACLs let them describe", async () => {
  const alice = await login('alice', SCRAM.alice);
  const bob = await login('bob', SCRAM.bob);
  const root = await login('admin', SCRAM.admin, 'SCRAM-SHA-512');
  assert.deepEqual(await topicsOf(alice), ['alice-audit', 'alice-orders']);
  assert.deepEqual(await topicsOf(bob), []);
  const all = await topicsOf(root);
  assert.ok(all.includes('secret-payroll') && all.includes('alice-orders'), all.join(','));
  // The overview counts what the user sees, too.
  const overview = async (l: Login) =>
    ((await (await fetch(`${server.url}api/cluster`, { headers: as(l) })).json()) as { topics: number })
      .topics;
  assert.equal(await overview(alice), 2);
  assert.equal(await overview(bob), 0);
  // A topic the user may not describe is not there, by name either.
  assert.equal((await fetch(`${server.url}api/topics/secret-payroll`, { headers: as(alice) })).status, 403);
  assert.equal((await fetch(`${server.url}api/topics/alice-orders`, { headers: as(alice) })).status, 200);
  // Writes run as the user: alice may not create topics; admin may.
  const create = (l: Login, name: string) =>
    fetch(`${server.url}api/topics`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        'x-samsa-csrf': l.body.csrf ?? '',
        cookie: l.cookie ?? '',
      },
      body: JSON.stringify({ name, partitions: 1, replicationFactor: 1 }),
    });
  const refused = await create(alice, 'alice-new');
  assert.equal(refused.status, 403, await refused.text());
  assert.equal((await admin.listTopics()).includes('alice-new'), false);
  assert.equal((await create(root, 'root-new')).status, 200);
  assert.equal((await admin.listTopics()).includes('root-new'), true);
  // Each user's event stream carries that user's view.
  const ac = new AbortController();
  const events = await fetch(`${server.url}api/events`, { headers: as(alice), signal: ac.signal });
  assert.equal(events.status, 200);
  const reader = events.body!.getReader();
  let text = '';
  const deadline = Date.now() + scaled(30_000);
  while (!/event: cluster\ndata: .*\n/.test(text)) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for alice's cluster event:\n${text}`);
    const { value, done } = await reader.read();
    if (done) break;
    text += Buffer.from(value).toString();
  }
  ac.abort();
  const data = JSON.parse(/event: cluster\ndata: (.*)\n/.exec(text)![1]!) as { cluster: { topics: number } };
  assert.equal(data.cluster.topics, 2);
});

test('writes of a cookie session need its CSRF token and this origin', async () => {
  const root = await login('admin', SCRAM.admin, 'SCRAM-SHA-512');
  const post = (headers: Record<string, string>) =>
    fetch(`${server.url}api/topics`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', cookie: root.cookie!, ...headers },
      body: JSON.stringify({ name: 'csrf-topic', partitions: 1, replicationFactor: 1 }),
    });
  assert.equal((await post({})).status, 403, 'no token');
  assert.equal((await post({ 'x-samsa-csrf': 'A'.repeat(43) })).status, 403, 'a wrong token');
  assert.equal((await post({ 'x-samsa-csrf': root.body.csrf!, origin: 'http://evil.example' })).status, 403);
  assert.equal((await admin.listTopics()).includes('csrf-topic'), false);
  // Another session's token is not this session's.
  const other = await login('admin', SCRAM.admin, 'SCRAM-SHA-512');
  assert.equal((await post({ 'x-samsa-csrf': other.body.csrf! })).status, 403);
  const ok = await post({ 'x-samsa-csrf': root.body.csrf!, origin: server.url.replace(/\/$/, '') });
  assert.equal(ok.status, 200, await ok.text());
  // A GET never writes, with or without a token.
  assert.equal((await fetch(`${server.url}api/groups/x/reset`, { headers: as(root) })).status, 405);
  // A cross-site login is refused too (login CSRF).
  const cross = await fetch(`${server.url}api/login`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', origin: 'http://evil.example' },
    body: JSON.stringify({ user: 'admin', password: SCRAM.admin, mechanism: 'SCRAM-SHA-512' }),
  });
  assert.equal(cross.status, 403);
});

test('logout ends the session (its cookie no longer works); it needs the CSRF token', async () => {
  const alice = await login('alice', SCRAM.alice);
  const logout = (headers: Record<string, string>) =>
    fetch(`${server.url}api/logout`, { method: 'POST', headers: { cookie: alice.cookie!, ...headers } });
  assert.equal((await logout({})).status, 403);
  assert.equal(
    (await fetch(`${server.url}api/topics`, { headers: as(alice) })).status,
    200,
    'still logged in',
  );
  const out = await logout({ 'x-samsa-csrf': alice.body.csrf! });
  assert.equal(out.status, 200);
  assert.match(out.headers.get('set-cookie') ?? '', /^samsa_console_session=; .*Max-Age=0/);
  assert.equal((await fetch(`${server.url}api/topics`, { headers: as(alice) })).status, 401);
  assert.equal((await fetch(`${server.url}api/logout`, { method: 'GET', headers: as(alice) })).status, 405);
});

test('a session expires: its cookie stops working and its event stream ends', async () => {
  const short = await serveConsole({
    client: { bootstrapServers: broker.bootstrapFor('SASL_PLAINTEXT') },
    port: 0,
    saslLogin: { mechanisms: ['SCRAM-SHA-256'], sessionTimeoutMs: 1500 },
  });
  try {
    const alice = await login('alice', SCRAM.alice, undefined, short.url);
    assert.equal(alice.status, 200);
    assert.match(alice.setCookie ?? '', /Max-Age=1(;|$)/);
    assert.deepEqual(await topicsOf(alice, short.url), ['alice-audit', 'alice-orders']);
    const events = await fetch(`${short.url}api/events`, { headers: as(alice) });
    assert.equal(events.status, 200);
    const reader = events.body!.getReader();
    const deadline = Date.now() + scaled(30_000);
    for (;;) {
      if (Date.now() > deadline) throw new Error('timed out waiting for the event stream to end');
      if ((await reader.read()).done) break;
    }
    assert.equal((await fetch(`${short.url}api/topics`, { headers: as(alice) })).status, 401);
  } finally {
    await short.close();
  }
});

test('hostile logins and cookies: refused with a status, the console keeps serving', async () => {
  const raw = (body: string, headers: Record<string, string> = { 'content-type': 'application/json' }) =>
    fetch(`${server.url}api/login`, { method: 'POST', headers, body });
  assert.equal((await raw(JSON.stringify({ user: 'a'.repeat(10_000), password: 'x' }))).status, 413);
  assert.equal((await raw('x'.repeat(2_000_000))).status, 413);
  assert.equal((await raw('{"user": "alice", "password": ')).status, 400);
  assert.equal((await raw('[1,2]')).status, 400);
  assert.equal((await raw('null')).status, 400);
  assert.equal((await raw(JSON.stringify({ user: 42, password: 'x' }))).status, 400);
  assert.equal((await raw(JSON.stringify({ user: 'alice' }))).status, 400);
  assert.equal((await raw(JSON.stringify({ user: 'al\u0000ice', password: 'x' }))).status, 400);
  assert.equal(
    (await raw(JSON.stringify({ user: 'alice', password: 'x', mechanism: { a: 1 } }))).status,
    400,
  );
  assert.equal(
    (await raw('user=alice&password=x', { 'content-type': 'application/x-www-form-urlencoded' })).status,
    415,
  );
  for (const cookie of [
    'samsa_console_session=',
    'samsa_console_session=not-a-token',
    `samsa_console_session=${'A'.repeat(43)}`,
    `samsa_console_session=${'A'.repeat(5000)}`,
    ';;;=;samsa_console_session',
    `samsa_console_session=${'é'.repeat(43)}`,
    `a=b; ${'x'.repeat(7000)}=y`,
  ]) {
    const r = await fetch(`${server.url}api/topics`, { headers: { cookie } });
    assert.equal(r.status, 401, cookie.slice(0, 60));
  }
  // A flood of logins: a few are checked against the cluster at once, the rest refused (429).
  const flood = await Promise.all(Array.from({ length: 30 }, () => login('mallory', 'guess')));
  const statuses = flood.map((r) => r.status);
  assert.ok(
    statuses.every((st) => st === 401 || st === 429),
    statuses.join(','),
  );
  assert.ok(statuses.filter((st) => st === 429).length >= 1, statuses.join(','));
  // A header past Node's limit is refused by the HTTP parser itself.
  const huge = await fetch(`${server.url}api/topics`, { headers: { cookie: `x=${'y'.repeat(20_000)}` } });
  assert.equal(huge.status, 431);
  const alice = await login('alice', SCRAM.alice);
  assert.equal(alice.status, 200);
  assert.deepEqual(await topicsOf(alice), ['alice-audit', 'alice-orders']);
});

test('the login page: a wrong password is said so, the right one shows what the user may see, logout', async () => {
  const context = await browser.newContext({ timezoneId: 'UTC', viewport: { width: 1280, height: 900 } });
  const { page, errors } = await openPage(context);
  await page.goto(`${server.url}#/topics`);
  const form = page.getByRole('form', { name: 'Log in' });
  await form.waitFor();
  assert.equal(await page.getByRole('navigation', { name: 'Sections' }).count(), 0);
  assert.deepEqual(await form.getByLabel('Mechanism').locator('option').allInnerTexts(), [
    'SCRAM-SHA-256',
    'SCRAM-SHA-512',
    'PLAIN',
  ]);
  await screenshot(page, 'login');
  await form.getByLabel('User name').fill('alice');
  await form.getByLabel('Password').fill('not-her-password');
  await form.getByRole('button', { name: 'Log in' }).click();
  await page.getByRole('alert').filter({ hasText: 'wrong user name or password' }).waitFor();
  assert.equal(await form.getByLabel('Password').inputValue(), '', 'the wrong password is cleared');

  await form.getByLabel('Password').fill(SCRAM.alice);
  await form.getByRole('button', { name: 'Log in' }).click();
  await page.getByRole('link', { name: 'alice-orders' }).waitFor();
  assert.match(await page.locator('header').innerText(), /alice/);
  assert.equal(await page.getByRole('link', { name: 'secret-payroll' }).count(), 0);
  assert.match(await page.getByTestId('topic-count').innerText(), /of 2 topics/);
  // The session cookie is HttpOnly: the page's scripts cannot read it.
  assert.equal(await page.evaluate('document.cookie'), '');
  const [cookie] = await context.cookies();
  assert.deepEqual(
    [cookie?.name, cookie?.httpOnly, cookie?.sameSite],
    ['samsa_console_session', true, 'Strict'],
  );
  // A write the ACLs refuse shows the cluster's answer.
  page.on('dialog', (d) => void d.accept());
  await page.getByText('Create a topic').click();
  const create = page.getByRole('form', { name: 'Create a topic' });
  await create.getByLabel('Name').fill('alice-made');
  await create.getByRole('button', { name: 'Create topic' }).click();
  await page
    .getByRole('status')
    .filter({ hasText: /AUTHORIZATION_FAILED/ })
    .waitFor();

  await page.getByRole('button', { name: 'Log out' }).click();
  await page.getByText('Logged out.').waitFor();
  assert.deepEqual(await context.cookies(), []);
  await page.goto(`${server.url}#/groups`);
  await form.waitFor();
  // The browser logs each refused request (the wrong password, the ACL's refusal) as an error.
  assert.deepEqual(
    errors.filter((e) => !/the server responded with a status of 40[13]/.test(e)),
    [],
  );
  await context.close();
});
