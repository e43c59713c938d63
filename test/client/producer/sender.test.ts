// Sender + accumulator against an in-memory cluster that applies the broker's sequence rules:
// linger and size triggers, the buffer.memory bound, sequence numbering, ordering and no
// duplicates under injected failures with 5 requests in flight, retry classification, delivery
// timeout and the epoch bump after an unrecoverable sequence error.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { DeliveryTimeoutError, KafkaResponseError } from '../../../src/client/errors.js';
import {
  APPENDED_BATCH_FULL,
  APPENDED_NEW_BATCH,
  NO_MEMORY,
  RecordAccumulator,
} from '../../../src/client/producer/accumulator.js';
import { ErrorCode } from '../../../src/protocol/errors.js';
import { NO_HEADERS, setup } from './fake-cluster.js';

test('accumulator: a batch fills to batch.size, then a new one starts; memory is reserved per batch', () => {
  const acc = new RecordAccumulator(1024, 3000);
  const value = Buffer.alloc(100);
  const results: number[] = [];
  for (let i = 0; i < 12; i++) results.push(acc.append('t', 0, 0, null, value, NO_HEADERS, undefined, 0));
  assert.equal(results[0], APPENDED_NEW_BATCH);
  assert.ok(results.includes(APPENDED_BATCH_FULL));
  const q = acc.queue('t', 0);
  assert.equal(q.batches.length, 2);
  assert.equal(acc.pool.available, 3000 - 2 * 1024);
  // Third batch fits (952 left < 1024? no): the pool refuses a batch it cannot hold.
  let r = 0;
  for (let i = 0; i < 20 && r !== NO_MEMORY; i++)
    r = acc.append('t', 1, 0, null, value, NO_HEADERS, undefined, 0);
  assert.equal(r, NO_MEMORY);
  acc.release(q.batches.shift()!);
  assert.equal(acc.append('t', 1, 0, null, value, NO_HEADERS, undefined, 0), APPENDED_NEW_BATCH);
});

test('accumulator: a record larger than batch.size gets a batch of its own size', () => {
  const acc = new RecordAccumulator(1024, 1 << 20);
  assert.notEqual(acc.append('t', 0, 0, null, Buffer.alloc(5000), NO_HEADERS, undefined, 0), NO_MEMORY);
  assert.ok(acc.queue('t', 0).batches[0]!.reserved > 5000);
});

test('linger: a partial batch waits linger.ms; a full batch goes at once', async () => {
  const { cluster, send } = setup({ lingerMs: 150, idempotent: false });
  const t0 = Date.now();
  const first = send('t', 0, 'a');
  await new Promise((r) => setTimeout(r, 60));
  assert.equal(cluster.requests.length, 0, 'sent before linger.ms');
  await first;
  assert.ok(Date.now() - t0 >= 145, `delivered after ${Date.now() - t0} ms`);
  const { cluster: c2, send: send2, sender: s2 } = setup({ lingerMs: 10_000, idempotent: false }, 1024);
  const t1 = Date.now();
  const ps = [];
  for (let i = 0; i < 30; i++) ps.push(send2('t', 0, 'x'.repeat(50)));
  await Promise.race([ps[0], new Promise((r) => setTimeout(r, 2000))]);
  assert.ok(c2.requests.length >= 1 && Date.now() - t1 < 1000, 'full batch not sent immediately');
  s2.flushing++;
  s2.wakeup();
  await Promise.all(ps);
});

test('idempotence: sequences per partition, one batch per partition per request, ≤ 5 in flight', async () => {
  const { cluster, send, sender } = setup({}, 512);
  cluster.delayMs = 2;
  const ps = [];
  for (let i = 0; i < 400; i++) ps.push(send('t', i % 3, `v${i}`));
  sender.flushing++;
  sender.wakeup();
  const mds = await Promise.all(ps);
  assert.ok(cluster.inFlightMax <= 5 && cluster.inFlightMax >= 2, `max in flight ${cluster.inFlightMax}`);
  for (const req of cluster.requests) {
    for (const t of req.topicData) {
      const seen = new Set(t.partitionData.map((p) => p.index));
      assert.equal(seen.size, t.partitionData.length, 'two batches of one partition in one request');
    }
  }
  const seqs = new Map<number, number[]>();
  for (const req of cluster.requests) {
    for (const pd of req.topicData[0]!.partitionData) {
      const l = seqs.get(pd.index) ?? [];
      l.push(pd.records!.readInt32BE(53));
      seqs.set(pd.index, l);
    }
  }
  for (const [p, l] of seqs) {
    assert.equal(l[0], 0, `partition ${p} starts at 0`);
    for (let i = 1; i < l.length; i++) assert.ok(l[i]! > l[i - 1]!, `partition ${p} sequences increase`);
  }
  for (let p = 0; p < 3; p++) {
    const expect = [];
    for (let i = p; i < 400; i += 3) expect.push(`v${i}`);
    assert.deepEqual(cluster.log('t', p).values, expect);
  }
  assert.equal(mds[3]!.partition, 0);
  assert.equal(mds[3]!.offset, 1n);
});

