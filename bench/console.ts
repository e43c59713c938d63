// The web console at scale (issue 18), against one broker in its own process (`samsa start`), the
// console served by this process as `samsa console` serves it, Debian's Chromium through
// playwright-core:
//
// 1. Topics page, time to first render: from navigation start to the table's last row present
//    (in-page performance.now(), polled every animation frame; the server sends a page of 100
//    rows, searched, sorted and counted over all topics: so, its 100th row and the count of all),
//    with --topics topics (default 10,000; created by CreateTopics calls of 500), against the
//    same page with --base-topics (100) measured in the same run first. The page is measured with
//    the console's cache cold (its TTL passed: Metadata, DescribeLogDirs and the page's offsets
//    asked anew) and warm; GET /api/topics (the page's first request) is timed apart, cold
//    (`fresh=1`) and warm.
//    --baseline-src DIR serves a second console from another checkout's `src/` (DIR holds src/
//    and a node_modules; e.g. `git archive HEAD src package.json | tar -x -C DIR`) and measures
//    it interleaved with this one, load by load: before/after in the same run.
// 2. One live sample at 10,000 partitions (what the console does every refresh while a page is
//    open: Metadata, DescribeCluster, ListOffsets and DescribeLogDirs per broker, the groups):
//    wall time and this process's CPU time, median of --samples.
// 3. Message browser seek latency on one large partition (--records, default 10,000,000 records
//    of 16 B made by our producer at 1 MiB batches, within --produce-budget-s; fewer if the budget
//    runs out, and the table says so; 0 skips this part): GET /api/topics/T/messages by offset
//    and by timestamp at random places, 50 records each, against the same seeks on a
//    10,000-record partition. The seek finds its place with the offset index (Fetch) or the time
//    index (ListOffsets), so the ratio is ~1 and `scanned` equals the records shown: nothing is
//    read before the place.
//
//   npx tsx bench/console.ts [--topics N] [--base-topics N] [--records N] [--produce-budget-s S]
//                            [--seeks N] [--renders N] [--samples N] [--baseline-src DIR]
import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import { chromium } from 'playwright-core';
import { Admin, Producer } from '../src/client/index.js';
import { type ConsoleServer, serveConsole } from '../src/console/index.js';
import { CACHE_TTL_MS, viewerSettings } from '../src/console/server.js';
import { Viewer } from '../src/console/viewer.js';
import { benchDir, table } from './storage-util.js';

const { values } = parseArgs({
  options: {
    topics: { type: 'string', default: '10000' },
    'base-topics': { type: 'string', default: '100' },
    records: { type: 'string', default: '10000000' },
    'produce-budget-s': { type: 'string', default: '150' },
    seeks: { type: 'string', default: '20' },
    renders: { type: 'string', default: '5' },
    samples: { type: 'string', default: '5' },
    'baseline-src': { type: 'string' },
  },
});
const TOPICS = Number(values.topics);
const BASE_TOPICS = Number(values['base-topics']);
const RECORDS = Number(values.records);
const BUDGET_MS = Number(values['produce-budget-s']) * 1000;
const SEEKS = Number(values.seeks);
const RENDERS = Number(values.renders);
const SAMPLES = Number(values.samples);
const CHROMIUM = process.env.SAMSA_CHROMIUM ?? '/usr/bin/chromium';
const MAIN = fileURLToPath(new URL('../src/cli/main.ts', import.meta.url));

