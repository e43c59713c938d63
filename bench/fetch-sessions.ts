// Broker CPU per Fetch with 1,000 partitions: sessionless full fetches vs an incremental fetch
// session (KIP-227), measured in the same run on the same broker.
//
//   npx tsx bench/fetch-sessions.ts [fetches per case, default 2000] [--base DIR/src]
//
// The broker runs in a child process (this file with --broker) so that its CPU time — read from
// /proc/<pid>/stat, user + system — excludes the client's. The client asks for one topic of
// 1,000 partitions, 10 of which hold a backlog of small batches, with a partition byte limit of
// about one batch: every Fetch returns one batch from each of those 10 partitions (whose fetch
// offsets then move) and nothing from the other 990 — the steady state of a consumer of many
// mostly idle partitions. Sessionless, every request names all 1,000 partitions and every answer
// lists all 1,000; in a session the request names the 10 that moved and the answer the 10 with
// records. Three cases: caught up (no backlog: nothing moves), backlog sessionless, backlog
// incremental; each fetch waits for its answer (MaxWaitMs 0).

import { type ChildProcess, spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createInterface } from 'node:readline';
import { pathToFileURL } from 'node:url';
import { FetchSessionHandler, type SessionPartition } from '../src/net/fetch-session-handler.js';
import { BrokerLink } from '../src/net/index.js';
import { createTopicsApi } from '../src/protocol/messages/generated/create-topics.js';
import { type FetchResponse, fetchApi } from '../src/protocol/messages/generated/fetch.js';
import { metadataApi } from '../src/protocol/messages/generated/metadata.js';
import { produceApi } from '../src/protocol/messages/generated/produce.js';
import { encodeRecordBatchSync } from '../src/protocol/record-batch/index.js';
import { fetchRequest } from '../test/broker/support/wire.js';

const PARTITIONS = 1000;
const BUSY = 10;
const ZERO = 'AAAAAAAAAAAAAAAAAAAAAA';

const argValue = (name: string): string | undefined => {
  const i = process.argv.indexOf(name);
  return i >= 0 ? process.argv[i + 1] : undefined;
};

if (process.argv.includes('--broker')) {
  const src = argValue('--broker') ?? new URL('../src', import.meta.url).pathname;
  const { startTestBroker } = (await import(
    pathToFileURL(`${src}/testkit/index.ts`).href
  )) as typeof import('../src/testkit/index.js');
  const broker = await startTestBroker();
  process.stdout.write(`${broker.port}\n`);
  process.stdin.on('end', () => void broker.close().then(() => process.exit(0)));
  process.stdin.resume();
} else {
  const base = argValue('--base');
  const first = process.argv[2];
  await main(first !== undefined && !first.startsWith('--') ? Number(first) : 2000, [
    { name: 'current', src: new URL('../src', import.meta.url).pathname },
    ...(base !== undefined ? [{ name: 'base', src: base }] : []),
  ]);
}

/** utime + stime of a process, in ms (Linux /proc; clock ticks of 10 ms). */
function cpuMs(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
  return ((Number(fields[11]) + Number(fields[12])) * 1000) / 100;
}

interface Broker {
  readonly name: string;
  readonly child: ChildProcess;
  readonly link: BrokerLink;
  readonly topicId: string;
}