test('ordering and no duplicates under injected errors and lost responses with 5 in flight', async () => {
  const { cluster, send, sender } = setup({}, 300);
  let n = 0;
  cluster.fault = (_t, _p, req) => {
    n++;
    if (req % 7 === 3) return 'drop-after'; // appended, response lost → resend must dedupe
    if (req % 11 === 5) return 'drop-before';
    if (n % 13 === 0) return ErrorCode.NOT_LEADER_OR_FOLLOWER;
    if (n % 17 === 0) return ErrorCode.REQUEST_TIMED_OUT;
    return 'ok';
  };
  const ps = [];
  for (let i = 0; i < 2000; i++) ps.push(send('t', i % 2, String(i)));
  sender.flushing++;
  sender.wakeup();
  await Promise.all(ps);
  for (let p = 0; p < 2; p++) {
    const expect = [];
    for (let i = p; i < 2000; i += 2) expect.push(String(i));
    assert.deepEqual(cluster.log('t', p).values, expect, `partition ${p} in order without duplicates`);
  }
  assert.ok(cluster.metadataRequests > 0, 'leader errors refresh metadata');
});

test('retry classification: non-retriable errors fail at once, retriable ones until delivery timeout', async () => {
  const { cluster, send, sender } = setup({ idempotent: false, lingerMs: 0 });
  cluster.fault = () => ErrorCode.MESSAGE_TOO_LARGE;
  sender.flushing++;
  const err = await send('t', 0, 'x').catch((e) => e);
  assert.ok(err instanceof KafkaResponseError);
  assert.equal(err.code, 'MESSAGE_TOO_LARGE');
  assert.equal(err.retriable, false);
  assert.equal(cluster.requests.length, 1);

  const s2 = setup({ idempotent: false, lingerMs: 0, deliveryTimeoutMs: 300 });
  s2.cluster.fault = () => ErrorCode.NOT_ENOUGH_REPLICAS;
  const t0 = Date.now();
  const e2 = await s2.send('t', 0, 'x').catch((e) => e);
  assert.ok(e2 instanceof DeliveryTimeoutError, String(e2));
  assert.ok(Date.now() - t0 >= 250);
  assert.ok(s2.cluster.requests.length > 3, 'retried');

  const s3 = setup({ idempotent: false, lingerMs: 0, retries: 2 });
  s3.cluster.fault = () => ErrorCode.NOT_LEADER_OR_FOLLOWER;
  await assert.rejects(s3.send('t', 0, 'x'));
  assert.equal(s3.cluster.requests.length, 3, 'retries=2 → 3 attempts');
});

test('unrecoverable sequence error on the first unacked batch bumps the epoch and resends from 0', async () => {
  const { cluster, send, sender, inits } = setup({ lingerMs: 0 }, 200);
  sender.flushing++;
  await send('t', 0, 'a');
  // The broker "forgets" the producer: answer UNKNOWN_PRODUCER_ID once.
  let once = true;
  cluster.fault = () => {
    if (once) {
      once = false;
      return ErrorCode.UNKNOWN_PRODUCER_ID;
    }
    return 'ok';
  };
  const md = await send('t', 0, 'b');
  assert.equal(md.offset, 1n);
  assert.deepEqual(inits, [-1n, 1000n], 'second InitProducerId carries the current id (KIP-360 bump)');
  const last = cluster.requests[cluster.requests.length - 1]!.topicData[0]!.partitionData[0]!.records!;
  assert.equal(last.readInt16BE(51), 1, 'new epoch');
  assert.equal(last.readInt32BE(53), 0, 'sequence restarts at 0');
  assert.deepEqual(cluster.log('t', 0).values, ['a', 'b']);
});

test('acks=0 completes with offset -1 and no response', async () => {
  const { send, sender } = setup({ acks: 0, idempotent: false, lingerMs: 0 });
  sender.flushing++;
  const md = await send('t', 0, 'x');
  assert.equal(md.offset, -1n);
});
