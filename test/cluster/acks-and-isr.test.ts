// acks=all against the in-sync replica set on three broker processes over a real ZooKeeper
// (topic RF 3, min.insync.replicas 2; the partition is led by the controller, so the followers
// taken down never carry the controller with them):
// - a follower that stops fetching (kill -9, SIGSTOP) leaves the ISR after replica.lag.time.max.ms
//   while its ZooKeeper session still lives — the leader's AlterPartition, not the session — and
//   Metadata and DescribeTopics show the partition under-replicated;
// - one follower down: acks=all still accepted (ISR 2 ≥ min 2), from our producer and kcat;
// - the second down: a write waiting for it ends NOT_ENOUGH_REPLICAS_AFTER_APPEND once the ISR
//   shrinks, then acks=all is refused NOT_ENOUGH_REPLICAS before appending (raw Produce, our
//   producer without retries, kcat), acks=1 still works, and our idempotent producer keeps its
//   record until a follower is back, then it is written — once;
// - the followers return and the ISR grows back to all three.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { Admin, KafkaResponseError, Producer } from '../../src/client/index.js';
import { ErrorCode } from '../../src/protocol/errors.js';
import { startTestCluster, type TestCluster } from '../../src/testkit/cluster.js';
import { exec } from '../interop/support/exec.js';
import { scaled } from '../support/timeouts.js';
import { controllerZnodes, rawProduce, sleep, waitForFullIsr, waitForViews } from './support.js';

/** Long enough that a stopped follower leaves the ISR by lagging, well before its session ends. */
const SESSION_MS = 20_000;
const LAG_MS = 3000;
const TOPIC = 'isr';

let cluster: TestCluster;

before(async () => {
  cluster = await startTestCluster({
    brokers: 3,
    sessionTimeoutMs: SESSION_MS,
    overrides: {
      'min.insync.replicas': 2,
      'replica.lag.time.max.ms': LAG_MS,
      'replica.fetch.backoff.ms': 200,
      'auto.leader.rebalance.enable': false,
      'auto.create.topics.enable': false,
      'offsets.topic.num.partitions': 3,
    },
  });
});
after(async () => {
  await cluster?.close();
});

const kcatProduce = (bootstrap: string, lines: string, ...props: string[]) =>
  exec(
    'kcat',
    ['-b', bootstrap, '-P', '-t', TOPIC, '-p', '0', '-X', 'acks=all', ...props.flatMap((p) => ['-X', p])],
    { input: lines, timeoutMs: 90_000 },
  );

