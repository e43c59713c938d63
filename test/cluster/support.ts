// Helpers of the cluster tests: each broker's own view (Metadata asked of that broker alone),
// waiting for a condition on it, and reading the controller's znodes.
import { ZkClient } from '../../src/broker/metadata/zookeeper/zk-client.js';
import { type MetadataResponse, metadataApi } from '../../src/protocol/messages/generated/metadata.js';
import { produceApi } from '../../src/protocol/messages/generated/produce.js';
import { decodeRecordBatchSync } from '../../src/protocol/record-batch/decode.js';
import { encodeRecordBatchSync } from '../../src/protocol/record-batch/encode.js';
import { iterateBatches } from '../../src/protocol/record-batch/iterate.js';
import { LogManager } from '../../src/storage/index.js';
import type { TestCluster } from '../../src/testkit/cluster.js';
import { RawClient } from '../broker/support/raw-client.js';
import { scaled, TestTimeoutError } from '../support/timeouts.js';

export interface BrokerView {
  controllerId: number;
  brokers: number[];
  /** topic → partitions sorted by index. */
  topics: Map<
    string,
    {
      partition: number;
      leader: number;
      leaderEpoch: number;
      replicas: number[];
      isr: number[];
      offline: number[];
      error: number;
    }[]
  >;
}

/** Metadata of every topic as broker `port` alone sees it. */
export async function viewOf(port: number): Promise<BrokerView> {
  const c = await RawClient.connect(port);
  try {
    const r: MetadataResponse = await c.request(metadataApi, 12, {
      topics: null,
      allowAutoTopicCreation: false,
      includeClusterAuthorizedOperations: false,
      includeTopicAuthorizedOperations: false,
    });
    const topics: BrokerView['topics'] = new Map();
    for (const t of r.topics) {
      topics.set(
        t.name!,
        t.partitions
          .map((p) => ({
            partition: p.partitionIndex,
            leader: p.leaderId,
            leaderEpoch: p.leaderEpoch,
            replicas: [...p.replicaNodes],
            isr: [...p.isrNodes],
            offline: [...p.offlineReplicas],
            error: p.errorCode,
          }))
          .sort((a, b) => a.partition - b.partition),
      );
    }
    return { controllerId: r.controllerId, brokers: r.brokers.map((b) => b.nodeId).sort(), topics };
  } finally {
    c.close();
  }
}

/** Polls broker views until `ok` holds for every running broker (or the named ones). */
export async function waitForViews(
  cluster: TestCluster,
  what: string,
  ok: (view: BrokerView, nodeId: number) => boolean,
  timeoutMs = 60_000,
  nodeIds: readonly number[] = cluster.nodeIds.filter((id) => cluster.broker(id).running),
): Promise<Map<number, BrokerView>> {
  const ms = scaled(timeoutMs);
  const deadline = Date.now() + ms;
  let last = '';
  for (;;) {
    const views = new Map<number, BrokerView>();
    let all = true;
    for (const id of nodeIds) {
      const port = cluster.broker(id).port;
      if (port === null) throw new Error(`broker ${id} is not running`);
      try {
        const v = await viewOf(port);
        views.set(id, v);
        if (!ok(v, id)) all = false;
      } catch (e) {
        all = false;
        last = e instanceof Error ? e.message : String(e);
      }
    }
    if (all) return views;
    if (Date.now() > deadline) {
      const shown = [...views].map(
        ([id, v]) =>
          `${id}: controller ${v.controllerId} brokers ${v.brokers} ${JSON.stringify([...v.topics])}`,
      );
      throw new TestTimeoutError(what, ms, `${shown.join('\n').slice(0, 3000)}\n${last}`);
    }
    await new Promise((r) => setTimeout(r, 200));
  }
}

/** `/controller` and `/controller_epoch` of the cluster. */
export async function controllerZnodes(
  cluster: TestCluster,
): Promise<{ controllerId: number; epoch: number }> {
  const zk = await ZkClient.connect(cluster.zookeeperConnect, { sessionTimeoutMs: 10_000 });
  try {
    const epoch = Number((await zk.getData('/controller_epoch')).data!.toString());
    let controllerId = -1;
    try {
      controllerId = JSON.parse((await zk.getData('/controller')).data!.toString()).brokerid;
    } catch {
      // No controller at this instant.
    }
    return { controllerId, epoch };
  } finally {
    await zk.close();
  }
}

export function leaderOf(view: BrokerView, topic: string, partition: number): number {
  return view.topics.get(topic)?.[partition]?.leader ?? -1;
}

// -- Helpers of the replication and failure tests (loss-checker, acks-and-isr, failures) --------

/** Every running broker lists all of the cluster's brokers, and every partition of `topics` has a
 * leader and its whole replica set in the ISR (no under-replicated partition left). */
export function waitForFullIsr(
  cluster: TestCluster,
  topics: readonly string[],
  timeoutMs = 120_000,
): Promise<Map<number, BrokerView>> {
  const all = [...cluster.nodeIds].sort();
  return waitForViews(
    cluster,
    `every broker registered and a full ISR for every partition of ${topics.join(', ')}`,
    (v) =>
      JSON.stringify(v.brokers) === JSON.stringify(all) &&
      topics.every((t) => {
        const parts = v.topics.get(t);
        return (
          parts !== undefined &&
          parts.length > 0 &&
          parts.every((p) => p.leader >= 0 && p.isr.length === p.replicas.length && p.error === 0)
        );
      }),
    timeoutMs,
  );
}

