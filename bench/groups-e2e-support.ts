// What bench/groups-e2e.ts and bench/groups-commits.ts share: the broker child process
// (bench/groups-e2e-broker.ts, optionally from another source tree to compare two versions in
// one run), the topic and __consumer_offsets warm-up, FindCoordinator until loaded.
import { fork } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { coordinatorPartition } from '../src/protocol/coordinator-partition.js';
import { ErrorCode } from '../src/protocol/errors.js';
import { createTopicsApi } from '../src/protocol/messages/generated/create-topics.js';
import { findCoordinatorApi } from '../src/protocol/messages/generated/find-coordinator.js';
import { offsetCommitApi } from '../src/protocol/messages/generated/offset-commit.js';
import { produceApi } from '../src/protocol/messages/generated/produce.js';
import { encodeRecordBatchSync } from '../src/protocol/record-batch/index.js';
import type { WireConn } from './groups-wire.js';

export const TOPIC = 'bench-e2e';
export const PARTITIONS = 50;
/** offsets.topic.num.partitions (the default). */
const OFFSETS_PARTITIONS = 50;

/** What the broker process did since the previous sample. */
export interface BrokerSample {
  /** Event-loop utilization. */
  elu: number;
  /** CPU time, user + system, every thread of the process. */
  cpuUs: number;
  /** Coordinator appends to __consumer_offsets and the records they carried. */
  appends: number;
  appended: number;
}

export interface BrokerProcess {
  port: number;
  sample(): Promise<BrokerSample>;
  /**
   * Starts a V8 CPU profile in the broker, or stops it and writes it to `file` (a
   * .cpuprofile for bench/cpuprofile-summary.ts).
   */
  profile(file?: string): Promise<void>;
  close(): Promise<void>;
}

/**
 * Forks the broker child. `sourceRoot` (a checkout of another version, e.g. `git archive HEAD`
 * unpacked with a `node_modules` link, or a tree compiled by `tsc --outDir <dir>`) runs that
 * version's broker instead of this one.
 */
export async function startBrokerProcess(sourceRoot?: string): Promise<BrokerProcess> {
  // A tree compiled by tsc (its bench/groups-e2e-broker.js exists) runs as the published
  // package does, without tsx: tsx's keep-names helper renames every closure it creates, a cost
  // the compiled broker does not pay.
  const built = sourceRoot !== undefined && existsSync(join(sourceRoot, 'bench', 'groups-e2e-broker.js'));
  const script =
    sourceRoot === undefined
      ? new URL('./groups-e2e-broker.ts', import.meta.url).pathname
      : join(sourceRoot, 'bench', built ? 'groups-e2e-broker.js' : 'groups-e2e-broker.ts');
  // BROKER_NODE_OPTIONS: V8/Node flags for the broker alone (e.g. --max-semi-space-size=64).
  const flags = (process.env.BROKER_NODE_OPTIONS ?? '').split(' ').filter((f) => f !== '');
  const child = fork(script, [], {
    execArgv: built ? flags : ['--import', 'tsx', ...flags],
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  const next = () =>
    new Promise<unknown>((resolve, reject) => {
      const onMessage = (m: unknown) => {
        child.off('exit', onExit);
        resolve(m);
      };
      const onExit = (code: number | null) => {
        child.off('message', onMessage);
        reject(new Error(`broker process exited with ${code}`));
      };
      child.once('message', onMessage);
      child.once('exit', onExit);
    });
  const { port } = (await next()) as { port: number };
  return {
    port,
    async sample() {
      const reply = next();
      child.send('sample');
      return (await reply) as BrokerSample;
    },
    async profile(file) {
      const reply = next();
      child.send(file === undefined ? { profile: 'start' } : { profile: 'stop', file });
      await reply;
    },
    async close() {
      const exited = new Promise((r) => child.once('exit', r));
      child.send('close');
      await exited;
    },
  };
}

export async function setup(conn: WireConn): Promise<void> {
  const c = await conn.request(createTopicsApi, 5, {
    topics: [{ name: TOPIC, numPartitions: PARTITIONS, replicationFactor: 1, assignments: [], configs: [] }],
    timeoutMs: 5000,
    validateOnly: false,
  });
  if (c.topics[0]?.errorCode !== 0) throw new Error(`create topic: ${c.topics[0]?.errorCode}`);
  // One record per partition: a member is consuming once its first Fetch returns them.
  const records = encodeRecordBatchSync([{ key: null, value: Buffer.from('x') }]);
  const p = await conn.request(produceApi, 9, {
    transactionalId: null,
    acks: -1,
    timeoutMs: 5000,
    topicData: [
      { name: TOPIC, partitionData: Array.from({ length: PARTITIONS }, (_, index) => ({ index, records })) },
    ],
  });
  if (p.responses[0]?.partitionResponses.some((r) => r.errorCode !== 0)) throw new Error('produce failed');
  await findCoordinator(conn, 'warm-up');
  // The first append to each __consumer_offsets partition also writes its leader-epoch
  // checkpoint (tmp file, fsync, rename: 5–90 ms here). A long-running broker has paid that
  // long ago, so write once to every partition (a simple consumer's commit) before measuring.
  const warmed = new Set<number>();
  for (let i = 0; warmed.size < OFFSETS_PARTITIONS; i++) {
    const groupId = `warm-${i}`;
    const partition = coordinatorPartition(groupId, OFFSETS_PARTITIONS);
    if (warmed.has(partition)) continue;
    warmed.add(partition);
    await simpleCommit(conn, groupId, 0, 0n);
  }
}

/** OffsetCommit v8 of a consumer without group management (generation -1); throws on an error. */
export async function simpleCommit(
  conn: WireConn,
  groupId: string,
  partitionIndex: number,
  committedOffset: bigint,
): Promise<void> {
  const r = await conn.request(offsetCommitApi, 8, {
    groupId,
    generationIdOrMemberEpoch: -1,
    memberId: '',
    groupInstanceId: null,
    retentionTimeMs: -1n,
    topics: [
      {
        name: TOPIC,
        partitions: [
          {
            partitionIndex,
            committedOffset,
            committedLeaderEpoch: -1,
            commitTimestamp: -1n,
            committedMetadata: '',
          },
        ],
      },
    ],
  });
  const code = r.topics[0]?.partitions[0]?.errorCode;
  if (code !== 0) throw new Error(`OffsetCommit of ${groupId}: error ${code}`);
}

/** FindCoordinator until the group's partition of __consumer_offsets is created and loaded. */
export async function findCoordinator(conn: WireConn, groupId: string): Promise<void> {
  for (let i = 0; i < 200; i++) {
    const r = await conn.request(findCoordinatorApi, 4, { key: '', keyType: 0, coordinatorKeys: [groupId] });
    if (r.coordinators[0]?.errorCode === ErrorCode.NONE) return;
    await new Promise((res) => setTimeout(res, 25));
  }
  throw new Error(`no coordinator for ${groupId}`);
}
