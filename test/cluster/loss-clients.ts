// The clients of the loss checker (loss-checker.test.ts): confluent-kafka-python writing through
// loss_producer.py, our idempotent producer, a live consumer of ours, and the read-back checks
// (our consumer, kcat) of every acknowledged record.
import assert from 'node:assert/strict';
import { type ChildProcess, spawn } from 'node:child_process';
import { createWriteStream } from 'node:fs';
import { join } from 'node:path';
import { Consumer, Producer } from '../../src/client/index.js';
import { exec } from '../interop/support/exec.js';
import { repoFile } from '../support/repo.js';
import { scaled, TestTimeoutError } from '../support/timeouts.js';
import type { Copy } from './loss-epoch-copies.js';

export const PARTITIONS = 3;
/** Records per second of each producer. */
export const RATE = 100;
export const CK = 'loss-ck';
export const OURS = 'loss-ours';
export const TOPICS = [CK, OURS];
const SCRIPT = repoFile('test/cluster/loss_producer.py');

/**
 * With SAMSA_LOSS_DEBUG_DIR set, the run keeps librdkafka's debug log (LOSS_PRODUCER_DEBUG
 * contexts, default eos,msg,broker,topic) and every broker's output there, to follow a failure
 * request by request.
 */
export const DEBUG_DIR = process.env.SAMSA_LOSS_DEBUG_DIR ?? null;

export const indexOf = (value: string) => Number(value.slice(value.lastIndexOf('-') + 1));

export interface Ack {
  partition: number;
  offset: bigint;
}

/** confluent-kafka-python writing to CK until stopped; its delivery reports as they come. */
export class PythonProducer {
  readonly acked = new Map<number, Ack>();
  readonly failed: string[] = [];
  readonly fatal: string[] = [];
  #buf = '';
  #stderr = '';
  #done: number | null = null;
  #exitCode: number | null | undefined = undefined;
  #stopping = false;
  readonly #child: ChildProcess;
  readonly #exit: Promise<number | null>;

