// The controller's bulk ZooKeeper work, pipelined as Kafka 1.1+ does it (many requests in flight
// on the one session, answered in order), never one round trip per partition in series:
// conditional partition-state writes fenced by the controller epoch, reading a topic's states,
// and the fenced deletion of a topic's subtree.

import type { ZkClient } from '../zookeeper/zk-client.js';
import {
  decodePartitionState,
  decodeTopicAssignment,
  encodePartitionState,
  partitionStatePath,
  topicPartitionPath,
  topicPartitionsPath,
  topicPath,
  ZK_PATHS,
} from '../zookeeper/zk-data.js';
import { isZkError, ZkMultiError } from '../zookeeper/zk-errors.js';
import type { ZkOp, ZkOpResult } from '../zookeeper/zk-multi.js';
import { MetadataStoreError } from './metadata-store.js';
import type {
  ControllerLease,
  PartitionState,
  PartitionStateWrite,
  PartitionWriteResult,
} from './records.js';

/** Requests in flight at once in a pipelined batch. */
export const PIPELINE_WINDOW = 500;

/** Runs `fn` over `items` with up to `window` calls in flight; resolves when all settled. */
export async function pipelined<T, R>(
  items: readonly T[],
  fn: (item: T, index: number) => Promise<R>,
  window = PIPELINE_WINDOW,
): Promise<PromiseSettledResult<R>[]> {
  const out = new Array<PromiseSettledResult<R>>(items.length);
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < items.length) {
      const i = next++;
      try {
        out[i] = { status: 'fulfilled', value: await fn(items[i]!, i) };
      } catch (reason) {
        out[i] = { status: 'rejected', reason };
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(window, items.length) }, worker));
  return out;
}

/** Throws the first failure of a batch, a NOT_CONTROLLER before any other. */
export function throwFailure(results: readonly PromiseSettledResult<unknown>[]): void {
  let first: unknown;
  for (const r of results) {
    if (r.status === 'fulfilled') continue;
    if (r.reason instanceof MetadataStoreError && r.reason.code === 'NOT_CONTROLLER') throw r.reason;
    first ??= r;
  }
  if (first !== undefined) throw (first as PromiseRejectedResult).reason;
}

/** The multi op that fences a controller write: `/controller_epoch` still at the lease's version. */
export function epochCheck(lease: ControllerLease): ZkOp {
  return { type: 'check', path: ZK_PATHS.controllerEpoch, version: lease.epochVersion };
}

export function notController(lease: ControllerLease): MetadataStoreError {
  return new MetadataStoreError(
    'NOT_CONTROLLER',
    `controller epoch ${lease.epoch} (version ${lease.epochVersion}) of node ${lease.nodeId} is stale: ` +
      'another controller was elected',
  );
}

/** A multi fenced by the lease: NOT_CONTROLLER when the check (op 0) fails, else the multi's error. */
export async function fencedMulti(
  client: ZkClient,
  lease: ControllerLease,
  ops: readonly ZkOp[],
): Promise<ZkOpResult[]> {
  try {
    return await client.multi([epochCheck(lease), ...ops]);
  } catch (e) {
    if (e instanceof ZkMultiError && e.failedOpIndex === 0) throw notController(lease);
    throw e;
  }
}

/** Throws NOT_CONTROLLER unless `/controller_epoch` is at the lease's version. */
export async function checkLease(client: ZkClient, lease: ControllerLease): Promise<void> {
  const stat = await client.exists(ZK_PATHS.controllerEpoch);
  if (stat === null || stat.version !== lease.epochVersion) throw notController(lease);
}

type Outcome = PartitionWriteResult | { readonly fenced: true } | { readonly error: unknown };

/**
 * Kafka's conditional partition-state writes: each one a multi `[check /controller_epoch,
 * setData state at expectedVersion]`, or for a new partition `[check, create /partitions/<p> if
 * missing, create state]`, all pipelined. A missing topic or a partition outside its assignment is
 * NO_NODE (nothing written). A failed check anywhere throws NOT_CONTROLLER once all settled.
 */
