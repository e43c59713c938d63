// Offset commits of many groups batched into shared appends of __consumer_offsets: each is
// answered once written and read back (also after a reload from the log); a batch the log
// refuses fails every commit in it and applies none; commits of one group and partition keep
// their order; a commit too large for one batch is INVALID_COMMIT_OFFSET_SIZE.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { OffsetCommitRequest } from '../../../src/broker/coordinator/group/index.js';
import { ErrorCode } from '../../../src/protocol/errors.js';
import { harness, settle } from './group-harness.js';

type Harness = Awaited<ReturnType<typeof harness>>;

/** A simple consumer's commit (no generation), as admin tools and assign() consumers send. */
const commitReq = (groupId: string, offsets: Record<number, bigint>, metadata = ''): OffsetCommitRequest => ({
  groupId,
  generationId: -1,
  memberId: '',
  groupInstanceId: null,
  retentionTimeMs: -1,
  topics: [
    {
      name: 't',
      partitions: Object.entries(offsets).map(([p, offset]) => ({
        partition: Number(p),
        offset,
        leaderEpoch: -1,
        metadata,
      })),
    },
  ],
});
const codes = (r: Array<{ partitions: Array<{ errorCode: number }> }>) =>
  r.flatMap((t) => t.partitions.map((p) => p.errorCode));
const fetched = async (h: Harness, groupId: string, partitions = [0, 1]) =>
  (await h.gc.fetchOffsets(groupId, [{ name: 't', partitions }])).topics[0]?.partitions.map((p) => p.offset);
/** `n` group ids whose groups live on `partition` of __consumer_offsets. */
const groupsOn = (h: Harness, partition: number, n: number, prefix: string) => {
  const out: string[] = [];
  for (let i = 0; out.length < n; i++)
    if (h.gc.partitionFor(`${prefix}-${i}`) === partition) out.push(`${prefix}-${i}`);
  return out;
};

test('commits of 200 groups in one turn share one append per partition and all read back, also after a reload', async () => {
  const h = await harness();
  const groups = Array.from({ length: 200 }, (_, i) => `group-${i}`);
  const before = h.writer.appendCount;
  const results = await Promise.all(
    groups.map((g, i) => h.gc.commitOffsets(commitReq(g, { 0: BigInt(i), 1: BigInt(i + 1000) }))),
  );
  for (const r of results) assert.deepEqual(codes(r), [0, 0]);
  assert.equal(h.writer.appendCount - before, h.gc.config.numPartitions, 'one append per partition');
  for (const [i, g] of groups.entries()) assert.deepEqual(await fetched(h, g), [BigInt(i), BigInt(i + 1000)]);
  await h.restart();
  for (const [i, g] of groups.entries()) assert.deepEqual(await fetched(h, g), [BigInt(i), BigInt(i + 1000)]);
});

test('a refused append fails every commit in it and applies none; commits of other partitions and later ones land', async () => {
  const h = await harness();
  const [known, fresh] = groupsOn(h, 0, 2, 'refused');
  const [elsewhere] = groupsOn(h, 1, 1, 'other');
  assert.deepEqual(codes(await h.gc.commitOffsets(commitReq(known as string, { 0: 1n, 1: 1n }))), [0, 0]);
  // Partition 0's append comes first (its first write came first): it is the refused one.
  h.writer.refuseNextAppend(ErrorCode.NOT_ENOUGH_REPLICAS);
  const [a, b, c] = await Promise.all([
    h.gc.commitOffsets(commitReq(known as string, { 0: 5n, 1: 6n })),
    h.gc.commitOffsets(commitReq(fresh as string, { 0: 9n })),
    h.gc.commitOffsets(commitReq(elsewhere as string, { 0: 3n })),
  ]);
  assert.deepEqual(codes(a ?? []), [
    ErrorCode.COORDINATOR_NOT_AVAILABLE,
    ErrorCode.COORDINATOR_NOT_AVAILABLE,
  ]);
  assert.deepEqual(codes(b ?? []), [ErrorCode.COORDINATOR_NOT_AVAILABLE]);
  assert.deepEqual(codes(c ?? []), [0], 'another partition of __consumer_offsets is not affected');
  assert.deepEqual(await fetched(h, known as string), [1n, 1n], 'the committed offsets are unchanged');
  assert.deepEqual(await fetched(h, fresh as string), [-1n, -1n]);
  const [d] = await h.gc.describeGroups([fresh as string]);
  assert.equal(d?.state, 'Dead', 'a group only the refused commit created is gone again');
  assert.deepEqual(await fetched(h, elsewhere as string, [0]), [3n]);
  assert.equal(h.gc.runtime.status(0), 'active', 'no reload');
  assert.deepEqual(codes(await h.gc.commitOffsets(commitReq(known as string, { 0: 7n }))), [0]);
  assert.deepEqual(await fetched(h, known as string), [7n, 1n]);
  await h.restart();
  assert.deepEqual(await fetched(h, known as string), [7n, 1n], 'the log never had the refused commits');
  assert.deepEqual(await fetched(h, fresh as string), [-1n, -1n]);
});

test('two commits of the same group and partition keep their order, in one batch and across batches', async () => {
  const h = await harness();
  const [x, y] = await Promise.all([
    h.gc.commitOffsets(commitReq('ordered', { 0: 5n })),
    h.gc.commitOffsets(commitReq('ordered', { 0: 7n })),
  ]);
  assert.deepEqual([...codes(x ?? []), ...codes(y ?? [])], [0, 0]);
  assert.deepEqual(await fetched(h, 'ordered', [0]), [7n]);
  // The first in flight, the second queued behind it.
  h.writer.holdCommits();
  const first = h.gc.commitOffsets(commitReq('ordered', { 0: 8n }));
  await settle();
  const second = h.gc.commitOffsets(commitReq('ordered', { 0: 6n }));
  await settle();
  h.writer.releaseCommits();
  assert.deepEqual([...codes(await first), ...codes(await second)], [0, 0]);
  assert.deepEqual(await fetched(h, 'ordered', [0]), [6n], 'the later commit wins, even with a lower offset');
  await h.restart();
  assert.deepEqual(await fetched(h, 'ordered', [0]), [6n]);
});

test('a commit too large for one batch of __consumer_offsets is INVALID_COMMIT_OFFSET_SIZE; smaller ones are split', async () => {
  const h = await harness({ offsetMetadataMaxBytes: 1000 });
  h.writer.maxBatch = 3500;
  const big: Record<number, bigint> = {};
  for (let p = 0; p < 5; p++) big[p] = 1n;
  const r = await h.gc.commitOffsets(commitReq('big', big, 'm'.repeat(1000)));
  assert.deepEqual(codes(r), Array(5).fill(ErrorCode.INVALID_COMMIT_OFFSET_SIZE));
  assert.deepEqual(await fetched(h, 'big', [0]), [-1n]);
  // Forty commits of ~1 KB on one partition: never more than 3 to a batch, all land.
  const groups = groupsOn(h, 2, 40, 'split');
  const before = h.writer.appendSizes.length;
  const all = await Promise.all(
    groups.map((g) => h.gc.commitOffsets(commitReq(g, { 0: 4n }, 'm'.repeat(900)))),
  );
  for (const x of all) assert.deepEqual(codes(x), [0]);
  const sizes = h.writer.appendSizes.slice(before);
  assert.ok(sizes.length >= 14 && sizes.every((n) => n <= 3), `appends of ${sizes.join(',')} records`);
  for (const g of groups) assert.deepEqual(await fetched(h, g, [0]), [4n]);
});
