// KIP-848 online migration end to end (group.consumer.migration.policy, Kafka's default
// `bidirectional`): two kafkajs consumers — or two confluent-kafka-python ones (librdkafka
// 2.0.2) — (classic protocol, eager) consume a classic group while
// records keep coming; our consumer joins with groupProtocol 'consumer', which turns the group
// into a consumer group whose kafkajs members go on through JoinGroup/SyncGroup/Heartbeat; then
// ours leaves and the group is classic again, kafkajs taking everything back. Every member
// commits what it processed before it returns; the test records when each member processed
// which partition and checks that
// - no two members ever processed one partition at the same time,
// - a record processed twice was never committed before its second processing (at least once,
//   nothing more), and every record produced was processed.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { Kafka, logLevel } from 'kafkajs';
import { Producer } from '../../../src/client/producer/producer.js';
import { listGroupsApi } from '../../../src/protocol/messages/generated/list-groups.js';
import type { TestBroker } from '../../../src/testkit/index.js';
import { RawClient } from '../../broker/support/raw-client.js';
import { Proc } from '../../broker/txn/interop-support.js';
import { scaled, TestTimeoutError } from '../../support/timeouts.js';
import { broker, consumer, createTopic, sleep } from './support.js';

const PARTITIONS = 6;
/** The topic of the scenario running (one per scenario, so each reads only its own records). */
let TOPIC = '';

let b: TestBroker;
before(async () => {
  b = await broker({ 'group.consumer.heartbeat.interval.ms': 200 });
});
after(async () => {
  await b?.close();
});

async function waitFor(what: string, cond: () => boolean | Promise<boolean>, ms = 60_000, detail = () => '') {
  const limit = scaled(ms);
  const deadline = Date.now() + limit;
  while (!(await cond())) {
    if (Date.now() > deadline) throw new TestTimeoutError(what, limit, detail());
    await sleep(50);
  }
}

async function groupType(group: string): Promise<string | undefined> {
  const c = await RawClient.connect(b.port);
  try {
    const r = await c.request(listGroupsApi, 5, { statesFilter: [], typesFilter: [] });
    return r.groups.find((g) => g.groupId === group)?.groupType;
  } finally {
    c.close();
  }
}

/** What the members did: per partition, who processed which offset and when, and the commits. */
class Ledger {
  /** partition → processing spans [member, start, end]. */
  readonly spans = new Map<number, Array<{ who: string; start: number; end: number }>>();
  /** `partition/offset` → processings. */
  readonly processed = new Map<string, Array<{ who: string; at: number }>>();
  /** partition → acknowledged commits (next offset to read). */
  readonly commits = new Map<number, Array<{ offset: bigint; at: number }>>();

  span(who: string, partition: number, start: number, end: number, offsets: bigint[]): void {
    const list = this.spans.get(partition) ?? [];
    list.push({ who, start, end });
    this.spans.set(partition, list);
    for (const o of offsets) {
      const k = `${partition}/${o}`;
      const l = this.processed.get(k) ?? [];
      l.push({ who, at: start });
      this.processed.set(k, l);
    }
  }

  committed(partition: number, offset: bigint, at: number): void {
    const list = this.commits.get(partition) ?? [];
    list.push({ offset, at });
    this.commits.set(partition, list);
  }

  /** The highest offset committed (acknowledged) for `partition` strictly before `t`. */
  committedBefore(partition: number, t: number): bigint {
    let best = -1n;
    for (const c of this.commits.get(partition) ?? []) if (c.at < t && c.offset > best) best = c.offset;
    return best;
  }

  members(): Set<string> {
    return new Set([...this.spans.values()].flat().map((s) => s.who));
  }
}

interface ClassicMember {
  stop(): Promise<void>;
  detail(): string;
}

