// biome-ignore-all lint/performance/useDomNodeTextContent: playwright's Locator.innerText (rendered text, cells apart), not the DOM property
// Throughput sampled by the console from what any Kafka cluster answers (ListOffsets,
// DescribeLogDirs, committed offsets), against one in-process broker: zero before anything is
// produced; after producing, the rates are > 0 and the records they account for are exactly
// those produced (a window longer than the test keeps every increment); a group that consumes
// and commits shows as messages out; the topics list gives each topic its own rate. The console
// samples at the idle rate without a page, at the watching rate once the event stream is open.
// The overview page shows the rates in Chromium.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import type { Browser } from 'playwright-core';
import { Admin, Consumer, Producer } from '../../src/client/index.js';
import { type ConsoleServer, serveConsole } from '../../src/console/index.js';
import type { Throughput } from '../../src/console/throughput.js';
import { startTestBroker, type TestBroker } from '../../src/testkit/index.js';
import { scaled } from '../support/timeouts.js';
import { launchBrowser, openPage, screenshot } from './support.js';

const BUSY = 'tp-busy';
const IDLE = 'tp-idle';
const VALUE = Buffer.alloc(100, 'v');
let broker: TestBroker;
let admin: Admin;
let server: ConsoleServer;
let browser: Browser;

before(async () => {
  browser = await launchBrowser();
  broker = await startTestBroker({
    overrides: { 'offsets.topic.num.partitions': 1, 'group.initial.rebalance.delay.ms': 0 },
  });
  admin = new Admin({ bootstrapServers: broker.bootstrap });
  await admin.createTopics([
    { name: BUSY, numPartitions: 2, replicationFactor: 1 },
    { name: IDLE, numPartitions: 1, replicationFactor: 1 },
  ]);
  // Samples every 300 ms with or without a page; a 10-minute window keeps every increment.
  server = await serveConsole({
    client: { bootstrapServers: broker.bootstrap },
    port: 0,
    refreshMs: 300,
    idleRefreshMs: 300,
    throughputWindowMs: 600_000,
  });
});

after(async () => {
  await browser?.close();
  await server?.close();
  await admin?.close();
  await broker?.close();
});