/** The broker epochs (czxid of `/brokers/ids/<id>`) of the registered brokers. */
export async function brokerEpochs(cluster: TestCluster): Promise<Map<number, bigint>> {
  const zk = await ZkClient.connect(cluster.zookeeperConnect, { sessionTimeoutMs: 10_000 });
  try {
    const out = new Map<number, bigint>();
    for (const id of await zk.getChildren('/brokers/ids')) {
      try {
        out.set(Number(id), (await zk.getData(`/brokers/ids/${id}`)).stat.czxid);
      } catch {
        // Gone between the two reads.
      }
    }
    return out;
  } finally {
    await zk.close();
  }
}

export function sleep(ms: number): Promise<void> {
  return new Promise((r) => setTimeout(r, ms));
}

/** Polls `cond` until it holds; fails with "timed out" after the (scaled) limit. */
export async function waitFor(
  what: string,
  cond: () => boolean | Promise<boolean>,
  limitMs = 60_000,
  detail: () => string = () => '',
): Promise<void> {
  const ms = scaled(limitMs);
  const deadline = Date.now() + ms;
  while (!(await cond())) {
    if (Date.now() > deadline) throw new TestTimeoutError(what, ms, detail());
    await sleep(100);
  }
}

export interface ReplicaLog {
  logStartOffset: bigint;
  highWatermark: bigint;
  logEndOffset: bigint;
  /** Every batch from the log start up to the log end offset, as stored. */
  batches: Buffer[];
}

/**
 * Reads one partition of a stopped broker straight from its data dir with the storage layer
 * (the broker's lock on the dir is gone once it stopped): high watermark (from the checkpoint a
 * clean shutdown writes), log end offset and the bytes of every batch.
 */
export async function readReplicaLog(dataDir: string, topic: string, partition: number): Promise<ReplicaLog> {
  const logs = await LogManager.open({ logDirs: [dataDir] });
  try {
    const log = logs.getLog(topic, partition);
    if (log === undefined) throw new Error(`no log ${topic}-${partition} in ${dataDir}`);
    const batches: Buffer[] = [];
    let offset = log.logStartOffset;
    while (offset < log.logEndOffset) {
      const r = await log.read(offset, { maxBytes: 1 << 20, upperBound: 'leo', minOneBatch: true });
      if (r.records.length === 0) break;
      for (const b of iterateBatches(r.records)) {
        const bytes = Buffer.from(r.records.subarray(b.position, b.position + b.size));
        batches.push(bytes);
        offset = bytes.readBigInt64BE(0) + BigInt(bytes.readInt32BE(23)) + 1n;
      }
    }
    return {
      logStartOffset: log.logStartOffset,
      highWatermark: log.highWatermark,
      logEndOffset: log.logEndOffset,
      batches,
    };
  } finally {
    await logs.close();
  }
}

/** Offset of the last record of a stored batch, plus one. */
export function batchEnd(batch: Buffer): bigint {
  return batch.readBigInt64BE(0) + BigInt(batch.readInt32BE(23)) + 1n;
}

/** The values of a stored batch's records with their offsets (control batches: none). */
export function batchRecords(batch: Buffer): { offset: bigint; value: string | null }[] {
  // Attributes bit 5: control batch.
  if ((batch.readInt16BE(21) & 0x20) !== 0) return [];
  const cursor = decodeRecordBatchSync(batch);
  const out: { offset: bigint; value: string | null }[] = [];
  while (cursor.next()) {
    const r = cursor.toRecord();
    out.push({ offset: r.offset, value: r.value === null ? null : r.value.toString() });
  }
  return out;
}

/** One Produce (v9) of one uncompressed batch of `values`, straight to broker `port`. */
export async function rawProduce(
  port: number,
  topic: string,
  partition: number,
  acks: number,
  values: readonly string[],
  timeoutMs = 30_000,
): Promise<{ errorCode: number; baseOffset: bigint }> {
  const c = await RawClient.connect(port);
  try {
    return await rawProduceOn(c, topic, partition, acks, values, timeoutMs);
  } finally {
    c.close();
  }
}

/** The same on an open connection. */
export async function rawProduceOn(
  c: RawClient,
  topic: string,
  partition: number,
  acks: number,
  values: readonly string[],
  timeoutMs = 30_000,
): Promise<{ errorCode: number; baseOffset: bigint }> {
  const records = encodeRecordBatchSync(values.map((v) => ({ key: null, value: Buffer.from(v) })));
  const r = await c.request(
    produceApi,
    9,
    {
      transactionalId: null,
      acks,
      timeoutMs,
      topicData: [{ name: topic, partitionData: [{ index: partition, records }] }],
    },
    timeoutMs + 120_000,
  );
  return r.responses[0]!.partitionResponses[0]!;
}

/**
 * kill -9 of broker `id`; once the others dropped it (its session expired: a restart before
 * that would meet its old registration), runs `between`, then restarts it — also when `between`
 * failed, so that the next test finds the whole cluster.
 */
export async function killAndRestart(
  cluster: TestCluster,
  id: number,
  sessionTimeoutMs: number,
  between: () => Promise<void> = async () => {},
): Promise<void> {
  await cluster.kill(id);
  const others = cluster.nodeIds.filter((n) => n !== id && cluster.broker(n).running);
  const dropped = () =>
    waitForViews(
      cluster,
      `the others to drop broker ${id}`,
      (v) => !v.brokers.includes(id),
      sessionTimeoutMs + 60_000,
      others,
    );
  try {
    await dropped();
    await between();
  } finally {
    await dropped().catch(() => {});
    await cluster.restart(id);
  }
}
