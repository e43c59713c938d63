// A broker restarted (clean SIGTERM, then SIGKILL) in the middle of transactions, with
// librdkafka 2.0.2 producers: one producer commits after the restart — its transaction,
// reloaded from __transaction_state, completes and all of its records become visible; another
// producer dies before the restart with its transaction open — the reloaded coordinator aborts
// it after transaction.timeout.ms, read_committed never sees it and the LSO catches up.
//
// transaction.timeout.ms runs from the transaction's first partition, across the restart (Kafka
// keeps the start time in __transaction_state and the reloaded coordinator aborts — and fences —
// a transaction older than its timeout). So only the orphan gets a short timeout: the committer's
// transaction spans the other producer's start-up, a broker shutdown and a broker start, which
// on a loaded machine takes far longer than a few seconds (it once took more than 4 s, and the
// commit failed with _FENCED).
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { kcatRead, latestOffsets, Proc, waitFor } from '../broker/txn/interop-support.js';
import { scaled } from '../support/timeouts.js';
import { BrokerProcess } from './support/groups-broker.js';

/** The committer's: the broker's transaction.max.timeout.ms, longer than the test may take. */
const COMMITTER_TXN_TIMEOUT_MS = 900_000;
/** The orphan's: short, so the reloaded coordinator aborts it soon after the restart. */
const ORPHAN_TXN_TIMEOUT_MS = 4000;

const PRODUCER = `
import sys, os, time
from confluent_kafka import Producer, KafkaException
bootstrap, topic, txid, go, timeout_ms = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4], int(sys.argv[5])
p = Producer({'bootstrap.servers': bootstrap, 'transactional.id': txid, 'transaction.timeout.ms': timeout_ms,
              'linger.ms': 5, 'reconnect.backoff.max.ms': 200})
p.init_transactions(30)
p.begin_transaction()
failed = []
def report(err, msg):
    if err is not None: failed.append(err.name())
for i in range(10):
    p.produce(topic, key=str(i), value=f'{txid}-{i}', partition=i % 2, on_delivery=report)
p.flush(30)
print('produced' if not failed else 'not delivered: ' + ','.join(failed), flush=True)
while not os.path.exists(go):
    time.sleep(0.05)
try:
    p.commit_transaction(60)
    print('committed', flush=True)
except KafkaException as e:
    print('failed', e.args[0].name(), flush=True)
`;

let broker: BrokerProcess;

before(async () => {
  broker = await BrokerProcess.create({
    'num.partitions': 2,
    'transaction.abort.timed.out.transaction.cleanup.interval.ms': 200,
  });
  await broker.start();
});

after(async () => {
  await broker.destroy();
});

for (const signal of ['SIGTERM', 'SIGKILL'] as const) {
  test(`broker ${signal} mid-transaction: a commit after the restart completes, an orphan is aborted`, {
    timeout: scaled(300_000),
  }, async () => {
    const topic = `restart-${signal}`;
    const go = join(broker.dataDir, `go-${signal}`);
    const committer = Proc.python(PRODUCER, [
      broker.bootstrap,
      topic,
      `committer-${signal}`,
      go,
      COMMITTER_TXN_TIMEOUT_MS,
    ]);
    const orphan = Proc.python(PRODUCER, [
      broker.bootstrap,
      topic,
      `orphan-${signal}`,
      `${go}-never`,
      ORPHAN_TXN_TIMEOUT_MS,
    ]);
    try {
      // flush() returns once every record is delivered or failed: both must have been written.
      const delivered = (l: string) => l === 'produced' || l.startsWith('not delivered');
      assert.equal(await committer.waitLine(delivered, 60_000), 'produced', committer.stderr);
      assert.equal(await orphan.waitLine(delivered, 60_000), 'produced', orphan.stderr);
      await orphan.kill('SIGKILL');
      await broker.stop(signal);
      await broker.start();
      // However fast this machine restarts, commit only once the orphan's timeout has passed:
      // the committer's transaction outlives a restart slower than a transaction timeout.
      await new Promise((r) => setTimeout(r, ORPHAN_TXN_TIMEOUT_MS));
      await writeFile(go, '');
      const outcome = await committer.waitLine((l) => l === 'committed' || l.startsWith('failed'), 90_000);
      assert.equal(
        outcome,
        'committed',
        `librdkafka's commit after the restart: ${outcome}\n${committer.stderr.slice(-2000)}`,
      );
    } finally {
      await committer.kill('SIGKILL');
      await orphan.kill('SIGKILL');
    }
    assert.ok(existsSync(go));
    // The orphan's transaction times out on the reloaded coordinator and stops holding the LSO.
    await waitFor(
      async () => {
        for (const p of [0, 1]) {
          const o = await latestOffsets(broker.port, topic, p);
          if (o.lso !== o.hw) return false;
        }
        return true;
      },
      30_000,
      'LSO = HW on every partition',
    );
    const committed = await kcatRead(broker.bootstrap, topic, 'read_committed');
    assert.deepEqual(
      committed.map((r) => r.value).sort(),
      Array.from({ length: 10 }, (_, i) => `committer-${signal}-${i}`).sort(),
    );
    const all = await kcatRead(broker.bootstrap, topic, 'read_uncommitted');
    assert.equal(
      all.filter((r) => r.value.startsWith('orphan-')).length,
      10,
      'the orphan wrote, but only read_uncommitted sees it',
    );
  });
}