export async function writePartitionStates(
  client: ZkClient,
  lease: ControllerLease,
  writes: readonly PartitionStateWrite[],
): Promise<PartitionWriteResult[]> {
  // Fenced as a whole first (as the memory store is), even when no write reaches a multi.
  await checkLease(client, lease);
  if (writes.length === 0) return [];
  const topics = [...new Set(writes.map((w) => w.topic))];
  const creating = new Set(writes.filter((w) => w.expectedVersion === -1).map((w) => w.topic));
  // Per topic: its partition count (null: no such topic) and, where partitions are created, the
  // partition znodes that exist already.
  const facts = new Map<string, { count: number | null; existing: Set<number> | null }>();
  const read = await pipelined(topics, async (t) => {
    const count = await partitionCount(client, t);
    let existing: Set<number> | null = null;
    if (count !== null && creating.has(t)) existing = await ensurePartitionsNode(client, lease, t);
    facts.set(t, { count, existing });
  });
  throwFailure(read);

  const outcomes = await pipelined(
    writes,
    (w): Promise<Outcome> => writeOne(client, lease, w, facts.get(w.topic)!),
  );
  const results: PartitionWriteResult[] = [];
  let error: unknown;
  let fenced = false;
  for (const o of outcomes) {
    const v: Outcome = o.status === 'fulfilled' ? o.value : { error: o.reason };
    if ('fenced' in v) fenced = true;
    else if ('error' in v) error ??= v.error;
    else results.push(v);
  }
  if (fenced) throw notController(lease);
  if (error !== undefined) throw error;
  return results;
}

async function partitionCount(client: ZkClient, topic: string): Promise<number | null> {
  try {
    const { data } = await client.getData(topicPath(topic));
    return decodeTopicAssignment(topic, data).partitions.size;
  } catch (e) {
    if (isZkError(e, 'NO_NODE')) return null;
    throw e;
  }
}

/** Creates `/brokers/topics/<t>/partitions` if missing (fenced); the partition znodes under it. */
async function ensurePartitionsNode(
  client: ZkClient,
  lease: ControllerLease,
  topic: string,
): Promise<Set<number> | null> {
  const path = topicPartitionsPath(topic);
  for (let attempt = 0; attempt < 3; attempt++) {
    try {
      return new Set((await client.getChildren(path)).map(Number));
    } catch (e) {
      if (!isZkError(e, 'NO_NODE')) throw e;
    }
    try {
      await fencedMulti(client, lease, [{ type: 'create', path }]);
      return new Set();
    } catch (e) {
      if (isZkError(e, 'NO_NODE')) return null; // the topic went away meanwhile
      if (!isZkError(e, 'NODE_EXISTS')) throw e;
    }
  }
  return null;
}

async function writeOne(
  client: ZkClient,
  lease: ControllerLease,
  w: PartitionStateWrite,
  facts: { count: number | null; existing: Set<number> | null },
): Promise<Outcome> {
  const { topic, partition } = w;
  const fail = (reason: 'BAD_VERSION' | 'NO_NODE' | 'NODE_EXISTS'): Outcome => ({
    topic,
    partition,
    ok: false,
    reason,
  });
  if (facts.count === null || !Number.isInteger(partition) || partition < 0 || partition >= facts.count)
    return fail('NO_NODE');
  const data = encodePartitionState(w.state);
  const statePath = partitionStatePath(topic, partition);
  let createParent = w.expectedVersion === -1 && !(facts.existing?.has(partition) ?? false);
  for (;;) {
    const ops: ZkOp[] =
      w.expectedVersion === -1
        ? [
            ...(createParent
              ? [{ type: 'create', path: topicPartitionPath(topic, partition) } as const]
              : []),
            { type: 'create', path: statePath, data },
          ]
        : [{ type: 'setData', path: statePath, data, version: w.expectedVersion }];
    try {
      const res = await client.multi([epochCheck(lease), ...ops]);
      const last = res[res.length - 1];
      return { topic, partition, ok: true, version: last?.type === 'setData' ? last.stat.version : 0 };
    } catch (e) {
      if (!(e instanceof ZkMultiError) || e.failedOpIndex < 0) return { error: e };
      if (e.failedOpIndex === 0) return { fenced: true };
      // The partition znode exists after all (created by another write of this batch, or earlier).
      if (createParent && e.failedOpIndex === 1 && e.code === 'NODE_EXISTS') {
        createParent = false;
        continue;
      }
      if (e.code === 'NODE_EXISTS' || e.code === 'NO_NODE' || e.code === 'BAD_VERSION') return fail(e.code);
      return { error: e };
    }
  }
}