function kafkajsMember(name: string, group: string, ledger: Ledger): ClassicMember {
  const kafka = new Kafka({
    clientId: name,
    brokers: [b.bootstrap],
    logLevel: logLevel.NOTHING,
    retry: { retries: 20, initialRetryTime: 100, maxRetryTime: 1000 },
  });
  const c = kafka.consumer({
    groupId: group,
    sessionTimeout: 10_000,
    heartbeatInterval: 300,
    rebalanceTimeout: 30_000,
    maxWaitTimeInMs: 100,
  });
  const started = (async () => {
    await c.connect();
    await c.subscribe({ topic: TOPIC, fromBeginning: true });
    await c.run({
      autoCommit: false,
      eachBatch: async ({ batch, heartbeat, resolveOffset }) => {
        if (batch.messages.length === 0) return;
        const start = Date.now();
        const offsets = batch.messages.map((m) => BigInt(m.offset));
        const next = offsets.at(-1)! + 1n;
        try {
          // Fails (and kafkajs delivers the batch again) when the member lost its generation.
          await c.commitOffsets([{ topic: TOPIC, partition: batch.partition, offset: String(next) }]);
          ledger.committed(batch.partition, next, Date.now());
          // Committed: kafkajs must not deliver the batch again if the heartbeat fails.
          resolveOffset(batch.messages.at(-1)!.offset);
        } finally {
          ledger.span(name, batch.partition, start, Date.now(), offsets);
        }
        await heartbeat();
      },
    });
  })();
  return {
    stop: async () => {
      await started;
      await c.disconnect();
    },
    detail: () => '',
  };
}

/**
 * confluent-kafka-python (librdkafka 2.0.2, eager range): processes what consume() returns, then
 * commits it synchronously; the revoke callback makes librdkafka wait for that before it rejoins.
 */
const CK_MEMBER = `
import sys, time
from confluent_kafka import Consumer, KafkaException, TopicPartition
bootstrap, group, topic = sys.argv[1:4]
c = Consumer({'bootstrap.servers': bootstrap, 'group.id': group, 'enable.auto.commit': False,
              'auto.offset.reset': 'earliest', 'session.timeout.ms': 10000,
              'heartbeat.interval.ms': 300, 'partition.assignment.strategy': 'range',
              'fetch.wait.max.ms': 100})
c.subscribe([topic], on_revoke=lambda consumer, partitions: None)
while True:
    msgs = [m for m in c.consume(num_messages=100, timeout=0.1) if m.error() is None]
    if not msgs:
        continue
    start = int(time.time() * 1000)
    by = {}
    for m in msgs:
        by.setdefault(m.partition(), []).append(m.offset())
    done = {}
    try:
        for tp in c.commit(offsets=[TopicPartition(topic, p, max(o) + 1) for p, o in by.items()], asynchronous=False):
            if tp.error is None:
                done[tp.partition] = tp.offset
    except KafkaException:
        pass
    end = int(time.time() * 1000)
    for p, o in by.items():
        print('s %d %d %d %s' % (p, start, end, ','.join(map(str, o))))
        if p in done:
            print('c %d %d %d' % (p, done[p], end))
`;

function ckMember(name: string, group: string, ledger: Ledger): ClassicMember {
  const proc = Proc.python(CK_MEMBER, [b.bootstrap, group, TOPIC]);
  let read = 0;
  const timer = setInterval(() => {
    for (; read < proc.lines.length; read++) {
      const [kind, p, a, c, offsets] = proc.lines[read]!.split(' ');
      if (kind === 's')
        ledger.span(
          name,
          Number(p),
          Number(a),
          Number(c),
          offsets!.split(',').map((o) => BigInt(o)),
        );
      else if (kind === 'c') ledger.committed(Number(p), BigInt(a!), Number(c));
    }
  }, 50);
  return {
    stop: async () => {
      await proc.kill('SIGTERM');
      clearInterval(timer);
    },
    detail: () => proc.stderr.slice(-1500),
  };
}

