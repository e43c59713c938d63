// Incremental (cooperative-sticky) rebalance with librdkafka 2.0.2 through confluent-kafka-python
// against a real broker. Member A alone owns all 6 partitions; member B joins while records keep
// arriving. Checked from A's own rebalance callbacks, which apply the assignment themselves
// (incremental_assign / incremental_unassign, impossible in EAGER mode) and report the
// client's resulting assignment:
//  - A revokes exactly the partitions B receives, once, and never any other;
//  - the partitions A keeps are consumed by A alone, without a gap, across the rebalance;
//  - B starts each partition it receives at the offset A committed when revoking it;
//  - every record is consumed exactly once by the two members together.
import assert from 'node:assert/strict';
import { type ChildProcess, spawn } from 'node:child_process';
import { after, test } from 'node:test';
import { Kafka, logLevel } from 'kafkajs';
import { startTestBroker } from '../../src/testkit/index.js';
import { repoFile } from '../support/repo.js';
import { waitFor } from './support/consumer-procs.js';

const TOPIC = 't-coop';
const PARTITIONS = 6;
const SCRIPT = repoFile('test/interop/support/ck_coop_consumer.py');

type Event =
  | { kind: 'assign' | 'revoke' | 'lost' | 'owned'; partitions: number[] }
  | { kind: 'committed'; offsets: Array<[number, number]> };

/** One confluent-kafka consumer process and everything it reported. */
class CoopMember {
  readonly events: Event[] = [];
  readonly records: Array<{ partition: number; offset: number }> = [];
  readonly errors: string[] = [];
  stderr = '';
  readonly #child: ChildProcess;
  readonly #exited: Promise<void>;
  #buf = '';

  constructor(bootstrap: string, group: string) {
    this.#child = spawn('/usr/bin/python3', ['-u', SCRIPT, bootstrap, group, TOPIC], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    this.#child.stdout?.on('data', (d: Buffer) => {
      this.#buf += d.toString();
      for (let nl = this.#buf.indexOf('\n'); nl >= 0; nl = this.#buf.indexOf('\n')) {
        this.#line(this.#buf.slice(0, nl));
        this.#buf = this.#buf.slice(nl + 1);
      }
    });
    this.#child.stderr?.on('data', (d: Buffer) => (this.stderr += d.toString()));
    this.#exited = new Promise((r) => this.#child.once('exit', () => r()));
  }

  #line(line: string): void {
    const sp = line.indexOf(' ');
    const kind = line.slice(0, sp);
    const rest = line.slice(sp + 1);
    if (kind === 'm') {
      const [p, o] = rest.split(' ');
      this.records.push({ partition: Number(p), offset: Number(o) });
    } else if (kind === 'assign' || kind === 'revoke' || kind === 'lost' || kind === 'owned') {
      this.events.push({ kind, partitions: JSON.parse(rest) as number[] });
    } else if (kind === 'committed') {
      this.events.push({ kind, offsets: JSON.parse(rest) as Array<[number, number]> });
    } else if (kind === 'error') {
      this.errors.push(rest);
    }
  }

  /** The client's own latest view of its assignment (Consumer.assignment()). */
  owned(): number[] {
    const last = this.events.filter((e) => e.kind === 'owned').at(-1);
    return last?.kind === 'owned' ? last.partitions : [];
  }

  partitionsOf(kind: 'assign' | 'revoke' | 'lost'): number[][] {
    return this.events.flatMap((e) => (e.kind === kind ? [e.partitions] : []));
  }

  committed(): Map<number, number> {
    return new Map(this.events.flatMap((e) => (e.kind === 'committed' ? e.offsets : [])));
  }

  /** Offsets consumed from `partition`, in consumption order. */
  offsets(partition: number): number[] {
    return this.records.filter((r) => r.partition === partition).map((r) => r.offset);
  }

  async stop(signal: 'SIGTERM' | 'SIGKILL'): Promise<void> {
    if (this.#child.exitCode !== null || this.#child.signalCode !== null) return;
    this.#child.kill(signal);
    await this.#exited;
  }
}

const range = (n: number, from = 0) => Array.from({ length: n }, (_, i) => from + i);
const sorted = (xs: Iterable<number>) => [...xs].sort((a, b) => a - b);