async function startBroker(dataDir: string): Promise<{ child: ChildProcess; bootstrap: string }> {
  const child = spawn(
    process.execPath,
    [
      '--import',
      'tsx',
      MAIN,
      'start',
      '--port',
      '0',
      '--data-dir',
      dataDir,
      '--log-level',
      'warn',
      '--override',
      'num.partitions=1',
      '--override',
      'log.segment.bytes=268435456',
    ],
    { stdio: ['ignore', 'pipe', 'pipe'] },
  );
  let out = '';
  child.stdout!.on('data', (d: Buffer) => {
    out += d.toString();
  });
  child.stderr!.on('data', (d: Buffer) => {
    out += d.toString();
  });
  const deadline = Date.now() + 180_000;
  for (;;) {
    const m = /listening on (\S+):(\d+)/.exec(out);
    if (m) return { child, bootstrap: `${m[1]}:${m[2]}` };
    if (child.exitCode !== null || Date.now() > deadline) throw new Error(`broker did not start:\n${out}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** --records 0: the seek part is left out. */
class SkipSeeks extends Error {}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const pct = (xs: number[], p: number) =>
  [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(xs.length * p))]!;
const ms = (x: number) => x.toFixed(x < 10 ? 1 : 0);

async function createTopics(admin: Admin, from: number, to: number): Promise<number> {
  const t0 = performance.now();
  for (let i = from; i < to; i += 500) {
    const names = Array.from(
      { length: Math.min(500, to - i) },
      (_, k) => `topic-${String(i + k).padStart(5, '0')}`,
    );
    await admin.createTopics(
      names.map((name) => ({ name, numPartitions: 1, replicationFactor: 1 })),
      { timeoutMs: 120_000 },
    );
  }
  return performance.now() - t0;
}

async function produce(bootstrap: string, topic: string, n: number, t0: number, budgetMs: number) {
  const producer = new Producer({
    bootstrapServers: bootstrap,
    acks: 1,
    lingerMs: 20,
    batchSize: 1024 * 1024,
    bufferMemory: 64 * 1024 * 1024,
  });
  const value = Buffer.alloc(16, 65);
  let failed: Error | null = null;
  const onDelivery = (err: Error | null) => {
    if (err !== null) failed ??= err;
  };
  const start = performance.now();
  let sent = 0;
  for (; sent < n; sent++) {
    // Record i is stamped t0 + i ms: a timestamp names exactly one offset.
    if (!producer.send({ topic, partition: 0, value, timestamp: t0 + sent }, onDelivery))
      await producer.bufferAvailable();
    else if ((sent & 1023) === 1023) {
      await new Promise((r) => setImmediate(r));
      if (performance.now() - start > budgetMs) {
        sent++;
        break;
      }
    }
  }
  await producer.flush();
  const seconds = (performance.now() - start) / 1000;
  await producer.close();
  if (failed !== null) throw failed;
  return { sent, seconds };
}

async function seekLatencies(url: string, topic: string, n: number, t0: number, count: number) {
  const byOffset: number[] = [];
  const byTime: number[] = [];
  let scannedMax = 0;
  const get = async (q: string) => {
    const s = performance.now();
    const r = await fetch(`${url}api/topics/${topic}/messages?partition=0&limit=50&${q}`);
    const body = (await r.json()) as { records: { offset: number; timestamp: number }[]; scanned: number };
    if (r.status !== 200) throw new Error(JSON.stringify(body));
    scannedMax = Math.max(scannedMax, body.scanned);
    return { took: performance.now() - s, body };
  };
  for (let i = 0; i < count; i++) {
    const at = Math.floor(Math.random() * (n - 50));
    const o = await get(`mode=offset&offset=${at}`);
    if (o.body.records[0]?.offset !== at)
      throw new Error(`offset seek to ${at} began at ${o.body.records[0]?.offset}`);
    byOffset.push(o.took);
    const t = await get(`mode=timestamp&timestamp=${t0 + at}`);
    if (t.body.records[0]?.offset !== at)
      throw new Error(`time seek to ${at} began at ${t.body.records[0]?.offset}`);
    byTime.push(t.took);
  }
  return { byOffset, byTime, scannedMax };
}

const { dir, cleanup } = benchDir('console');
const { child, bootstrap } = await startBroker(join(dir, 'broker'));
const admin = new Admin({ bootstrapServers: bootstrap, requestTimeoutMs: 120_000 });
// No sampling but the first (and the one a page's event stream asks for): the pages are measured
// without a sample running beside them.
const quiet = { client: { bootstrapServers: bootstrap }, port: 0, refreshMs: 600_000, idleRefreshMs: 0 };
const server = await serveConsole(quiet);
let before: ConsoleServer | null = null;
if (values['baseline-src'] !== undefined) {
  const mod = (await import(
    pathToFileURL(join(values['baseline-src'], 'src/console/index.ts')).href
  )) as typeof import('../src/console/index.js');
  before = await mod.serveConsole(quiet);
}
if (!existsSync(CHROMIUM)) throw new Error(`Chromium not found at ${CHROMIUM}`);
const browser = await chromium.launch({ executablePath: CHROMIUM });
try {
  // 1. Topics page.
  // bypassCSP: playwright evaluates the waiting predicate with eval, which the console's CSP forbids.
  const page = await (
    await browser.newContext({ viewport: { width: 1280, height: 900 }, bypassCSP: true })
  ).newPage();
  page.setDefaultTimeout(120_000);
  const timed = async (url: string) => {
    const s = performance.now();
    const r = await fetch(url);
    const body = (await r.json()) as unknown[] | { total: number };
    if (r.status !== 200) throw new Error(`${url}: ${JSON.stringify(body)}`);
    return { ms: performance.now() - s, total: Array.isArray(body) ? body.length : body.total };
  };
  const firstRender = async (url: string, count: number) => {
    await page.goto('about:blank');
    await page.goto(`${url}#/topics`);
    // The page shows 100 rows at a time, sorted and counted over every topic: done when the
    // first page's last row and the count of all topics are on screen.
    const lastRow = Math.min(100, count);
    const total = count.toLocaleString('en-US');
    await page.waitForFunction(
      `document.querySelectorAll('main table tbody tr').length >= ${lastRow} &&
       document.querySelector('[data-testid="topic-count"]')?.textContent.includes('of ${total} topics')`,
      undefined,
      { polling: 'raf', timeout: 120_000 },
    );
    return (await page.evaluate(() => performance.now())) as number;
  };
  interface Loads {
    apiCold: number[];
    apiWarm: number[];
    pageCold: number[];
    pageWarm: number[];
    beforeApi: number[];
    beforePage: number[];
  }
  const render = async (count: number): Promise<Loads> => {
    const l: Loads = { apiCold: [], apiWarm: [], pageCold: [], pageWarm: [], beforeApi: [], beforePage: [] };
    for (let i = 0; i < RENDERS; i++) {
      if (before !== null) {
        const b = await timed(`${before.url}api/topics`);
        if (b.total < count) throw new Error(`${b.total} topics listed, ${count} expected`);
        l.beforeApi.push(b.ms);
        l.beforePage.push(await firstRender(before.url, count));
      }
      // Cold: the cache's TTL has passed since this console last read the cluster.
      await new Promise((r) => setTimeout(r, CACHE_TTL_MS + 500));
      l.pageCold.push(await firstRender(server.url, count));
      const cold = await timed(`${server.url}api/topics?fresh=1`);
      if (cold.total < count) throw new Error(`${cold.total} topics listed, ${count} expected`);
      l.apiCold.push(cold.ms);
      l.apiWarm.push((await timed(`${server.url}api/topics`)).ms);
      l.pageWarm.push(await firstRender(server.url, count));
    }
    return l;
  };
  const spread = (xs: number[]) =>
    xs.length === 0 ? '–' : `${ms(median(xs))} ms (${ms(Math.min(...xs))}–${ms(Math.max(...xs))})`;
  const baseCreate = await createTopics(admin, 0, BASE_TOPICS);
  const base = await render(BASE_TOPICS);
  const bigCreate = await createTopics(admin, BASE_TOPICS, TOPICS);
  const big = await render(TOPICS);
  console.log(
    `\nTopics page, time to first render (navigation start → last row present), ${RENDERS} loads each, median (min–max):\n`,
  );
  const rows: (string | number)[][] = [];
  for (const [n, created, l] of [
    [BASE_TOPICS, `${(baseCreate / 1000).toFixed(1)} s`, base],
    [TOPICS, `${(bigCreate / 1000).toFixed(1)} s (+${TOPICS - BASE_TOPICS})`, big],
  ] as const) {
    if (before !== null)
      rows.push([n, created, 'before (--baseline-src)', spread(l.beforeApi), '–', spread(l.beforePage), '–']);
    rows.push([
      n,
      created,
      'this checkout',
      spread(l.apiCold),
      spread(l.apiWarm),
      spread(l.pageCold),
      spread(l.pageWarm),
    ]);
  }
  console.log(
    table(
      [
        'topics',
        'created in',
        'console',
        'GET /api/topics, cold',
        'warm',
        'first render, cold cache',
        'warm cache',
      ],
      rows,
    ),
  );
  const ratio = (a: number[], b: number[]) =>
    a.length && b.length ? `${(median(a) / median(b)).toFixed(2)}×` : '–';
  console.log(
    `\nratio ${TOPICS} / ${BASE_TOPICS} topics, first render with a cold cache: ${ratio(big.pageCold, base.pageCold)}` +
      (before !== null
        ? `; this checkout / before at ${TOPICS} topics: API ${ratio(big.apiCold, big.beforeApi)}, first render ${ratio(big.pageCold, big.beforePage)}`
        : ''),
  );

  // 2. One live sample at this many partitions.
  const viewer = new Viewer(
    { bootstrapServers: bootstrap },
    viewerSettings({ client: { bootstrapServers: bootstrap } }),
    null,
  );
  const wall: number[] = [];
  const cpu: number[] = [];
  for (let i = 0; i < SAMPLES + 1; i++) {
    const c0 = process.cpuUsage();
    const s = performance.now();
    await viewer.live.sample();
    const took = performance.now() - s;
    const c = process.cpuUsage(c0);
    if (i > 0) {
      // the first sample also connects and learns the metadata of every topic
      wall.push(took);
      cpu.push((c.user + c.system) / 1000);
    }
  }
  await viewer.close();
  console.log(
    `\nOne live sample at ${TOPICS} partitions (Metadata, DescribeCluster, ListOffsets and DescribeLogDirs per broker, groups), ${SAMPLES} samples: wall ${spread(wall)}, console CPU ${spread(cpu)}`,
  );
  if (RECORDS === 0) throw new SkipSeeks();

  // 2. Message browser seeks.
  const t0 = Date.now() - RECORDS - 3_600_000;
  for (const name of ['small', 'big'])
    await admin.createTopics([
      { name, numPartitions: 1, replicationFactor: 1, configs: { 'retention.ms': '-1' } },
    ]);
  const small = await produce(bootstrap, 'small', 10_000, t0, BUDGET_MS);
  const large = await produce(bootstrap, 'big', RECORDS, t0, BUDGET_MS);
  const s = await seekLatencies(server.url, 'small', small.sent, t0, SEEKS);
  const b = await seekLatencies(server.url, 'big', large.sent, t0, SEEKS);
  console.log(
    `\nMessage browser seeks (GET /api/topics/T/messages, 50 records, ${SEEKS} random places each), median / p90:\n`,
  );
  const note = large.sent < RECORDS ? ` (budget of ${BUDGET_MS / 1000} s reached; ${RECORDS} asked)` : '';
  console.log(
    table(
      ['partition', 'made in', 'by offset', 'by timestamp', 'records read per seek (max)'],
      [
        [
          `${small.sent.toLocaleString('en-US')} records`,
          `${small.seconds.toFixed(1)} s`,
          `${ms(median(s.byOffset))} / ${ms(pct(s.byOffset, 0.9))} ms`,
          `${ms(median(s.byTime))} / ${ms(pct(s.byTime, 0.9))} ms`,
          s.scannedMax,
        ],
        [
          `${large.sent.toLocaleString('en-US')} records${note}`,
          `${large.seconds.toFixed(1)} s (${Math.round(large.sent / large.seconds).toLocaleString('en-US')}/s)`,
          `${ms(median(b.byOffset))} / ${ms(pct(b.byOffset, 0.9))} ms`,
          `${ms(median(b.byTime))} / ${ms(pct(b.byTime, 0.9))} ms`,
          b.scannedMax,
        ],
      ],
    ),
  );
  console.log(
    `\nratio large/small: by offset ${(median(b.byOffset) / median(s.byOffset)).toFixed(2)}×, by timestamp ${(median(b.byTime) / median(s.byTime)).toFixed(2)}×`,
  );
} catch (e) {
  if (!(e instanceof SkipSeeks)) throw e;
} finally {
  await browser.close();
  await server.close();
  await before?.close();
  await admin.close();
  child.kill('SIGTERM');
  await new Promise((r) => child.once('exit', r));
  cleanup();
}
