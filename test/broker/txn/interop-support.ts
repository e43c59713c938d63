// Helpers for the transaction interop tests (test/interop/txn-*.test.ts): Python scripts run
// with Debian's confluent-kafka (librdkafka 2.0.2) — a read_committed reader among them —, kcat
// reads with either isolation level, and a raw ListOffsets for the LSO of a broker in another
// process.
import assert from 'node:assert/strict';
import { type ChildProcess, spawn } from 'node:child_process';
import { listOffsetsApi } from '../../../src/protocol/messages/generated/list-offsets.js';
import { exec } from '../../interop/support/exec.js';
import { scaled, TestTimeoutError } from '../../support/timeouts.js';
import { RawClient } from '../support/raw-client.js';

/** A child process whose stdout lines are collected; `waitLine` resolves on a matching one. */
export class Proc {
  readonly lines: string[] = [];
  stderr = '';
  readonly exited: Promise<number | null>;
  #buf = '';
  #waiters: Array<() => void> = [];

  constructor(readonly child: ChildProcess) {
    child.stdout?.on('data', (d: Buffer) => {
      this.#buf += d.toString();
      let nl = this.#buf.indexOf('\n');
      while (nl >= 0) {
        this.lines.push(this.#buf.slice(0, nl));
        this.#buf = this.#buf.slice(nl + 1);
        nl = this.#buf.indexOf('\n');
      }
      for (const w of this.#waiters.splice(0)) w();
    });
    child.stderr?.on('data', (d: Buffer) => (this.stderr += d.toString()));
    this.exited = new Promise((r) =>
      child.once('exit', (code) => {
        for (const w of this.#waiters.splice(0)) w();
        r(code);
      }),
    );
  }

  static python(script: string, args: readonly (string | number)[]): Proc {
    return new Proc(
      spawn('/usr/bin/python3', ['-u', '-c', script, ...args.map(String)], {
        stdio: ['ignore', 'pipe', 'pipe'],
      }),
    );
  }

  get running(): boolean {
    return this.child.exitCode === null && this.child.signalCode === null;
  }

  /** The first stdout line matching `pred`; `timeoutMs` is scaled (SAMSA_TEST_TIMEOUT_SCALE). */
  async waitLine(pred: (line: string) => boolean, timeoutMs: number): Promise<string> {
    const ms = scaled(timeoutMs);
    const deadline = Date.now() + ms;
    for (;;) {
      const found = this.lines.find(pred);
      if (found !== undefined) return found;
      if (!this.running)
        throw new Error(
          `process exited without the expected line:\n${this.lines.join('\n')}\n${this.stderr}`,
        );
      const left = deadline - Date.now();
      if (left <= 0)
        throw new TestTimeoutError('a line of output', ms, `${this.lines.join('\n')}\n${this.stderr}`);
      await new Promise<void>((r) => {
        const t = setTimeout(r, left);
        this.#waiters.push(() => {
          clearTimeout(t);
          r();
        });
      });
    }
  }

  async kill(signal: NodeJS.Signals = 'SIGKILL'): Promise<void> {
    if (this.running) this.child.kill(signal);
    await this.exited;
  }
}

/** Runs a Python script to completion and returns its stdout lines (fails on a non-zero exit). */
export async function runPython(
  script: string,
  args: readonly (string | number)[],
  timeoutMs = 60_000,
): Promise<string[]> {
  const r = await exec('/usr/bin/python3', ['-c', script, ...args.map(String)], { timeoutMs });
  assert.equal(
    r.code,
    0,
    `python ${r.timedOut ? 'timed out' : 'failed'}:\n${r.stdout.toString()}\n${r.stderr}`,
  );
  return r.stdout
    .toString()
    .split('\n')
    .filter((l) => l !== '');
}

const PY_READ_COMMITTED = `
import sys, json, time
from confluent_kafka import Consumer, TopicPartition, OFFSET_BEGINNING, KafkaError
bootstrap, deadline = sys.argv[1], time.time() + float(sys.argv[2])
tps = [(t, int(p)) for t, p in (a.rsplit(':', 1) for a in sys.argv[3:])]
c = Consumer({'bootstrap.servers': bootstrap, 'group.id': 'ck-read-committed', 'enable.auto.commit': False,
              'isolation.level': 'read_committed', 'enable.partition.eof': True})
c.assign([TopicPartition(t, p, OFFSET_BEGINNING) for t, p in tps])
rows, eof = [], set()
while len(eof) < len(tps):
    if time.time() > deadline:
        raise SystemExit('timed out; at end of %s' % sorted(eof))
    m = c.poll(0.5)
    if m is None:
        continue
    if m.error():
        if m.error().code() == KafkaError._PARTITION_EOF:
            eof.add((m.topic(), m.partition()))
            continue
        raise SystemExit(str(m.error()))
    eof.discard((m.topic(), m.partition()))
    rows.append([m.topic(), m.partition(), m.offset(), m.value().decode()])
c.close()
print(json.dumps(rows))
`;

/** One record of one of several topics, as a reader saw it. */
export interface TopicRecord {
  topic: string;
  partition: number;
  offset: number;
  value: string;
}

/**
 * Every record of the partitions, from their beginning to their end, as confluent-kafka-python
 * (librdkafka 2.0.2) reads them under read_committed, in the order it received them.
 */
export async function ckReadCommitted(
  bootstrap: string,
  partitions: readonly { topic: string; partition: number }[],
): Promise<TopicRecord[]> {
  const args = partitions.map((tp) => `${tp.topic}:${tp.partition}`);
  const lines = await runPython(
    PY_READ_COMMITTED,
    [bootstrap, scaled(60_000) / 1000, ...args],
    scaled(90_000),
  );
  const rows = JSON.parse(lines.at(-1)!) as [string, number, number, string][];
  return rows.map(([topic, partition, offset, value]) => ({ topic, partition, offset, value }));
}

export interface ReadRecord {
  partition: number;
  offset: number;
  key: string;
  value: string;
}

/** Every record of `topic` up to the end (the LSO under read_committed), read by kcat. */
export async function kcatRead(
  bootstrap: string,
  topic: string,
  isolation: 'read_committed' | 'read_uncommitted',
): Promise<ReadRecord[]> {
  const r = await exec(
    'kcat',
    [
      '-b',
      bootstrap,
      '-C',
      '-t',
      topic,
      '-e',
      '-q',
      '-X',
      `isolation.level=${isolation}`,
      '-f',
      '%p %o %k %s\\n',
    ],
    {
      timeoutMs: 60_000,
    },
  );
  assert.equal(r.code, 0, `kcat ${r.timedOut ? 'timed out' : 'failed'}: ${r.stderr}`);
  return r.stdout
    .toString()
    .split('\n')
    .filter((l) => l !== '')
    .map((l) => {
      const [p, o, k, ...v] = l.split(' ');
      return { partition: Number(p), offset: Number(o), key: k ?? '', value: v.join(' ') };
    });
}

/** ListOffsets latest for one partition, under read_uncommitted (HW) and read_committed (LSO). */
export async function latestOffsets(
  port: number,
  topic: string,
  partition: number,
): Promise<{ hw: bigint; lso: bigint }> {
  const c = await RawClient.connect(port);
  try {
    const ask = async (isolationLevel: number): Promise<bigint> => {
      const res = await c.request(listOffsetsApi, 5, {
        replicaId: -1,
        isolationLevel,
        topics: [
          {
            name: topic,
            partitions: [
              { partitionIndex: partition, currentLeaderEpoch: -1, timestamp: -1n, maxNumOffsets: 1 },
            ],
          },
        ],
        timeoutMs: 1000,
      });
      const p = res.topics[0]?.partitions[0];
      assert.equal(p?.errorCode, 0);
      return p.offset;
    };
    return { hw: await ask(0), lso: await ask(1) };
  } finally {
    c.close();
  }
}

/** Polls `cond` every 100 ms; `timeoutMs` is scaled (SAMSA_TEST_TIMEOUT_SCALE). */
export async function waitFor(
  cond: () => boolean | Promise<boolean>,
  timeoutMs: number,
  what: string,
): Promise<void> {
  const ms = scaled(timeoutMs);
  const deadline = Date.now() + ms;
  while (!(await cond())) {
    if (Date.now() > deadline) throw new TestTimeoutError(what, ms);
    await new Promise((r) => setTimeout(r, 100));
  }
}