async function startBroker(name: string, src: string): Promise<Broker> {
  // FETCH_BENCH_PROFILE=dir writes the broker's CPU profile there (bench/cpuprofile-summary.ts reads it).
  const profile = process.env.FETCH_BENCH_PROFILE
    ? ['--cpu-prof', '--cpu-prof-dir', `${process.env.FETCH_BENCH_PROFILE}/${name}`]
    : [];
  const child = spawn(
    process.execPath,
    [...profile, '--import', 'tsx', import.meta.filename, '--broker', src],
    { stdio: ['pipe', 'pipe', 'inherit'] },
  );
  const port = Number(
    await new Promise<string>((resolve) => createInterface({ input: child.stdout! }).once('line', resolve)),
  );
  const link = new BrokerLink(1, '127.0.0.1', port, { clientId: 'bench-fetch-sessions' });
  await link.request(createTopicsApi, {
    topics: [{ name: 'many', numPartitions: PARTITIONS, replicationFactor: 1, assignments: [], configs: [] }],
    timeoutMs: 60_000,
    validateOnly: false,
  });
  const md = await link.request(metadataApi, {
    topics: [{ topicId: ZERO, name: 'many' }],
    allowAutoTopicCreation: false,
    includeClusterAuthorizedOperations: false,
    includeTopicAuthorizedOperations: false,
  });
  return { name, child, link, topicId: md.topics[0]!.topicId };
}

/**
 * `srcs`: the sources each broker runs (`--base DIR/src` adds a broker built from another copy,
 * e.g. a `git worktree` of HEAD): every case runs on each broker in turn, so ratios between them
 * hold on a loaded machine.
 */
async function main(fetches: number, srcs: readonly { name: string; src: string }[]): Promise<void> {
  const brokers: Broker[] = [];
  try {
    for (const s of srcs) brokers.push(await startBroker(s.name, s.src));
    const one = encodeRecordBatchSync([{ value: Buffer.alloc(60, 1), timestamp: BigInt(Date.now()) }]);
    const batchBytes = one.length;
    const table: Result[][] = [];
    const each = async (f: (b: Broker) => Promise<Result>) => {
      const row: Result[] = [];
      for (const b of brokers) row.push(await f(b));
      return row;
    };

    const idle = await each((b) => run(b, fetches, true, batchBytes, 'caught up, incremental'));
    const idleFull = await each((b) => run(b, fetches, false, batchBytes, 'caught up, sessionless'));
    // The backlog: `fetches` single-record batches in each busy partition, per case.
    const produceBacklog = async (l: BrokerLink) => {
      for (let i = 0; i < fetches; i++)
        await l.request(produceApi, {
          transactionalId: null,
          acks: 1,
          timeoutMs: 30_000,
          topicData: [
            {
              name: 'many',
              partitionData: Array.from({ length: BUSY }, (_, p) => ({
                index: p,
                records: encodeRecordBatchSync([
                  { value: Buffer.alloc(60, 1), timestamp: BigInt(Date.now()) },
                ]),
              })),
            },
          ],
        });
    };
    for (const b of brokers) await produceBacklog(b.link);
    const fullMoving = await each((b) =>
      run(b, fetches, false, batchBytes, 'backlog in 10, sessionless', 0n),
    );
    const incMoving = await each((b) => run(b, fetches, true, batchBytes, 'backlog in 10, incremental', 0n));
    table.push(idleFull, idle, fullMoving, incMoving);

    const per = (r: Result) => (r.cpuMs * 1000) / r.fetches;
    console.log(
      `\n| case | ${brokers.map((b) => `${b.name}: broker CPU per Fetch`).join(' | ')} | answer partitions per Fetch | ratio |`,
    );
    console.log(`| --- | ${brokers.map(() => '---').join(' | ')} | --- | --- |`);
    for (const [a, b] of [
      [idleFull, idle],
      [fullMoving, incMoving],
    ] as const) {
      const cells = (r: Result[]) => r.map((x) => `${per(x).toFixed(0)} µs`).join(' | ');
      console.log(`| ${a[0]!.label} | ${cells(a)} | ${a[0]!.answered.toFixed(0)} | 1 |`);
      console.log(
        `| ${b[0]!.label} | ${cells(b)} | ${b[0]!.answered.toFixed(1)} | ×${(per(a[0]!) / per(b[0]!)).toFixed(1)} less CPU |`,
      );
    }
    if (brokers.length > 1) {
      console.log(`\n| case | ${brokers[0]!.name} / ${brokers[1]!.name} CPU per Fetch |`);
      console.log('| --- | --- |');
      for (const row of table)
        console.log(`| ${row[0]!.label} | ${(per(row[0]!) / per(row[1]!)).toFixed(2)} |`);
    }
  } finally {
    for (const b of brokers) {
      b.link.close();
      const exited = new Promise((r) => b.child.once('exit', r));
      b.child.stdin!.end();
      await exited;
    }
  }

  interface Result {
    label: string;
    fetches: number;
    cpuMs: number;
    answered: number;
  }

  async function run(
    b: Broker,
    n: number,
    sessions: boolean,
    batchBytes: number,
    label: string,
    startOffset?: bigint,
  ): Promise<Result> {
    const { link: l, topicId, child } = b;
    const handler = new FetchSessionHandler({ enabled: sessions });
    const offsets = new Array<bigint>(PARTITIONS).fill(0n);
    if (startOffset === undefined) {
      // Caught up: start at the log end of every partition.
      const r = await fetchOnce(l, new FetchSessionHandler({ enabled: false }), topicId, offsets, batchBytes);
      for (const t of r.responses) for (const p of t.partitions) offsets[p.partitionIndex] = p.highWatermark;
    }
    const warm = Math.min(200, n / 10);
    let answered = 0;
    let before = 0;
    for (let i = 0; i < n + warm; i++) {
      if (i === warm) {
        before = cpuMs(child.pid!);
        answered = 0;
      }
      const r = await fetchOnce(l, handler, topicId, offsets, batchBytes);
      for (const t of r.responses)
        for (const p of t.partitions) {
          answered++;
          if (p.records !== null && p.records.length > 0) offsets[p.partitionIndex] = nextOffset(p.records);
        }
    }
    const cpu = cpuMs(child.pid!) - before;
    console.log(`${b.name} ${label}: ${n} fetches, broker CPU ${cpu.toFixed(0)} ms`);
    // The next case starts over from the beginning of the backlog with a new session.
    const close = handler.closeRequest();
    if (close !== null)
      await l.request(fetchApi, {
        ...body([], 0),
        sessionId: close.sessionId,
        sessionEpoch: close.sessionEpoch,
      });
    return { label, fetches: n, cpuMs: cpu, answered: answered / n };
  }
}

