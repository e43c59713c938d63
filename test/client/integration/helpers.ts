// Shared set-up of the client integration tests: a real in-process broker on an ephemeral port
// with its own data directory, and kcat as an independent reader.
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { Admin } from '../../../src/client/index.js';
import { type BrokerHandle, startBroker } from '../../../src/index.js';
import { scaled } from '../../support/timeouts.js';

const run = promisify(execFile);

/** execFile's error for a child killed at its timeout says only "Command failed". */
function timeoutAware(what: string, ms: number) {
  return (err: unknown): never => {
    if ((err as { killed?: boolean }).killed)
      throw new Error(`${what} timed out after ${ms} ms`, { cause: err });
    throw err;
  };
}

export interface TestBroker {
  broker: BrokerHandle;
  dataDir: string;
  stop(): Promise<void>;
}

/** Creates single-replica topics with an Admin of its own. */
export async function createTopics(
  bootstrap: string,
  topics: { name: string; numPartitions: number; configs?: Record<string, string> }[],
): Promise<void> {
  const admin = new Admin({ bootstrapServers: bootstrap });
  try {
    await admin.createTopics(topics.map((t) => ({ ...t, replicationFactor: 1 })));
  } finally {
    await admin.close();
  }
}

export async function testBroker(
  overrides: Record<string, string | number | boolean> = {},
): Promise<TestBroker> {
  const dataDir = mkdtempSync(join(tmpdir(), 'samsa-client-it-'));
  const broker = await startBroker({ host: '127.0.0.1', port: 0, dataDir, overrides });
  return {
    broker,
    dataDir,
    async stop() {
      await broker.close();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

export interface KcatRecord {
  key: string;
  value: string;
  partition: number;
  offset: number;
  headers: string;
}

/** Reads a whole topic with kcat (librdkafka), one JSON-ish line per record. */
export async function kcatRead(
  bootstrap: string,
  topic: string,
  extra: string[] = [],
): Promise<KcatRecord[]> {
  const ms = scaled(60_000);
  const { stdout } = await run(
    'kcat',
    ['-C', '-b', bootstrap, '-t', topic, '-e', '-q', '-f', '%p\t%o\t%k\t%h\t%s\n', ...extra],
    { maxBuffer: 256 * 1024 * 1024, timeout: ms },
  ).catch(timeoutAware(`kcat reading ${topic}`, ms));
  return stdout
    .split('\n')
    .filter((l) => l !== '')
    .map((l) => {
      const [p, o, k, h, ...v] = l.split('\t');
      return { partition: Number(p), offset: Number(o), key: k!, headers: h!, value: v.join('\t') };
    });
}

/** Produces `key:value` lines with kcat (librdkafka's default partitioner). */
export async function kcatWrite(bootstrap: string, topic: string, lines: string): Promise<void> {
  const ms = scaled(60_000);
  await new Promise<void>((resolve, reject) => {
    const child = execFile('kcat', ['-P', '-b', bootstrap, '-t', topic, '-K:'], { timeout: ms }, (err) =>
      err ? reject(err) : resolve(),
    );
    child.stdin!.end(`${lines}\n`);
  }).catch(timeoutAware(`kcat writing ${topic}`, ms));
}
