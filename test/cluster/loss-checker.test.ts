// Kafka's promise, checked end to end on three broker processes over a real ZooKeeper: with
// replication factor 3, min.insync.replicas 2, unclean election off, acks=all and idempotence,
// no acknowledged record is ever lost or duplicated while the test kills -9, SIGSTOPs (longer
// than the ZooKeeper session) and restarts leaders, followers and the controller, one broker at a
// time. Two producers write numbered records meanwhile — confluent-kafka-python (librdkafka,
// loss_producer.py) and ours — and a consumer of ours reads all along. Afterwards:
// - every acknowledged record is in the log exactly once, at its acknowledged offset, and each
//   partition holds its producer's records in order (read back by our consumer and by kcat);
// - every replica's log, read straight from the stopped brokers' data dirs with the storage
//   layer, is identical batch for batch up to the smallest high watermark, which covers every
//   acknowledged record;
// - every record a consumer read during the faults is in the final log at the offset it was read
//   at (a record served above the high watermark and truncated later would not be).
import assert from 'node:assert/strict';
import { type ChildProcess, spawn } from 'node:child_process';
import { after, before, test } from 'node:test';
import { Admin, Consumer, Producer } from '../../src/client/index.js';
import { startTestCluster, type TestCluster } from '../../src/testkit/cluster.js';
import { startTestZooKeeper, type TestZooKeeper } from '../../src/testkit/zookeeper.js';
import { exec } from '../interop/support/exec.js';
import { repoFile } from '../support/repo.js';
import { scaled, TestTimeoutError } from '../support/timeouts.js';
import {
  batchEnd,
  batchRecords,
  brokerEpochs,
  controllerZnodes,
  type ReplicaLog,
  readReplicaLog,
  waitFor,
  waitForFullIsr,
  waitForViews,
} from './support.js';

/** Set when the file loads: the fault loop leaves the rest of the file's time limit to the checks. */
const FILE_START = Date.now();
/**
 * Faults aimed at (kill -9 + restart, or SIGSTOP past the session + SIGCONT, of a leader, a
 * follower or the controller, in turn): 30, or as many as fit in the file's time limit
 * (run-tests' per-file --test-timeout, 900 s × SAMSA_TEST_TIMEOUT_SCALE) minus RESERVE_MS for
 * starting and for the checks and minus the longest fault so far, but at least one of each kind (PLAN). A pause costs ~4-9 s, a kill
 * and restart ~8-20 s (more on a loaded machine): all 30 take ~180 s of faults on a quiet 2-core
 * machine (~3.3 min for the file); each run prints how many ran. A soak: SAMSA_LOSS_FAULTS=200
 * TEST_TIMEOUT_MS=3600000.
 */
const FAULTS = Number(process.env.SAMSA_LOSS_FAULTS ?? 30);
const FILE_LIMIT_MS = Number(process.env.TEST_TIMEOUT_MS ?? scaled(900_000));
const RESERVE_MS = scaled(180_000);
const SESSION_MS = 4000;
const PARTITIONS = 3;
/** Records per second of each producer. */
const RATE = 100;
const CK = 'loss-ck';
const OURS = 'loss-ours';
const TOPICS = [CK, OURS];
const SCRIPT = repoFile('test/cluster/loss_producer.py');

type Action = 'kill' | 'pause';
type Role = 'leader' | 'follower' | 'controller';
const PLAN: readonly [Action, Role][] = [
  ['kill', 'leader'],
  ['pause', 'follower'],
  ['kill', 'controller'],
  ['pause', 'leader'],
  ['kill', 'follower'],
  ['pause', 'controller'],
];

let zk: TestZooKeeper;
let cluster: TestCluster;

before(async () => {
  zk = await startTestZooKeeper();
  cluster = await startTestCluster({
    zookeeper: zk,
    brokers: 3,
    sessionTimeoutMs: SESSION_MS,
    overrides: {
      'min.insync.replicas': 2,
      'unclean.leader.election.enable': false,
      'auto.leader.rebalance.enable': false,
      'replica.lag.time.max.ms': 10_000,
      'replica.fetch.backoff.ms': 200,
      'offsets.topic.num.partitions': 3,
      'auto.create.topics.enable': false,
    },
  });
});
after(async () => {
  await cluster?.close();
  await zk?.stop();
});

