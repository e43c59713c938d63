// CPU of the Fetch handler's read pass over partitions with nothing new: one in-process broker,
// one topic of 1,000 empty partitions, the Fetch handler called directly (no socket, no
// encoding), MaxWaitMs 0. Cases: sessionless read_uncommitted, sessionless read_committed with
// LastFetchedEpoch set (the Java consumer's request), and an incremental session that names no
// partition (every one of the 1,000 is checked, none is answered).
//
//   npx tsx bench/fetch-read-pass.ts [--base DIR/src] [--calls N] [--rounds N] [--only LABEL-PREFIX]
//
// `--base` loads a second Fetch handler from another copy of the sources (e.g. a copy taken
// before a change, or a `git worktree` of HEAD) and runs it against the same broker, rounds
// interleaved: the ratio holds on a loaded machine. CPU is this process's user + system time.

import { pathToFileURL } from 'node:url';
import type { AnyApiHandler, RequestContext } from '../src/broker/apis/api.js';
import { BrokerLink } from '../src/net/index.js';
import { createTopicsApi } from '../src/protocol/messages/generated/create-topics.js';
import type { FetchRequest, FetchResponse } from '../src/protocol/messages/generated/fetch.js';
import { startTestBroker } from '../src/testkit/index.js';
import { type FetchOptions, fetchRequest } from '../test/broker/support/wire.js';

const PARTITIONS = 1000;
const TOPIC = 'idle';

const arg = (name: string): string | undefined => {
  const i = process.argv.indexOf(name);
  return i >= 0 ? process.argv[i + 1] : undefined;
};

async function loadHandler(src: string): Promise<AnyApiHandler> {
  const mod = (await import(pathToFileURL(`${src}/broker/apis/01-fetch.ts`).href)) as {
    default: AnyApiHandler;
  };
  return mod.default;
}

/** A fetch of every partition from 0 at the leader's `epoch` (`partitions` false: none, as an incremental fetch). */
function request(o: FetchOptions, epoch: number, partitions = true): FetchRequest {
  const all = Array.from({ length: PARTITIONS }, (_, partition) => ({ partition, offset: 0n }));
  return fetchRequest(TOPIC, partitions ? all : [], {
    minBytes: 1,
    maxBytes: 50 << 20,
    currentLeaderEpoch: epoch,
    ...o,
  });
}

async function main(): Promise<void> {
  const calls = Number(arg('--calls') ?? 2000);
  const rounds = Number(arg('--rounds') ?? 3);
  const base = arg('--base');
  /** `--only PREFIX`: the cases whose label starts with it. */
  const only = arg('--only');
  const handlers: { name: string; handler: AnyApiHandler }[] = [
    { name: 'current', handler: await loadHandler(new URL('../src', import.meta.url).pathname) },
  ];
  if (base !== undefined) handlers.push({ name: 'base', handler: await loadHandler(base) });

  const broker = await startTestBroker();
  const link = new BrokerLink(1, '127.0.0.1', broker.port, { clientId: 'bench-fetch-read-pass' });
  try {
    await link.request(createTopicsApi, {
      topics: [
        { name: TOPIC, numPartitions: PARTITIONS, replicationFactor: 1, assignments: [], configs: [] },
      ],
      timeoutMs: 60_000,
      validateOnly: false,
    });
    const epoch = broker.services.replicas.get(TOPIC, 0)!.leaderEpoch;
    const version = 12;
    const ctx: RequestContext = {
      header: { requestApiKey: 1, requestApiVersion: version, correlationId: 1, clientId: 'bench' },
      version,
      conn: { id: 1, remoteAddress: 'bench', clientSoftwareName: '', clientSoftwareVersion: '' },
      broker: broker.services,
    };
    const call = async (h: AnyApiHandler, req: FetchRequest): Promise<FetchResponse> =>
      (await h.handle(ctx, req)) as FetchResponse;

    const cases: { label: string; run: (h: AnyApiHandler) => Promise<() => Promise<number>> }[] = [
      {
        label: 'sessionless, read_uncommitted',
        run: async (h) => {
          const req = request({}, epoch);
          return async () => (await call(h, req)).responses[0]!.partitions.length;
        },
      },
      {
        label: 'sessionless, read_committed, LastFetchedEpoch set',
        run: async (h) => {
          const req = request({ isolationLevel: 1 }, epoch);
          for (const p of req.topics[0]!.partitions) p.lastFetchedEpoch = epoch;
          return async () => (await call(h, req)).responses[0]!.partitions.length;
        },
      },
      {
        label: 'incremental session, nothing named',
        run: async (h) => {
          const full = await call(h, request({ sessionEpoch: 0 }, epoch));
          if (full.sessionId === 0) throw new Error('no session created');
          const next = request({ sessionId: full.sessionId, sessionEpoch: 1 }, epoch, false);
          return async () => {
            const res = await call(h, next);
            next.sessionEpoch++;
            if (res.errorCode !== 0) throw new Error(`session error ${res.errorCode}`);
            return res.responses.length;
          };
        },
      },
    ];

    const best = new Map<string, number>();
    for (let round = 0; round < rounds; round++) {
      for (const c of cases) {
        if (only !== undefined && !c.label.startsWith(only)) continue;
        for (const { name, handler } of handlers) {
          const once = await c.run(handler);
          const expect = await once();
          for (let i = 0; i < 50; i++) await once(); // warm-up
          const t0 = process.cpuUsage();
          for (let i = 0; i < calls; i++) {
            if ((await once()) !== expect) throw new Error('answer changed');
          }
          const d = process.cpuUsage(t0);
          const us = (d.user + d.system) / calls;
          const key = `${c.label}|${name}`;
          best.set(key, Math.min(best.get(key) ?? Number.POSITIVE_INFINITY, us));
          console.log(
            `round ${round + 1} ${name} ${c.label}: ${us.toFixed(0)} µs per Fetch (${((us * 1000) / PARTITIONS).toFixed(0)} ns per partition), ${expect} answered`,
          );
        }
      }
    }
    const names = handlers.map((h) => h.name);
    console.log(
      `\n| case (${PARTITIONS} partitions, nothing new) | ${names.map((n) => `${n} µs per Fetch`).join(' | ')} |${names.length > 1 ? ' current / base |' : ''}`,
    );
    console.log(`| --- | ${names.map(() => '---').join(' | ')} |${names.length > 1 ? ' --- |' : ''}`);
    for (const c of cases) {
      if (only !== undefined && !c.label.startsWith(only)) continue;
      const v = names.map((n) => best.get(`${c.label}|${n}`)!);
      console.log(
        `| ${c.label} | ${v.map((x) => x.toFixed(0)).join(' | ')} |${v.length > 1 ? ` ${(v[0]! / v[1]!).toFixed(2)} |` : ''}`,
      );
    }
  } finally {
    link.close();
    await broker.close();
  }
}

await main();
