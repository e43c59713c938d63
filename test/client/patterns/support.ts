// Shared by the ordered-parallel tests: keyed records in a real broker, what a run processed, and
// the checks every run must pass (per-key order, nothing lost).
import assert from 'node:assert/strict';
import { Admin } from '../../../src/client/admin/admin.js';
import { Producer } from '../../../src/client/producer/producer.js';
import type { TestBroker } from '../../../src/testkit/index.js';
import { scaled, TestTimeoutError } from '../../support/timeouts.js';

/** Produces records i = from .. from + count - 1: `key = k<i % keys>`, value `i`, partitioned by key (murmur2). */
export async function produceKeyed(
  b: TestBroker,
  topic: string,
  count: number,
  keys: number,
  from = 0,
): Promise<void> {
  const p = new Producer({ bootstrapServers: b.bootstrap, lingerMs: 5 });
  try {
    const sends: Promise<unknown>[] = [];
    for (let i = from; i < from + count; i++)
      sends.push(p.send({ topic, key: `k${i % keys}`, value: String(i) }) as Promise<unknown>);
    await Promise.all(sends);
  } finally {
    await p.close();
  }
}

/** One processed record: partition, offset, key. */
export interface Processed {
  partition: number;
  offset: bigint;
  key: string;
}

export const id = (p: { partition: number; offset: bigint }): string => `${p.partition}@${p.offset}`;

/** Within one run, each key's records were processed in strictly ascending offsets. */
export function assertKeyOrder(run: readonly Processed[], what: string): void {
  const last = new Map<string, bigint>();
  for (const p of run) {
    const k = `${p.partition}/${p.key}`;
    const prev = last.get(k);
    assert.ok(
      prev === undefined || p.offset > prev,
      `${what}: key ${p.key} of partition ${p.partition} processed offset ${p.offset} after ${prev}`,
    );
    last.set(k, p.offset);
  }
}

/** Committed offsets of a group, by partition. */
export async function committedOffsets(b: TestBroker, group: string): Promise<Map<number, bigint>> {
  const admin = new Admin({ bootstrapServers: b.bootstrap });
  try {
    const list = await admin.listConsumerGroupOffsets(group);
    return new Map(list.map((c) => [c.partition, c.offset]));
  } finally {
    await admin.close();
  }
}

export async function endOffsets(
  b: TestBroker,
  topic: string,
  partitions: number,
): Promise<Map<number, bigint>> {
  const admin = new Admin({ bootstrapServers: b.bootstrap });
  try {
    const tps = Array.from({ length: partitions }, (_, partition) => ({
      topic,
      partition,
      spec: 'latest' as const,
    }));
    const list = await admin.listOffsets(tps);
    return new Map(list.map((l) => [l.partition, l.offset]));
  } finally {
    await admin.close();
  }
}

/** Polls `cond` every 20 ms; `timeoutMs` is scaled (SAMSA_TEST_TIMEOUT_SCALE). */
export async function until(cond: () => boolean, timeoutMs: number, what: string): Promise<void> {
  const ms = scaled(timeoutMs);
  const deadline = Date.now() + ms;
  while (!cond()) {
    if (Date.now() > deadline) throw new TestTimeoutError(what, ms);
    await new Promise((r) => setTimeout(r, 20));
  }
}

export const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));