test('cooperative-sticky: A gives B exactly what B gets, keeps the rest unrevoked, records once', {
  timeout: 90_000,
}, async () => {
  const broker = await startTestBroker({ overrides: { 'group.initial.rebalance.delay.ms': 0 } });
  const members: CoopMember[] = [];
  const kafka = new Kafka({ brokers: [broker.bootstrap], logLevel: logLevel.NOTHING });
  const producer = kafka.producer();
  let producing = true;
  after(async () => {
    producing = false;
    for (const m of members) await m.stop('SIGKILL');
    await producer.disconnect().catch(() => {});
    await broker.close();
  });
  const admin = kafka.admin();
  await admin.connect();
  await admin.createTopics({ topics: [{ topic: TOPIC, numPartitions: PARTITIONS }] });
  await producer.connect();
  const produced = new Array<number>(PARTITIONS).fill(0);
  const send = async (perPartition: number) => {
    const messages = range(PARTITIONS).flatMap((partition) =>
      range(perPartition).map((i) => ({ partition, value: `${partition}-${produced[partition]! + i}` })),
    );
    await producer.send({ topic: TOPIC, messages });
    for (const p of range(PARTITIONS)) produced[p]! += perPartition;
  };
  const total = () => produced.reduce((a, b) => a + b, 0);
  const consumedDistinct = () =>
    new Set(members.flatMap((m) => m.records.map((r) => `${r.partition}:${r.offset}`))).size;

  // A alone: all six partitions, and it catches up with the first 600 records.
  await send(100);
  const a = new CoopMember(broker.bootstrap, 'g-coop');
  members.push(a);
  await waitFor(() => a.owned().length === PARTITIONS, 30_000, 'A owns all 6 partitions');
  await waitFor(() => a.records.length === total(), 20_000, 'A consumed the first 600');

  // Records keep arriving while B joins, so A holds uncommitted positions on every partition
  // when it has to hand some over.
  const background = (async () => {
    while (producing) {
      await send(5);
      await new Promise((r) => setTimeout(r, 50));
    }
  })();
  const b = new CoopMember(broker.bootstrap, 'g-coop');
  members.push(b);
  await waitFor(() => a.owned().length === 3 && b.owned().length === 3, 40_000, 'a 3/3 split');
  await new Promise((r) => setTimeout(r, 1000)); // both consume for a while after the split
  producing = false;
  await background;
  await waitFor(() => consumedDistinct() === total(), 30_000, `all ${total()} records consumed`);

  const detail = () => JSON.stringify({ a: a.events, b: b.events, aErr: a.errors, bErr: b.errors });
  assert.deepEqual([...a.errors, ...b.errors], [], detail());
  assert.deepEqual([...a.partitionsOf('lost'), ...b.partitionsOf('lost')], [], 'no partition lost');
  // Incremental assignment: A's first callback gave it everything.
  assert.deepEqual(a.partitionsOf('assign')[0], range(PARTITIONS), detail());

  // A revoked once, exactly the partitions B was given; B never revoked anything.
  const revokes = a.partitionsOf('revoke');
  assert.equal(revokes.length, 1, `A revoked in exactly one callback: ${detail()}`);
  const handedOver = sorted(revokes[0] ?? []);
  const bGot = sorted(b.partitionsOf('assign').flat());
  assert.equal(handedOver.length, 3);
  assert.deepEqual(handedOver, bGot, 'A gave up exactly what B received');
  assert.deepEqual(b.partitionsOf('revoke'), []);
  const kept = range(PARTITIONS).filter((p) => !handedOver.includes(p));
  assert.deepEqual(a.owned(), kept, "A's client-side assignment is the partitions it kept");
  assert.deepEqual(b.owned(), handedOver, "B's client-side assignment is what A handed over");
  // A received no partition after its first assignment (any later assign callbacks are empty).
  assert.deepEqual(a.partitionsOf('assign').slice(1).flat(), []);

  // Partitions A kept: consumed by A alone, every offset once and in order, across the rebalance.
  for (const p of kept) {
    assert.deepEqual(a.offsets(p), range(produced[p]!), `partition ${p} (kept by A)`);
    assert.deepEqual(b.offsets(p), [], `B never read partition ${p}`);
  }
  // Partitions handed over: A committed its position when revoking; B started exactly there.
  const committed = a.committed();
  for (const p of handedOver) {
    const at = committed.get(p);
    assert.ok(at !== undefined && at >= 100, `A committed partition ${p} on revoke: ${detail()}`);
    assert.deepEqual(a.offsets(p), range(at), `A read partition ${p} up to its commit`);
    assert.deepEqual(b.offsets(p), range(produced[p]! - at, at), `B read partition ${p} from ${at}`);
  }
  assert.ok(
    handedOver.some((p) => (committed.get(p) ?? 0) < produced[p]!),
    'B had records to take over on at least one partition',
  );
  assert.equal(a.records.length + b.records.length, total(), 'each record consumed exactly once');

  const d = (await admin.describeGroups(['g-coop'])).groups[0];
  assert.equal(d?.state, 'Stable');
  assert.equal(d?.protocol, 'cooperative-sticky');
  assert.equal(d?.members.length, 2);
  await admin.disconnect();
  await Promise.all([a.stop('SIGTERM'), b.stop('SIGTERM')]);
});