/** Every partition's state of a topic, read in parallel; missing states are left out. */
export async function readPartitionStates(
  client: ZkClient,
  topic: string,
): Promise<Map<number, PartitionState>> {
  const out = new Map<number, PartitionState>();
  let children: string[];
  try {
    children = await client.getChildren(topicPartitionsPath(topic));
  } catch (e) {
    if (isZkError(e, 'NO_NODE')) return out;
    throw e;
  }
  const partitions = children.filter((c) => /^\d{1,10}$/.test(c)).map(Number);
  const reads = await pipelined(partitions, async (p) => {
    try {
      const { data, stat } = await client.getData(partitionStatePath(topic, p));
      out.set(p, { ...decodePartitionState(topic, p, data), version: stat.version });
    } catch (e) {
      if (!isZkError(e, 'NO_NODE')) throw e;
    }
  });
  throwFailure(reads);
  return new Map([...out].sort((a, b) => a[0] - b[0]));
}

/** Znodes deleted by one multi (with the epoch check) when a topic's tree is deleted. */
const DELETE_CHUNK = 100;

/** Deletes `paths` (siblings or cousins) in one fenced multi; one by one if some are gone already. */
async function fencedDelete(
  client: ZkClient,
  lease: ControllerLease,
  paths: readonly string[],
): Promise<void> {
  const del = (path: string): ZkOp => ({ type: 'delete', path, version: -1 });
  try {
    await fencedMulti(client, lease, paths.map(del));
    return;
  } catch (e) {
    if (!isZkError(e, 'NO_NODE') || paths.length === 1) {
      if (isZkError(e, 'NO_NODE')) return;
      throw e;
    }
  }
  throwFailure(await pipelined(paths, (p) => fencedDelete(client, lease, [p])));
}

/**
 * Deletes `path` and everything below it, every delete in a multi with `check /controller_epoch`
 * (Kafka's deleteRecursive with the controller epoch version), one level at a time from the
 * deepest, in pipelined multis of up to DELETE_CHUNK deletes. False when `path` did not exist.
 */
export async function fencedDeleteRecursive(
  client: ZkClient,
  lease: ControllerLease,
  path: string,
): Promise<boolean> {
  for (let attempt = 0; ; attempt++) {
    const levels: string[][] = [];
    let level = [path];
    while (level.length > 0) {
      const listed = await pipelined(level, async (p) => {
        try {
          return (await client.getChildren(p)).map((c) => `${p}/${c}`);
        } catch (e) {
          if (isZkError(e, 'NO_NODE')) return null;
          throw e;
        }
      });
      const present: string[] = [];
      const below: string[] = [];
      throwFailure(listed);
      listed.forEach((r, i) => {
        if (r.status === 'fulfilled' && r.value !== null) {
          present.push(level[i]!);
          below.push(...r.value);
        }
      });
      if (present.length > 0) levels.push(present);
      level = below;
    }
    if (levels.length === 0) return false;
    try {
      for (const paths of levels.reverse()) {
        const chunks: string[][] = [];
        for (let i = 0; i < paths.length; i += DELETE_CHUNK) chunks.push(paths.slice(i, i + DELETE_CHUNK));
        throwFailure(await pipelined(chunks, (chunk) => fencedDelete(client, lease, chunk)));
      }
      return true;
    } catch (e) {
      // Something was created below meanwhile: list again.
      if (!isZkError(e, 'NOT_EMPTY') || attempt >= 5) throw e;
    }
  }
}

/**
 * Deletes a topic's tree (`/brokers/topics/<t>` with its partitions and states), fenced. Kafka's
 * layout is known, so the partitions are deleted with their states in chunks without listing each
 * partition znode; anything unexpected below one falls back to the generic recursive delete.
 */
export async function fencedDeleteTopicTree(
  client: ZkClient,
  lease: ControllerLease,
  topic: string,
): Promise<void> {
  const parent = topicPartitionsPath(topic);
  let partitions: string[] = [];
  try {
    partitions = await client.getChildren(parent);
  } catch (e) {
    if (!isZkError(e, 'NO_NODE')) throw e;
  }
  const per = Math.floor(DELETE_CHUNK / 2);
  const chunks: string[][] = [];
  for (let i = 0; i < partitions.length; i += per) chunks.push(partitions.slice(i, i + per));
  const deleted = await pipelined(chunks, async (chunk) => {
    try {
      await fencedMulti(
        client,
        lease,
        chunk.flatMap((p): ZkOp[] => [
          { type: 'delete', path: `${parent}/${p}/state`, version: -1 },
          { type: 'delete', path: `${parent}/${p}`, version: -1 },
        ]),
      );
    } catch (e) {
      if (!isZkError(e, 'NO_NODE', 'NOT_EMPTY')) throw e;
      throwFailure(await pipelined(chunk, (p) => fencedDeleteRecursive(client, lease, `${parent}/${p}`)));
    }
  });
  throwFailure(deleted);
  await fencedDeleteRecursive(client, lease, topicPath(topic));
}
