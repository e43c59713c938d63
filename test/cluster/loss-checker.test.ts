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
// A producer that dies or reports a fatal error fails the test at once with its error; teardown
// then kills the Python process, the brokers and ZooKeeper by pid (also if the runner ends this
// process first). SAMSA_LOSS_DEBUG_DIR=<dir> keeps librdkafka's debug log and the brokers' output.
import assert from 'node:assert/strict';
import { appendFileSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { Admin } from '../../src/client/index.js';
import { startTestCluster, type TestCluster } from '../../src/testkit/cluster.js';
import { scaled } from '../support/timeouts.js';
import {
  CK,
  checkTopic,
  DEBUG_DIR,
  duplicatedCopies,
  LiveReader,
  OURS,
  OurProducer,
  PARTITIONS,
  PythonProducer,
  readAllKcat,
  readAllOurs,
  TOPICS,
} from './loss-clients.js';
import { clientEpochCopies } from './loss-epoch-copies.js';
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

let cluster: TestCluster;
let python: PythonProducer | null = null;

/** Resolves once `p` settles or `ms` passed, whichever comes first; never rejects. */
async function settleWithin(p: Promise<unknown>, ms: number): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  await Promise.race([p.catch(() => {}), new Promise((r) => (timer = setTimeout(r, ms)))]);
  clearTimeout(timer);
}

/**
 * If this process ends before `after` ran (the runner's file timeout sends SIGTERM, or a signal
 * from outside), the brokers and the Python producer would outlive it: kill them by pid first.
 * ZooKeeper's testkit kills its own server on 'exit', which a signal exit here also runs.
 */
function killChildrenOnExit(): void {
  const killAll = () => {
    const pids = [python?.running ? python.pid : undefined];
    for (const id of cluster?.nodeIds ?? []) {
      const b = cluster.broker(id);
      if (b.running) pids.push(b.pid ?? undefined);
    }
    for (const pid of pids) {
      if (pid === undefined) continue;
      try {
        process.kill(pid, 'SIGCONT');
        process.kill(pid, 'SIGKILL');
      } catch {
        // already gone
      }
    }
  };
  process.once('exit', killAll);
  for (const signal of ['SIGTERM', 'SIGINT', 'SIGHUP'] as const)
    process.once(signal, () => {
      killAll();
      process.exit(128 + (signal === 'SIGTERM' ? 15 : signal === 'SIGINT' ? 2 : 1));
    });
}

/**
 * Debug runs: every broker's output in DEBUG_DIR/broker-<id>.log, across restarts (the testkit
 * keeps only the current process's output).
 */
function copyBrokerOutputs(dir: string): () => void {
  const seen = new Map<number, string>();
  const copy = () => {
    for (const id of cluster.nodeIds) {
      const out = cluster.broker(id).output();
      const before = seen.get(id) ?? '';
      if (out === before) continue;
      // The testkit trims its copy to the last 200 KB and starts over on a restart.
      const tail = before.slice(-2000);
      const at = tail === '' ? 0 : out.lastIndexOf(tail);
      appendFileSync(
        join(dir, `broker-${id}.log`),
        at >= 0 ? out.slice(at + tail.length) : `\n----- broker ${id}: new process -----\n${out}`,
      );
      seen.set(id, out);
    }
  };
  const timer = setInterval(copy, 200);
  return () => {
    clearInterval(timer);
    copy();
  };
}
let stopCopying: (() => void) | null = null;

before(async () => {
  killChildrenOnExit();
  cluster = await startTestCluster({
    brokers: 3,
    sessionTimeoutMs: SESSION_MS,
    // A restart loads the sources again: minutes at a load of 30 on 2 cores.
    startTimeoutMs: scaled(300_000),
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
  if (DEBUG_DIR !== null) {
    mkdirSync(DEBUG_DIR, { recursive: true });
    stopCopying = copyBrokerOutputs(DEBUG_DIR);
  }
});

after(async () => {
  await python?.kill();
  stopCopying?.();
  await cluster?.close();
});

const say = (s: string) => process.stdout.write(`# ${s}\n`);

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
  python = py;
  const ours = new OurProducer(bootstrap);
  const reader = new LiveReader(bootstrap);
  const t0 = Date.now();
  let faults = 0;
  let longestFaultMs = 0;
  let failure: unknown = null;
  try {
    const progress = async (what: string) => {
      const [a, b] = [py.acked.size, ours.acked.size];
      await waitFor(
        `both producers to get acknowledgements ${what} (python ${a}, ours ${b} so far)`,
        () => {
          py.check();
          return py.acked.size >= a + 20 && ours.acked.size >= b + 20;
        },
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
      const tr = Date.now();
      if (action === 'kill') await cluster.restart(target);
      else cluster.resume(target);
      const restartedMs = Date.now() - tr;
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
          `${action === 'kill' ? `listening again ${restartedMs} ms later, ` : ''}` +
          `back in every ISR after ${Date.now() - tf} ms; acked python ${py.acked.size}, ours ${ours.acked.size}`,
      );
    }
    py.check();
  } catch (e) {
    failure = e;
  }
  if (failure !== null) {
    // Nothing of a failed run may wait on the cluster or on the producers' own (10-minute)
    // timeouts: the Python process dies now, our clients give up within seconds, and the
    // brokers and ZooKeeper are killed by `after` (or by `killChildrenOnExit` if the runner ends
    // this process first).
    await py.kill();
    await settleWithin(ours.stop(scaled(5000)), scaled(30_000));
    await settleWithin(reader.stop(), scaled(30_000));
    const why = py.problem();
    const message = failure instanceof Error ? failure.message : String(failure);
    throw new Error(`${message}${why !== null && !message.includes(why) ? `\n(${why})` : ''}`, {
      cause: failure,
    });
  }
  try {
    await ours.stop();
    assert.equal(await py.stop(), 0, 'confluent-kafka flushed everything');
  } finally {
    await py.kill();
    await settleWithin(reader.stop(), scaled(30_000));
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
  // librdkafka 2.0.2 may re-send batches under a bumped epoch after a leader change (librdkafka
  // #4953): copies no broker can refuse. Only those are set aside, after reading the producer id
  // and epoch of every copy; our producer gets no such allowance.
  const epochCopies = await clientEpochCopies(
    cluster.bootstrap(),
    CK,
    duplicatedCopies(oursRead.get(CK)!, py.acked),
  );
  if (epochCopies.described.length > 0)
    say(
      `librdkafka re-sent ${epochCopies.keys.size} records under a new producer epoch: ${epochCopies.described.slice(0, 3).join('; ')}`,
    );
  checkTopic('our consumer', oursRead.get(CK)!, 'ck', py.acked, epochCopies.keys);
  checkTopic('our consumer', oursRead.get(OURS)!, 'ours', ours.acked);
  checkTopic('kcat', await readAllKcat(cluster.bootstrap(), CK), 'ck', py.acked, epochCopies.keys);
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