async function upgradeAndDowngrade(
  group: string,
  classicMember: (name: string, group: string, ledger: Ledger) => ClassicMember,
): Promise<void> {
  TOPIC = `${group}-topic`;
  await createTopic(b, TOPIC, PARTITIONS);
  const ledger = new Ledger();
  const producer = new Producer({ bootstrapServers: b.bootstrap, lingerMs: 5 });
  let produced = 0;
  let producing = true;
  const feeder = (async () => {
    while (producing) {
      const sends: Promise<unknown>[] = [];
      for (let k = 0; k < PARTITIONS * 2; k++, produced++)
        sends.push(
          producer.send({
            topic: TOPIC,
            partition: produced % PARTITIONS,
            value: `${group}-${produced}`,
          }) as Promise<unknown>,
        );
      await Promise.all(sends);
      await sleep(100);
    }
  })();
  const classicA = classicMember('classic-a', group, ledger);
  const classicB = classicMember('classic-b', group, ledger);
  const progress = () =>
    `produced ${produced}, processed ${ledger.processed.size}, members ${[...ledger.members()]} ${classicA.detail()}`;
  try {
    await waitFor('both kafkajs members processing', () => ledger.members().size === 2, 60_000, progress);
    assert.equal(await groupType(group), 'classic');

    // Our member joins with the consumer protocol: the group becomes a consumer group.
    const ours = consumer(b, {
      groupId: group,
      groupProtocol: 'consumer',
      enableAutoCommit: false,
      clientId: 'ours',
    });
    let oursPolling = true;
    ours.subscribe([TOPIC], {
      // Commit what was processed before a partition moves away.
      onPartitionsRevoked: async () => {
        await ours.commitSync().catch(() => {});
      },
    });
    const oursLoop = (async () => {
      while (oursPolling) {
        const records = await ours.poll(100);
        if (records.length === 0) continue;
        const start = Date.now();
        const byPartition = new Map<number, bigint[]>();
        for (const r of records)
          byPartition.set(r.partition, [...(byPartition.get(r.partition) ?? []), r.offset]);
        const next = [...byPartition].map(([partition, offsets]) => ({
          topic: TOPIC,
          partition,
          offset: offsets.at(-1)! + 1n,
        }));
        let committed = false;
        try {
          await ours.commitSync(next);
          committed = true;
        } catch {
          // Not committed: these records may be processed again, which the checks allow.
        }
        const end = Date.now();
        for (const [partition, offsets] of byPartition) ledger.span('ours', partition, start, end, offsets);
        if (committed) for (const n of next) ledger.committed(n.partition, n.offset, end);
      }
    })();
    await waitFor(
      'the group to become a consumer group',
      async () => (await groupType(group)) === 'consumer',
    );
    await waitFor('our member to process records', () => ledger.members().has('ours'), 60_000, progress);
    await waitFor(
      'our member to own a third of the partitions',
      () => ours.assignment().length === PARTITIONS / 3,
      60_000,
      () => `ours owns ${ours.assignment().length}; ${progress()}`,
    );
    const oursSince = produced;
    await waitFor('a few more rounds with three members', () => produced > oursSince + 120, 60_000, progress);

    // Ours leaves: the last consumer-protocol member, so the group turns classic again.
    oursPolling = false;
    await oursLoop;
    await ours.close();
    await waitFor('the group to be classic again', async () => (await groupType(group)) === 'classic');
    const classicSince = produced;
    await waitFor(
      'a few more rounds with the kafkajs members',
      () => produced > classicSince + 120,
      60_000,
      progress,
    );
    producing = false;
    await feeder;
    await waitFor(
      `every one of the ${produced} records processed`,
      () => ledger.processed.size === produced,
      60_000,
      progress,
    );
  } finally {
    producing = false;
    await feeder.catch(() => {});
    await producer.close();
    await Promise.all([classicA.stop(), classicB.stop()]);
  }

  // No partition processed by two members at the same time.
  for (const [partition, spans] of ledger.spans) {
    const sorted = [...spans].sort((x, y) => x.start - y.start);
    for (let i = 1; i < sorted.length; i++) {
      const prev = sorted.slice(0, i).filter((s) => s.who !== sorted[i]!.who);
      for (const p of prev)
        assert.ok(
          p.end <= sorted[i]!.start,
          `partition ${partition}: ${p.who} [${p.start}, ${p.end}] overlaps ${sorted[i]!.who} [${sorted[i]!.start}, ${sorted[i]!.end}]`,
        );
    }
  }
  // A record processed again was not committed before (Kafka's at-least-once, nothing beyond).
  let again = 0;
  for (const [k, list] of ledger.processed) {
    const [partition, offset] = k.split('/').map((x) => BigInt(x)) as [bigint, bigint];
    for (const later of list.slice(1)) {
      again++;
      assert.ok(
        ledger.committedBefore(Number(partition), later.at) <= offset,
        `${k} processed again by ${later.who} after a commit past it`,
      );
    }
  }
  assert.ok(ledger.members().has('ours'));
  process.stdout.write(
    `# ${produced} records, ${again} processed twice (uncommitted when their partition moved)\n`,
  );
}

test(
  'a classic group of kafkajs members is upgraded by our consumer-protocol member and downgraded when it leaves; no partition is ever processed by two members at once',
  {
    timeout: 300_000,
  },
  () => upgradeAndDowngrade('migration-kafkajs', kafkajsMember),
);

test(
  'the same with confluent-kafka-python members (librdkafka 2.0.2, eager range)',
  {
    timeout: 300_000,
  },
  () => upgradeAndDowngrade('migration-librdkafka', ckMember),
);