async function until<T>(what: string, fn: () => Promise<T | undefined | false>, ms = 60_000): Promise<T> {
  const deadline = Date.now() + scaled(ms);
  let last: unknown;
  for (;;) {
    const v = await fn().catch((e) => {
      last = e;
      return undefined;
    });
    if (v !== undefined && v !== false) return v;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what} (last error: ${String(last)})`);
    await new Promise((r) => setTimeout(r, 150));
  }
}

const cluster = async (url = server.url) =>
  (await (await fetch(`${url}api/cluster`)).json()) as { throughput: Throughput | null };

/** What the rates account for: rate × the seconds they average over. */
const total = (rate: number | null, t: Throughput) => (rate ?? Number.NaN) * ((t.to - t.from) / 1000);

async function produce(n: number) {
  const p = new Producer({ bootstrapServers: broker.bootstrap, lingerMs: 5 });
  try {
    await Promise.all(
      Array.from({ length: n }, (_, i) => p.send({ topic: BUSY, key: `k${i}`, value: VALUE })),
    );
  } finally {
    await p.close();
  }
}

const leaderBytes = async (topic: string) =>
  (await admin.describeLogDirs())
    .flatMap((d) => d.replicas)
    .filter((r) => r.topic === topic)
    .reduce((s, r) => s + Number(r.sizeBytes), 0);

test('rates are zero at rest, then account for exactly the records produced', async () => {
  const quiet = await until(
    'two samples of an idle cluster',
    async () => (await cluster()).throughput ?? undefined,
  );
  assert.equal(quiet.messagesInPerSec, 0);
  assert.equal(quiet.bytesInPerSec, 0);
  assert.equal(quiet.messagesOutPerSec, 0);

  await produce(1500);
  // Bytes in is the leaders' log growth, taken apart from the record count: under load (12 CPU
  // burners) one sample counted all 1,500 records with 0 bytes in. Wait for both.
  const t1 = await until('the first 1,500 records and their bytes in the rates', async () => {
    const t = (await cluster()).throughput;
    return t &&
      Math.round(total(t.messagesInPerSec, t)) === 1500 &&
      total(t.bytesInPerSec, t) >= 1500 * VALUE.length
      ? t
      : undefined;
  });
  assert.ok(t1.messagesInPerSec > 0);
  // Bytes in: the leaders' log growth — at least the values, at most what the logs hold now.
  const bytes1 = total(t1.bytesInPerSec, t1);
  assert.ok(bytes1 >= 1500 * VALUE.length, `${bytes1} bytes in for 1,500 records of ${VALUE.length} B`);
  assert.ok(bytes1 <= (await leaderBytes(BUSY)), `${bytes1} bytes in, more than the log holds`);

  // The rates move with the next records.
  await produce(500);
  // Both again: a sample can count the new records before their bytes (seen on a quiet machine too).
  const t2 = await until('2,000 records and more bytes in the rates', async () => {
    const t = (await cluster()).throughput;
    return t && Math.round(total(t.messagesInPerSec, t)) === 2000 && total(t.bytesInPerSec, t) > bytes1
      ? t
      : undefined;
  });
  assert.ok(total(t2.bytesInPerSec, t2) <= (await leaderBytes(BUSY)), 'no more bytes in than the log holds');
  assert.equal(t2.messagesOutPerSec, 0, 'nothing consumed yet');

  // The topics list: the busy topic's own rate accounts for its records; the idle one has none.
  const list = (await (await fetch(`${server.url}api/topics?q=tp-`)).json()) as {
    rows: { name: string; messages: number; messagesPerSec: number | null }[];
    throughput: Throughput;
  };
  const busy = list.rows.find((r) => r.name === BUSY)!;
  const idle = list.rows.find((r) => r.name === IDLE)!;
  assert.equal(busy.messages, 2000);
  assert.equal(Math.round(total(busy.messagesPerSec, list.throughput)), 2000);
  assert.equal(idle.messagesPerSec, 0);
});

test('a group that consumes and commits is messages out; bytes out ≈ its share of the log', async () => {
  // A group's first committed offsets are its baseline (when it read the records before them, no
  // API says): the group starts at offset 0, and the console must see that before it reads.
  const group = 'tp-readers';
  // What the topic holds now, not what the test before meant to produce: a failure there must
  // not fail this test too.
  const ends = await admin.listOffsets(
    [0, 1].map((partition) => ({ topic: BUSY, partition, spec: 'latest' as const })),
  );
  const records = ends.reduce((s, e) => s + Number(e.offset), 0);
  assert.ok(records > 0, 'the test before produced records');
  await admin.alterConsumerGroupOffsets(group, [
    { topic: BUSY, partition: 0, offset: 0n },
    { topic: BUSY, partition: 1, offset: 0n },
  ]);
  const seenAt = await until('the group at offset 0 in a sample', async () => {
    const groups = (await (await fetch(`${server.url}api/groups`)).json()) as {
      groupId: string;
      lag: number;
    }[];
    return groups.some((g) => g.groupId === group && g.lag === records) ? Date.now() : undefined;
  });
  // One more sample after the API's answer, so that the sampler holds the baseline too.
  await until('a sample after the group appeared', async () => {
    const t = (await cluster()).throughput;
    return t !== null && t.to > seenAt;
  });
  const c = new Consumer({
    bootstrapServers: broker.bootstrap,
    groupId: group,
    autoOffsetReset: 'earliest',
    enableAutoCommit: false,
  });
  try {
    c.subscribe([BUSY]);
    let read = 0;
    const deadline = Date.now() + scaled(60_000);
    while (read < records) {
      if (Date.now() > deadline) throw new Error(`timed out consuming (${read} of ${records} read)`);
      read += (await c.poll(500)).length;
    }
    await c.commitSync();
  } finally {
    await c.close();
  }
  const t = await until(`${records} committed records in the rates`, async () => {
    const x = (await cluster()).throughput;
    return x && Math.round(total(x.messagesOutPerSec, x)) === records ? x : undefined;
  });
  // Every record read once: the estimate is the whole log (mean record size × count).
  const out = total(t.bytesOutPerSec, t);
  const log = await leaderBytes(BUSY);
  assert.ok(Math.abs(out - log) <= log * 0.01, `bytes out ≈ ${out}, the log holds ${log}`);
});

test('without a page the console samples at the idle rate; an open event stream brings samples', async () => {
  const lazy = await serveConsole({
    client: { bootstrapServers: broker.bootstrap },
    port: 0,
    refreshMs: 300,
    idleRefreshMs: 0,
  });
  try {
    // Idle rate 0: after its first sample (the first request), no more without a watcher.
    assert.equal((await cluster(lazy.url)).throughput, null);
    await new Promise((r) => setTimeout(r, 1000));
    assert.equal((await cluster(lazy.url)).throughput, null, 'no second sample without a page');
    const ac = new AbortController();
    const res = await fetch(`${lazy.url}api/events`, { signal: ac.signal });
    assert.equal(res.status, 200);
    const reader = res.body!.getReader();
    let text = '';
    const deadline = Date.now() + scaled(30_000);
    // Samples arrive while watching; the third on carries a throughput (two samples apart).
    while (!/"throughput":\{"from"/.test(text)) {
      if (Date.now() > deadline) throw new Error(`timed out waiting for a throughput event:\n${text}`);
      const { value, done } = await reader.read();
      if (done) throw new Error('the event stream ended');
      text += Buffer.from(value).toString();
    }
    assert.match(text, /event: cluster\ndata: /);
    ac.abort();
  } finally {
    await lazy.close();
  }
});

test('the overview shows the rates in the browser', async () => {
  const context = await browser.newContext({ timezoneId: 'UTC', viewport: { width: 1280, height: 900 } });
  const { page, errors } = await openPage(context);
  await page.goto(`${server.url}#/`);
  const rateIn = page.getByTestId('throughput-messages-in');
  await rateIn.filter({ hasText: /^[\d,.]+\/s$/ }).waitFor();
  const n = Number((await rateIn.innerText()).replace(/[,/s]/g, ''));
  assert.ok(n > 0, `messages in shows ${n}`);
  assert.match(await page.getByTestId('throughput-bytes-in').innerText(), /B\/s$/);
  assert.match(await page.getByTestId('throughput-messages-out').innerText(), /\/s$/);
  await page.goto(`${server.url}#/topics`);
  await page
    .getByTestId(`rate-${BUSY}`)
    .filter({ hasText: /^[\d,.]+\/s$/ })
    .waitFor();
  assert.equal(await page.getByTestId(`rate-${IDLE}`).innerText(), '0/s');
  await page.goto(`${server.url}#/`);
  await rateIn.waitFor();
  await screenshot(page, 'overview');
  assert.deepEqual(errors, []);
  await context.close();
});