const say = (s: string) => process.stdout.write(`# ${s}\n`);
const indexOf = (value: string) => Number(value.slice(value.lastIndexOf('-') + 1));

interface Ack {
  partition: number;
  offset: bigint;
}

/** confluent-kafka-python writing to CK until stopped; its delivery reports as they come. */
class PythonProducer {
  readonly acked = new Map<number, Ack>();
  readonly failed: string[] = [];
  readonly fatal: string[] = [];
  #buf = '';
  #stderr = '';
  #done: number | null = null;
  readonly #child: ChildProcess;
  readonly #exit: Promise<number | null>;

  constructor(bootstrap: string) {
    this.#child = spawn('/usr/bin/python3', [SCRIPT, bootstrap, CK, String(PARTITIONS), 'ck', String(RATE)], {
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    this.#exit = new Promise((r) => this.#child.once('exit', (code) => r(code)));
    this.#child.stdout!.on('data', (d: Buffer) => {
      this.#buf += d.toString();
      const lines = this.#buf.split('\n');
      this.#buf = lines.pop()!;
      for (const line of lines) this.#line(line);
    });
    this.#child.stderr!.on('data', (d: Buffer) => {
      this.#stderr = (this.#stderr + d.toString()).slice(-20_000);
    });
    this.#child.stdin!.on('error', () => {});
  }

  #line(line: string): void {
    const [kind, a, b, c] = line.split(' ');
    if (kind === 'A') this.acked.set(Number(a), { partition: Number(b), offset: BigInt(c!) });
    else if (kind === 'E') this.failed.push(line);
    else if (kind === 'F') this.fatal.push(line);
    else if (kind === 'DONE') this.#done = Number(a);
  }

  /** Closes its stdin (it flushes and exits); resolves with the number of records left unflushed. */
  async stop(): Promise<number> {
    this.#child.stdin!.end();
    const ms = scaled(660_000);
    const timer = setTimeout(() => this.#child.kill('SIGKILL'), ms);
    const code = await this.#exit;
    clearTimeout(timer);
    assert.equal(
      code,
      0,
      `loss_producer.py exited with ${code} (timed out after ${ms} ms?):\n${this.#stderr}`,
    );
    assert.notEqual(this.#done, null, 'loss_producer.py printed DONE');
    return this.#done!;
  }

  kill(): void {
    this.#child.kill('SIGKILL');
  }
}

/** Our idempotent producer writing to OURS at RATE until stopped. */
class OurProducer {
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

  async stop(): Promise<void> {
    this.#stopped = true;
    await this.#loop;
    await Promise.all([...this.#inFlight]);
    await this.#producer.close();
  }
}

/** A consumer of ours reading every partition from the beginning while the faults happen. */
class LiveReader {
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
async function readAllOurs(
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
async function readAllKcat(bootstrap: string, topic: string) {
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
function checkTopic(
  who: string,
  records: { partition: number; offset: bigint; value: string }[],
  prefix: string,
  acked: ReadonlyMap<number, Ack>,
): void {
  const where = new Map<number, { partition: number; offset: bigint }[]>();
  const last = new Map<number, number>();
  const disorder: string[] = [];
  for (const r of records) {
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

/** Picks the broker that plays `role` now, for the partition the fault cycles through. */
async function pickTarget(role: Role, k: number): Promise<{ target: number; why: string }> {
  const { controllerId } = await controllerZnodes(cluster);
  if (role === 'controller') return { target: controllerId, why: 'the controller' };
  const topic = TOPICS[k % TOPICS.length]!;
  const partition = Math.floor(k / TOPICS.length) % PARTITIONS;
  const views = await waitForFullIsr(cluster, TOPICS);
  const s = views.values().next().value!.topics.get(topic)![partition]!;
  if (role === 'leader') return { target: s.leader, why: `leader of ${topic}-${partition}` };
  const followers = s.replicas.filter((r) => r !== s.leader);
  const target = followers.find((r) => r !== controllerId) ?? followers[0]!;
  return { target, why: `follower of ${topic}-${partition}` };
}

test('no acknowledged record lost through kill -9 and SIGSTOP of leaders, followers and the controller (acks=all, RF 3, min ISR 2)', {
  timeout: FILE_LIMIT_MS,
}, async () => {
  const admin = new Admin({ bootstrapServers: cluster.bootstrap() });
  await admin.createTopics(
    TOPICS.map((name) => ({
      name,
      numPartitions: PARTITIONS,
      replicationFactor: 3,
      configs: { 'min.insync.replicas': '2', 'unclean.leader.election.enable': 'false' },
    })),
  );
  await admin.close();
  await waitForFullIsr(cluster, TOPICS);

  const bootstrap = cluster.bootstrap();
  const py = new PythonProducer(bootstrap);
  const ours = new OurProducer(bootstrap);
  const reader = new LiveReader(bootstrap);
  const t0 = Date.now();
  let faults = 0;
  let longestFaultMs = 0;
  try {
    const progress = async (what: string) => {
      const [a, b] = [py.acked.size, ours.acked.size];
      await waitFor(
        `both producers to get acknowledgements ${what} (python ${a}, ours ${b} so far)`,
        () => py.acked.size >= a + 20 && ours.acked.size >= b + 20,
        120_000,
        () =>
          `python failed ${py.failed.slice(0, 3)} fatal ${py.fatal}; ours failed ${ours.failed.slice(0, 3)}`,
      );
    };
    await progress('before the first fault');

    for (let k = 0; k < FAULTS; k++) {
      // A fault may take as long as the longest one so far (90 s at a load of 30): it must end
      // before the reserve for the checks begins.
      if (k >= PLAN.length && Date.now() - FILE_START > FILE_LIMIT_MS - RESERVE_MS - longestFaultMs) {
        say(`stopping after ${k} faults: the rest of the file's time limit is for the checks`);
        break;
      }
      const [action, role] = PLAN[k % PLAN.length]!;
      const { target, why } = await pickTarget(role, k);
      const others = cluster.nodeIds.filter((id) => id !== target);
      const epochBefore = (await brokerEpochs(cluster)).get(target)!;
      const tf = Date.now();
      if (action === 'kill') await cluster.kill(target);
      else cluster.pause(target);
      // The fault counts once the cluster noticed it: the session expired, the others dropped it.
      await waitForViews(
        cluster,
        `the others to drop broker ${target} after ${action}`,
        (v) => !v.brokers.includes(target) && v.controllerId >= 0 && v.controllerId !== target,
        SESSION_MS + 60_000,
        others,
      );
      const noticedMs = Date.now() - tf;
      if (action === 'kill') await cluster.restart(target);
      else cluster.resume(target);
      await waitForFullIsr(cluster, TOPICS, 240_000);
      const epochAfter = (await brokerEpochs(cluster)).get(target)!;
      assert.ok(
        epochAfter > epochBefore,
        `broker ${target} registered again (epoch ${epochBefore} → ${epochAfter})`,
      );
      await progress(`after fault ${k + 1}`);
      faults++;
      longestFaultMs = Math.max(longestFaultMs, Date.now() - tf);
      say(
        `fault ${k + 1}/${FAULTS}: ${action} ${why} (broker ${target}): dropped after ${noticedMs} ms, ` +
          `back in every ISR after ${Date.now() - tf} ms; acked python ${py.acked.size}, ours ${ours.acked.size}`,
      );
    }
  } finally {
    await ours.stop().catch(() => {});
    const left = await py.stop().catch((e: unknown) => {
      py.kill();
      throw e;
    });
    assert.equal(left, 0, 'confluent-kafka flushed everything');
    await reader.stop();
  }
  say(
    `${faults} faults done in ${Math.round((Date.now() - t0) / 1000)} s; python sent ${py.acked.size + py.failed.length}, ` +
      `ours ${ours.sent}; the live reader read ${reader.seen.size} records`,
  );
  assert.deepEqual(py.fatal, [], 'no fatal error in the idempotent librdkafka producer');
  assert.deepEqual(py.failed.slice(0, 10), [], 'no librdkafka delivery failed');
  assert.deepEqual(ours.failed.slice(0, 10), [], 'no delivery of ours failed');
  assert.equal(ours.acked.size, ours.sent, 'every record of ours acknowledged');
  assert.equal(reader.error, null, `the live reader kept reading: ${reader.error}`);
  assert.deepEqual(reader.conflicts.slice(0, 10), [], 'a consumer never saw an offset change its record');

  // Read back with two different consumers.
  const views = await waitForFullIsr(cluster, TOPICS);
  const oursRead = await readAllOurs(cluster.bootstrap());
  checkTopic('our consumer', oursRead.get(CK)!, 'ck', py.acked);
  checkTopic('our consumer', oursRead.get(OURS)!, 'ours', ours.acked);
  checkTopic('kcat', await readAllKcat(cluster.bootstrap(), CK), 'ck', py.acked);
  checkTopic('kcat', await readAllKcat(cluster.bootstrap(), OURS), 'ours', ours.acked);

  // For the reader of the log: how often a broker found it had not run for half a session.
  const stalls = cluster.nodeIds.flatMap((id) =>
    cluster
      .broker(id)
      .output()
      .split('\n')
      .filter((l) => /did not run for/.test(l))
      .map((l) => `${id}: ${/did not run for \d+ ms/.exec(l)![0]}`),
  );
  say(`stall fences since the brokers' last starts: ${stalls.length ? stalls.join(', ') : 'none'}`);

  // Stop every broker cleanly and compare the replicas batch for batch.
  const view = views.values().next().value!;
  for (const id of cluster.nodeIds) await cluster.stop(id);
  for (const topic of TOPICS) {
    for (let partition = 0; partition < PARTITIONS; partition++) {
      const replicas = view.topics.get(topic)![partition]!.replicas;
      const logs = new Map<number, ReplicaLog>();
      for (const id of replicas)
        logs.set(id, await readReplicaLog(cluster.broker(id).dataDir, topic, partition));
      const hw = [...logs.values()].reduce((m, l) => (l.highWatermark < m ? l.highWatermark : m), 1n << 62n);
      const upToHw = (l: ReplicaLog) => l.batches.filter((b) => batchEnd(b) <= hw);
      const [first, ...rest] = [...logs];
      const reference = upToHw(first![1]);
      for (const [id, log] of rest) {
        const mine = upToHw(log);
        assert.equal(
          mine.length,
          reference.length,
          `${topic}-${partition}: replicas ${first![0]} and ${id} hold as many batches below HW ${hw}`,
        );
        for (const [n, b] of mine.entries())
          assert.ok(
            b.equals(reference[n]!),
            `${topic}-${partition}: batch ${n} differs between brokers ${first![0]} and ${id}`,
          );
      }
      // Every acknowledged record is below that HW, on every replica.
      const acked = topic === CK ? py.acked : ours.acked;
      let maxAcked = -1n;
      for (const a of acked.values())
        if (a.partition === partition && a.offset > maxAcked) maxAcked = a.offset;
      assert.ok(
        hw > maxAcked,
        `${topic}-${partition}: smallest HW ${hw} covers the last acknowledged offset ${maxAcked}`,
      );
      // Everything a consumer read during the faults is in the final log where it was read.
      const stored = new Map<bigint, string | null>();
      for (const b of first![1].batches) for (const r of batchRecords(b)) stored.set(r.offset, r.value);
      for (const [key, value] of reader.seen) {
        const [t, p, o] = key.split('/');
        if (t !== topic || Number(p) !== partition) continue;
        assert.equal(stored.get(BigInt(o!)), value, `${key} was read as ${value} during the faults`);
      }
      say(
        `${topic}-${partition}: ${reference.length} batches identical on ${replicas.join(',')} up to HW ${hw}; ` +
          `LEOs ${[...logs].map(([id, l]) => `${id}:${l.logEndOffset}`).join(' ')}`,
      );
    }
  }
});
