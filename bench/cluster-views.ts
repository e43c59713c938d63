// Support of bench/cluster-failover.ts: what each broker says (Metadata over one kept connection),
// what ZooKeeper says (/brokers/ids, /controller), and polling either until a condition holds,
// timestamped with performance.now(). A poll's time is when the answer that satisfied it arrived,
// so a figure is late by at most one poll interval plus one round trip.

import { readFileSync } from 'node:fs';
import { ZkClient } from '../src/broker/metadata/zookeeper/zk-client.js';
import { isZkError } from '../src/broker/metadata/zookeeper/zk-errors.js';
import { BrokerLink } from '../src/net/index.js';
import { type MetadataResponse, metadataApi } from '../src/protocol/messages/generated/metadata.js';
import { ZERO_UUID } from '../src/protocol/primitives/reader.js';

export interface PartitionView {
  topic: string;
  partition: number;
  leader: number;
  isr: number[];
}

export interface BrokerMetadata {
  controllerId: number;
  brokers: number[];
  /** Every partition of the topics asked for (all topics when asked for null). */
  partitions: PartitionView[];
  /** Topics answered with an error (e.g. not known yet). */
  missing: string[];
}

/** One broker's own Metadata, over a connection kept open (reconnects if it drops). */
export class BrokerWatch {
  readonly #link: BrokerLink;

  constructor(
    readonly nodeId: number,
    port: number,
  ) {
    this.#link = new BrokerLink(nodeId, '127.0.0.1', port, {
      clientId: 'bench-cluster-failover',
      requestTimeoutMs: 120_000,
      reconnectBackoffMs: 20,
      reconnectBackoffMaxMs: 200,
    });
  }

  /** `topics` null = every topic; [] = none (brokers and controller only: cheap). */
  async metadata(topics: readonly string[] | null): Promise<BrokerMetadata> {
    const r: MetadataResponse = await this.#link.request(metadataApi, {
      topics: topics === null ? null : topics.map((name) => ({ name, topicId: ZERO_UUID })),
      allowAutoTopicCreation: false,
      includeClusterAuthorizedOperations: false,
      includeTopicAuthorizedOperations: false,
    });
    const partitions: PartitionView[] = [];
    const missing: string[] = [];
    for (const t of r.topics) {
      if (t.errorCode !== 0) {
        missing.push(t.name ?? '');
        continue;
      }
      for (const p of t.partitions)
        partitions.push({
          topic: t.name!,
          partition: p.partitionIndex,
          leader: p.leaderId,
          isr: [...p.isrNodes],
        });
    }
    return {
      controllerId: r.controllerId,
      brokers: r.brokers.map((b) => b.nodeId).sort(),
      partitions,
      missing,
    };
  }

  close(): void {
    this.#link.close();
  }
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * Polls `probe` every `intervalMs` until it returns true; resolves with the performance.now() of
 * the answer that did. Errors (a broker restarting, a connection refused) count as "not yet".
 */
export async function pollUntil(
  what: string,
  probe: () => Promise<boolean>,
  intervalMs: number,
  timeoutMs: number,
): Promise<number> {
  const deadline = performance.now() + timeoutMs;
  let last = '';
  for (;;) {
    const started = performance.now();
    try {
      if (await probe()) return performance.now();
    } catch (e) {
      last = e instanceof Error ? e.message : String(e);
    }
    if (performance.now() > deadline)
      throw new Error(`timed out after ${timeoutMs} ms waiting for ${what} ${last}`);
    await sleep(Math.max(0, intervalMs - (performance.now() - started)));
  }
}

/** Polls every watch in parallel; resolves with the time the last of them held. */
export async function allUntil(
  what: string,
  watches: readonly BrokerWatch[],
  topics: readonly string[] | null,
  ok: (m: BrokerMetadata, w: BrokerWatch) => boolean,
  intervalMs: number,
  timeoutMs: number,
): Promise<number> {
  const times = await Promise.all(
    watches.map((w) =>
      pollUntil(
        `${what} (broker ${w.nodeId})`,
        async () => ok(await w.metadata(topics), w),
        intervalMs,
        timeoutMs,
      ),
    ),
  );
  return Math.max(...times);
}

/** The cluster's znodes as seen by a ZooKeeper session of the bench's own. */
export class ZkWatch {
  private constructor(private readonly zk: ZkClient) {}

  static async open(connect: string): Promise<ZkWatch> {
    return new ZkWatch(
      await ZkClient.connect(connect, { sessionTimeoutMs: 30_000, connectionTimeoutMs: 30_000 }),
    );
  }

  /** `/controller`'s broker id, -1 while there is none. */
  async controller(): Promise<number> {
    try {
      return JSON.parse((await this.zk.getData('/controller')).data!.toString()).brokerid as number;
    } catch (e) {
      if (isZkError(e, 'NO_NODE')) return -1;
      throw e;
    }
  }

  async registered(nodeId: number): Promise<boolean> {
    return (await this.zk.exists(`/brokers/ids/${nodeId}`)) !== null;
  }

  /** The node ids registered under /brokers/ids, sorted. */
  async brokers(): Promise<number[]> {
    return (await this.zk.getChildren('/brokers/ids')).map(Number).sort((a, b) => a - b);
  }

  /**
   * Polls /brokers/ids every `intervalMs` and calls `onChange` with each new set (and the
   * performance.now() it was seen at) until the returned stop function is called.
   */
  monitorBrokers(onChange: (ids: number[], at: number) => void, intervalMs = 100): () => void {
    let last = '';
    let stopped = false;
    const tick = async (): Promise<void> => {
      while (!stopped) {
        try {
          const ids = await this.brokers();
          if (ids.join(',') !== last) {
            last = ids.join(',');
            onChange(ids, performance.now());
          }
        } catch {
          // ZooKeeper busy or reconnecting: try again.
        }
        await sleep(intervalMs);
      }
    };
    void tick();
    return () => {
      stopped = true;
    };
  }

  close(): Promise<void> {
    return this.zk.close();
  }
}

export function loadAverage(): string {
  return readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ');
}

/** utime + stime of a process in ms (Linux), or NaN once it is gone. */
export function cpuMs(pid: number | null): number {
  if (pid === null) return Number.NaN;
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
    return (Number(stat[11]) + Number(stat[12])) * 10;
  } catch {
    return Number.NaN;
  }
}

/**
 * Timestamps (epoch ms) of a broker's log lines matching `pattern`, from `output()` of the
 * testkit (`<ISO time> LEVEL message {fields}` lines, as the CLI logger writes them).
 */
export function logTimes(output: string, pattern: RegExp): number[] {
  const out: number[] = [];
  for (const line of output.split('\n')) {
    if (!pattern.test(line)) continue;
    const t = Date.parse(line.slice(0, 24));
    if (!Number.isNaN(t)) out.push(t);
  }
  return out;
}
