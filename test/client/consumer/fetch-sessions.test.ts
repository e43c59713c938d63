// Our consumer in incremental fetch sessions (KIP-227) against a real broker: many partitions
// consumed while records keep arriving, every record exactly once; the broker holds the
// consumer's session while it reads and drops it on close; `fetchSessions: false` stays
// sessionless.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import type { TestBroker } from '../../../src/testkit/index.js';
import { scaled } from '../../support/timeouts.js';
import { broker, consumer, createTopic, produce, str } from './support.js';

const PARTITIONS = 40;
let b: TestBroker;
before(async () => {
  b = await broker();
  await createTopic(b, 'sessions-40', PARTITIONS);
});
after(async () => {
  await b?.close();
});

async function consumeWhileProducing(sessions: boolean, start: number): Promise<number> {
  const c = consumer(b, { fetchSessions: sessions, fetchMaxWaitMs: 100 });
  const cache = b.services.fetchSessions!;
  let sessionsSeen = 0;
  try {
    c.assign(Array.from({ length: PARTITIONS }, (_, partition) => ({ topic: 'sessions-40', partition })));
    c.seekToEnd(Array.from({ length: PARTITIONS }, (_, partition) => ({ topic: 'sessions-40', partition })));
    await c.poll(200);
    // Records arrive in three waves while the consumer polls.
    const total = 1500;
    const producing = (async () => {
      for (let wave = 0; wave < 3; wave++)
        await produce(b, 'sessions-40', total / 3, PARTITIONS, start + (wave * total) / 3);
    })();
    const seen = new Map<string, number>();
    const deadline = Date.now() + scaled(60_000);
    while (seen.size < total) {
      assert.ok(Date.now() < deadline, `timed out: ${seen.size} of ${total} records`);
      for (const r of await c.poll(200)) {
        const k = str(r.key)!;
        seen.set(k, (seen.get(k) ?? 0) + 1);
      }
      sessionsSeen = Math.max(sessionsSeen, cache.size);
    }
    await producing;
    assert.deepEqual(await c.poll(300), [], 'nothing more, nothing twice');
    assert.ok(
      [...seen.values()].every((n) => n === 1),
      'every record once',
    );
  } finally {
    await c.close();
  }
  return sessionsSeen;
}

test('a consumer of 40 partitions in a fetch session gets every record once while producing', async () => {
  const seen = await consumeWhileProducing(true, 0);
  assert.ok(seen >= 1, 'the broker held the consumer’s session');
  assert.equal(b.services.fetchSessions!.size, 0, 'close() closed the session (FINAL_EPOCH)');
});

test('fetchSessions: false keeps the consumer sessionless', async () => {
  const seen = await consumeWhileProducing(false, 100_000);
  assert.equal(seen, 0);
});