/** A session's fetch: the topics the session handler built, up to 50 MiB. */
function body(topics: ReturnType<FetchSessionHandler['build']>['topics'], maxWaitMs: number) {
  return { ...fetchRequest('many', [], { maxWaitMs, maxBytes: 50 << 20 }), topics };
}

async function fetchOnce(
  link: BrokerLink,
  handler: FetchSessionHandler,
  topicId: string,
  offsets: readonly bigint[],
  batchBytes: number,
): Promise<FetchResponse> {
  const next: SessionPartition[] = offsets.map((fetchOffset, partition) => ({
    topic: 'many',
    topicId,
    partition,
    fetchOffset,
    currentLeaderEpoch: -1,
    lastFetchedEpoch: -1,
    logStartOffset: -1n,
    partitionMaxBytes: batchBytes,
  }));
  const res = await link.request(fetchApi, (v) => {
    const parts = handler.build(next, v);
    return {
      ...body(parts.topics, 0),
      sessionId: parts.sessionId,
      sessionEpoch: parts.sessionEpoch,
      forgottenTopicsData: parts.forgottenTopicsData,
    };
  });
  if (handler.handleResponse(res) !== 'use') throw new Error(`fetch answered error ${res.errorCode}`);
  return res;
}

/** The offset after the last batch of `records` (v2 batches: base offset + last offset delta + 1). */
function nextOffset(records: Buffer): bigint {
  let pos = 0;
  let next = 0n;
  while (pos + 61 <= records.length) {
    const base = records.readBigInt64BE(pos);
    const size = records.readInt32BE(pos + 8);
    if (pos + 12 + size > records.length) break;
    next = base + BigInt(records.readInt32BE(pos + 23)) + 1n;
    pos += 12 + size;
  }
  return next;
}