test('acks=all and the ISR: one follower down still accepted, two down NOT_ENOUGH_REPLICAS, the ISR shrinks and grows back', {
  timeout: scaled(600_000),
}, async () => {
  const { controllerId: leader } = await controllerZnodes(cluster);
  const [f1, f2] = cluster.nodeIds.filter((id) => id !== leader) as [number, number];
  const admin = new Admin({ bootstrapServers: cluster.bootstrap() });
  await admin.createTopics([
    { name: TOPIC, replicaAssignment: { 0: [leader, f1, f2] }, configs: { 'min.insync.replicas': '2' } },
  ]);
  await waitForFullIsr(cluster, [TOPIC]);
  const isrOf = (v: { topics: Map<string, { isr: number[]; replicas: number[]; leader: number }[]> }) =>
    [...(v.topics.get(TOPIC)?.[0]?.isr ?? [])].sort().join(',');
  const sorted = (...ids: number[]) => [...ids].sort().join(',');
  const port = cluster.broker(leader).port!;

  const producer = new Producer({
    bootstrapServers: cluster.bootstrap(),
    acks: 'all',
    requestTimeoutMs: 20_000,
  });
  const written: string[] = [];
  const send = async (value: string) => {
    const md = await producer.send({ topic: TOPIC, partition: 0, value });
    written.push(value);
    return md;
  };
  await send('all-three');

  // 1. kill -9 of a follower. It stays "caught up" while the leader has nothing newer (Kafka's
  // rule), so write: acks=all waits for it until it has lagged replica.lag.time.max.ms and the
  // leader dropped it from the ISR, then is accepted (ISR 2 ≥ min.insync.replicas 2).
  const t1 = Date.now();
  await cluster.kill(f1);
  await send('one-down');
  let firstSeen: { atMs: number; brokers: number[] } | null = null;
  const shrunk = await waitForViews(
    cluster,
    `broker ${f1} out of the ISR after replica.lag.time.max.ms`,
    (v) => {
      const ok = isrOf(v) === sorted(leader, f2);
      if (ok && firstSeen === null) firstSeen = { atMs: Date.now() - t1, brokers: v.brokers };
      return ok;
    },
    60_000,
    [leader, f2],
  );
  const seen = firstSeen as { atMs: number; brokers: number[] } | null;
  assert.ok(seen !== null);
  assert.ok(seen.atMs >= LAG_MS - 1000, `not before replica.lag.time.max.ms (${LAG_MS} ms): ${seen.atMs} ms`);
  // A session ends at the earliest 2/3 of its timeout after the broker's last ping.
  if (seen.atMs < (SESSION_MS * 2) / 3)
    assert.ok(
      seen.brokers.includes(f1),
      `by lag, not by its session (${seen.atMs} ms, brokers ${seen.brokers})`,
    );
  process.stdout.write(
    `# ISR without the killed follower after ${seen.atMs} ms (replica.lag.time.max.ms ${LAG_MS}, session ${SESSION_MS})\n`,
  );
  for (const v of shrunk.values()) {
    const p = v.topics.get(TOPIC)![0]!;
    assert.equal(p.leader, leader);
    assert.equal(p.replicas.length, 3, 'under-replicated: 3 replicas, 2 in sync');
  }
  const described = (await admin.describeTopics([TOPIC]))[0]!.partitions[0]!;
  assert.deepEqual([...described.isr].sort(), [leader, f2].sort());
  assert.equal(described.replicas.length, 3);

  // 2. One follower down: acks=all accepted at once, from ours and from kcat.
  await send('one-down-2');
  const kOne = await kcatProduce(cluster.bootstrap(), 'kcat-one-down\n');
  assert.equal(kOne.code, 0, kOne.stderr);
  assert.doesNotMatch(kOne.stderr, /fail|error/i);
  written.push('kcat-one-down');

  // 3. The second follower stops: a write already appended waits for it, and once the ISR shrank
  // below min.insync.replicas it is answered NOT_ENOUGH_REPLICAS_AFTER_APPEND.
  cluster.pause(f2);
  const t3 = Date.now();
  const appended = await rawProduce(port, TOPIC, 0, -1, ['raw-after-append'], 60_000);
  assert.equal(
    appended.errorCode,
    ErrorCode.NOT_ENOUGH_REPLICAS_AFTER_APPEND,
    `the write in flight while the ISR shrank (${Date.now() - t3} ms)`,
  );
  written.push('raw-after-append'); // It is in the leader's log: the followers will copy it.
  await waitForViews(cluster, 'the ISR down to the leader', (v) => isrOf(v) === `${leader}`, 60_000, [
    leader,
  ]);

  // Now acks=all is refused before appending: raw, ours without retries, kcat.
  const refused = await rawProduce(port, TOPIC, 0, -1, ['raw-refused']);
  assert.equal(refused.errorCode, ErrorCode.NOT_ENOUGH_REPLICAS);
  const noRetry = new Producer({
    bootstrapServers: cluster.broker(leader).bootstrap!,
    acks: 'all',
    enableIdempotence: false,
    retries: 0,
  });
  await assert.rejects(noRetry.send({ topic: TOPIC, partition: 0, value: 'ours-refused' }), (e: unknown) => {
    // With retries=0 the broker's answer is the error, or the cause of "not delivered".
    const cause = e instanceof Error && e.cause !== undefined ? e.cause : e;
    return cause instanceof KafkaResponseError && cause.errorCode === ErrorCode.NOT_ENOUGH_REPLICAS;
  });
  await noRetry.close();
  const kTwo = await kcatProduce(
    cluster.broker(leader).bootstrap!,
    'kcat-refused\n',
    'message.send.max.retries=0',
    'message.timeout.ms=20000',
  );
  assert.match(kTwo.stderr, /not enough in-sync replicas/i, `kcat reports it (exit ${kTwo.code})`);
  // acks=1 does not depend on the ISR.
  const one = await rawProduce(port, TOPIC, 0, 1, ['acks-1-alone']);
  assert.equal(one.errorCode, ErrorCode.NONE);
  written.push('acks-1-alone');
  // The idempotent producer retries: its record waits for a follower.
  let pendingDone = false;
  const pending = send('waits-for-a-follower').then((md) => {
    pendingDone = true;
    return md;
  });
  await sleep(2000);
  assert.equal(pendingDone, false, 'not acknowledged while the ISR is below min.insync.replicas');

  // 4. One follower returns: it catches up, rejoins, and the waiting record is written.
  cluster.resume(f2);
  await waitForViews(
    cluster,
    `broker ${f2} back in the ISR`,
    (v) => isrOf(v) === sorted(leader, f2),
    90_000,
    [leader, f2],
  );
  const md = await pending;
  assert.ok(md.offset >= 0n);
  await send('after-one-returned');
  const kBack = await kcatProduce(cluster.bootstrap(), 'kcat-one-returned\n');
  assert.equal(kBack.code, 0, kBack.stderr);
  written.push('kcat-one-returned');

  // 5. The killed follower restarts (once its old session is gone) and the ISR is whole again.
  await waitForViews(
    cluster,
    `broker ${f1}'s registration to expire`,
    (v) => !v.brokers.includes(f1),
    SESSION_MS + 60_000,
    [leader, f2],
  );
  await cluster.restart(f1);
  const whole = await waitForFullIsr(cluster, [TOPIC]);
  for (const v of whole.values()) assert.equal(isrOf(v), sorted(leader, f1, f2));
  const again = (await admin.describeTopics([TOPIC]))[0]!.partitions[0]!;
  assert.equal(again.isr.length, 3, 'no longer under-replicated');
  await send('all-three-again');
  await producer.close();
  await admin.close();

  // The log holds exactly the accepted writes (the refused ones nowhere), in order, once.
  const r = await exec('kcat', [
    '-b',
    cluster.bootstrap(),
    '-C',
    '-t',
    TOPIC,
    '-p',
    '0',
    '-o',
    'beginning',
    '-e',
    '-q',
  ]);
  assert.equal(r.code, 0, r.stderr);
  assert.deepEqual(
    r.stdout
      .toString()
      .split('\n')
      .filter((l) => l !== ''),
    written,
  );
});