  constructor(bootstrap: string) {
    const env = { ...process.env };
    if (DEBUG_DIR !== null) env.LOSS_PRODUCER_DEBUG ??= 'eos,msg,broker,topic';
    this.#child = spawn('/usr/bin/python3', [SCRIPT, bootstrap, CK, String(PARTITIONS), 'ck', String(RATE)], {
      stdio: ['pipe', 'pipe', 'pipe'],
      env,
    });
    this.#exit = new Promise((r) =>
      this.#child.once('exit', (code) => {
        this.#exitCode = code;
        r(code);
      }),
    );
    this.#child.stdout!.on('data', (d: Buffer) => {
      this.#buf += d.toString();
      const lines = this.#buf.split('\n');
      this.#buf = lines.pop()!;
      for (const line of lines) this.#line(line);
    });
    const debugLog = DEBUG_DIR === null ? null : createWriteStream(join(DEBUG_DIR, 'librdkafka.log'));
    this.#child.stderr!.on('data', (d: Buffer) => {
      debugLog?.write(d);
      this.#stderr = (this.#stderr + d.toString()).slice(-20_000);
    });
    this.#child.once('exit', () => debugLog?.end());
    this.#child.stdin!.on('error', () => {});
  }

  get pid(): number | undefined {
    return this.#child.pid;
  }

  get running(): boolean {
    return this.#exitCode === undefined;
  }

  #line(line: string): void {
    const [kind, a, b, c] = line.split(' ');
    if (kind === 'A') this.acked.set(Number(a), { partition: Number(b), offset: BigInt(c!) });
    else if (kind === 'E') this.failed.push(line);
    else if (kind === 'F') this.fatal.push(line);
    else if (kind === 'DONE') this.#done = Number(a);
  }

  /** Why this producer can no longer do its job (a fatal error, a failed delivery, an early exit), or null. */
  problem(): string | null {
    if (this.fatal.length > 0) return `librdkafka fatal error: ${this.fatal.join('; ')}`;
    if (this.failed.length > 0) return `librdkafka delivery failed: ${this.failed.slice(0, 3).join('; ')}`;
    if (this.#exitCode !== undefined && !this.#stopping)
      return `loss_producer.py exited with ${this.#exitCode}:\n${this.#stderr.slice(-4000)}`;
    return null;
  }

  /** Throws at once when `problem()` has something: a fault loop must not wait for acknowledgements that cannot come. */
  check(): void {
    const p = this.problem();
    if (p !== null) throw new Error(`the librdkafka producer failed: ${p}`);
  }

  /** Closes its stdin (it flushes and exits); resolves with the number of records left unflushed. */
  async stop(): Promise<number> {
    this.#stopping = true;
    this.#child.stdin!.end();
    const ms = scaled(660_000);
    const timer = setTimeout(() => this.#child.kill('SIGKILL'), ms);
    const code = await this.#exit;
    clearTimeout(timer);
    assert.equal(
      code,
      0,
      `loss_producer.py exited with ${code} (timed out after ${ms} ms?):\n${this.#stderr.slice(-4000)}`,
    );
    assert.notEqual(this.#done, null, 'loss_producer.py printed DONE');
    return this.#done!;
  }

  /** SIGKILL (by its pid) and wait for the exit. */
  async kill(): Promise<void> {
    this.#stopping = true;
    if (this.running) this.#child.kill('SIGKILL');
    await this.#exit;
  }
}

/** Our idempotent producer writing to OURS at RATE until stopped. */
export class OurProducer {
  readonly acked = new Map<number, Ack>();
  readonly failed: string[] = [];
  sent = 0;
  readonly #producer: Producer;
  readonly #inFlight = new Set<Promise<void>>();
  #stopped = false;
  readonly #loop: Promise<void>;

  constructor(bootstrap: string) {
    this.#producer = new Producer({
      bootstrapServers: bootstrap,
      acks: 'all',
      enableIdempotence: true,
      lingerMs: 5,
      requestTimeoutMs: 15_000,
      // A fault must delay a record, never fail it.
      deliveryTimeoutMs: 600_000,
      maxBlockMs: 600_000,
      metadataMaxAgeMs: 5000,
    });
    this.#loop = this.#run();
  }

  async #run(): Promise<void> {
    const t0 = Date.now();
    while (!this.#stopped) {
      const ahead = t0 + (this.sent * 1000) / RATE - Date.now();
      if (ahead > 0) {
        await new Promise((r) => setTimeout(r, Math.min(ahead, 50)));
        continue;
      }
      const i = this.sent++;
      const p = this.#producer
        .send({ topic: OURS, partition: i % PARTITIONS, value: `ours-${i}` })
        .then(
          (md) => {
            this.acked.set(i, { partition: md.partition, offset: md.offset });
          },
          (e: unknown) => {
            this.failed.push(`ours-${i}: ${e instanceof Error ? `${e.name}: ${e.message}` : String(e)}`);
          },
        )
        .finally(() => this.#inFlight.delete(p));
      this.#inFlight.add(p);
    }
  }

  /**
   * Stops sending and waits for every record in flight. `abortAfterMs` (a failed run): records
   * still undelivered by then fail, so no retry of theirs keeps this process alive.
   */
  async stop(abortAfterMs?: number): Promise<void> {
    this.#stopped = true;
    await this.#loop;
    if (abortAfterMs !== undefined) await this.#producer.close({ timeoutMs: abortAfterMs });
    await Promise.all([...this.#inFlight]);
    await this.#producer.close();
  }
}

/** A consumer of ours reading every partition from the beginning while the faults happen. */
export class LiveReader {
  /** `topic/partition/offset` → value, for every record read. */
  readonly seen = new Map<string, string>();
  readonly conflicts: string[] = [];
  readonly #consumer: Consumer;
  #stopped = false;
  readonly #loop: Promise<void>;
  error: unknown = null;

  constructor(bootstrap: string) {
    this.#consumer = new Consumer({
      bootstrapServers: bootstrap,
      isolationLevel: 'read_uncommitted',
      autoOffsetReset: 'earliest',
      requestTimeoutMs: 15_000,
      metadataMaxAgeMs: 5000,
    });
    this.#consumer.assign(
      TOPICS.flatMap((topic) => Array.from({ length: PARTITIONS }, (_, partition) => ({ topic, partition }))),
    );
    this.#loop = this.#run();
  }

  async #run(): Promise<void> {
    try {
      while (!this.#stopped) {
        for (const r of await this.#consumer.poll(500)) {
          const key = `${r.topic}/${r.partition}/${r.offset}`;
          const value = r.value?.toString() ?? '';
          const earlier = this.seen.get(key);
          if (earlier !== undefined && earlier !== value)
            this.conflicts.push(`${key}: read ${earlier}, later ${value}`);
          this.seen.set(key, value);
        }
      }
    } catch (e) {
      this.error = e;
    }
  }

  async stop(): Promise<void> {
    this.#stopped = true;
    await this.#loop;
    await this.#consumer.close();
  }
}

/** Every record of `topics` from the beginning to the end offsets, with our consumer. */
export async function readAllOurs(
  bootstrap: string,
): Promise<Map<string, { partition: number; offset: bigint; value: string }[]>> {
  const consumer = new Consumer({ bootstrapServers: bootstrap, isolationLevel: 'read_uncommitted' });
  try {
    const tps = TOPICS.flatMap((topic) =>
      Array.from({ length: PARTITIONS }, (_, partition) => ({ topic, partition })),
    );
    consumer.assign(tps);
    consumer.seekToBeginning(tps);
    const ends = await consumer.endOffsets(tps);
    const out = new Map<string, { partition: number; offset: bigint; value: string }[]>(
      TOPICS.map((t) => [t, []]),
    );
    const ms = scaled(180_000);
    const deadline = Date.now() + ms;
    const done = async () => {
      for (const [n, tp] of tps.entries()) if ((await consumer.position(tp)) < ends[n]!) return false;
      return true;
    };
    while (!(await done())) {
      if (Date.now() > deadline)
        throw new TestTimeoutError('our consumer to read every partition to its end', ms);
      for (const r of await consumer.poll(1000))
        out
          .get(r.topic)!
          .push({ partition: r.partition, offset: r.offset, value: r.value?.toString() ?? '' });
    }
    return out;
  } finally {
    await consumer.close();
  }
}

/** The same with kcat (librdkafka's consumer, no group): `-o beginning -e`. */
export async function readAllKcat(bootstrap: string, topic: string) {
  const r = await exec(
    'kcat',
    ['-b', bootstrap, '-C', '-t', topic, '-o', 'beginning', '-e', '-q', '-f', '%p %o %s\\n'],
    { timeoutMs: 180_000 },
  );
  assert.equal(r.code, 0, r.stderr);
  return r.stdout
    .toString()
    .split('\n')
    .filter((l) => l !== '')
    .map((l) => {
      const [p, o, value] = l.split(' ');
      return { partition: Number(p), offset: BigInt(o!), value: value! };
    });
}

/**
 * Checks one reader's copy of a topic against what the producer was told: every acknowledged
 * record present exactly once, at its acknowledged offset, and each partition in send order.
 */
export function checkTopic(
  who: string,
  records: { partition: number; offset: bigint; value: string }[],
  prefix: string,
  acked: ReadonlyMap<number, Ack>,
  clientCopies: ReadonlySet<string> = new Set(),
): void {
  const where = new Map<number, { partition: number; offset: bigint }[]>();
  const last = new Map<number, number>();
  const disorder: string[] = [];
  for (const r of records) {
    // A copy the client wrote under an earlier producer epoch (loss-epoch-copies.ts): not the
    // broker's duplicate, and not part of the order the acknowledged copies must keep.
    if (clientCopies.has(`${r.partition}/${r.offset}`)) continue;
    assert.ok(r.value.startsWith(`${prefix}-`), `${who}: unexpected record ${r.value}`);
    const i = indexOf(r.value);
    assert.equal(r.partition, i % PARTITIONS, `${who}: ${r.value} in partition ${r.partition}`);
    const list = where.get(i) ?? [];
    list.push({ partition: r.partition, offset: r.offset });
    where.set(i, list);
    const prev = last.get(r.partition) ?? -1;
    if (i <= prev) disorder.push(`${r.value} at ${r.partition}/${r.offset} after ${prefix}-${prev}`);
    last.set(r.partition, Math.max(prev, i));
  }
  const missing: number[] = [];
  const duplicated: string[] = [];
  const moved: string[] = [];
  for (const [i, ack] of acked) {
    const found = where.get(i);
    if (found === undefined) missing.push(i);
    else if (found.length > 1) duplicated.push(`${prefix}-${i} at ${found.map((f) => f.offset).join(',')}`);
    else if (ack.offset >= 0n && (found[0]!.offset !== ack.offset || found[0]!.partition !== ack.partition))
      moved.push(
        `${prefix}-${i} acked at ${ack.partition}/${ack.offset}, found at ${found[0]!.partition}/${found[0]!.offset}`,
      );
  }
  // Records never acknowledged (in flight at the end, none with these timeouts) may be anywhere
  // or nowhere, but never twice: idempotence.
  for (const [i, found] of where)
    if (!acked.has(i) && found.length > 1)
      duplicated.push(`${prefix}-${i} (unacked) at ${found.map((f) => f.offset)}`);
  assert.deepEqual(
    missing.slice(0, 20),
    [],
    `${who}: ${missing.length} acknowledged records of ${prefix} missing`,
  );
  assert.deepEqual(duplicated.slice(0, 20), [], `${who}: duplicates of ${prefix}`);
  assert.deepEqual(moved.slice(0, 20), [], `${who}: records of ${prefix} not at their acknowledged offset`);
  assert.deepEqual(disorder.slice(0, 20), [], `${who}: records of ${prefix} out of order`);
}

/** The records found more than once, with every copy and the acknowledged one (for loss-epoch-copies.ts). */
export function duplicatedCopies(
  records: readonly { partition: number; offset: bigint; value: string }[],
  acked: ReadonlyMap<number, Ack>,
): { copies: Copy[]; ackedAt: Copy | null }[] {
  const where = new Map<number, Copy[]>();
  for (const r of records) {
    const i = indexOf(r.value);
    where.set(i, [...(where.get(i) ?? []), { partition: r.partition, offset: r.offset }]);
  }
  const out: { copies: Copy[]; ackedAt: Copy | null }[] = [];
  for (const [i, copies] of where) {
    if (copies.length < 2) continue;
    const ack = acked.get(i);
    out.push({ copies, ackedAt: ack !== undefined && ack.offset >= 0n ? ack : null });
  }
  return out;
}
