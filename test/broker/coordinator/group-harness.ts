// Drives a GroupCoordinator over an in-memory __consumer_offsets with a mock clock.

import {
  type GroupConfig,
  GroupCoordinator,
  type JoinGroupRequest,
  type JoinGroupResult,
  type RequestOrigin,
  type SyncGroupResult,
} from '../../../src/broker/coordinator/group/index.js';
import { InMemoryPartitionWriter, MockClock } from '../../../src/broker/coordinator/runtime/index.js';

export function subscription(...topics: string[]): Buffer {
  const parts = [Buffer.from([0, 0]), Buffer.alloc(4)];
  parts[1]?.writeInt32BE(topics.length);
  for (const t of topics) {
    const len = Buffer.alloc(2);
    len.writeInt16BE(Buffer.byteLength(t));
    parts.push(len, Buffer.from(t));
  }
  parts.push(Buffer.from([0xff, 0xff, 0xff, 0xff]));
  return Buffer.concat(parts);
}

export const settle = async (): Promise<void> => {
  for (let i = 0; i < 5; i++) await new Promise((r) => setImmediate(r));
};

export async function harness(config: Partial<GroupConfig> = {}) {
  const clock = new MockClock();
  const writer = new InMemoryPartitionWriter();
  const errors: unknown[] = [];
  const make = () =>
    new GroupCoordinator({
      config: { initialRebalanceDelayMs: 0, numPartitions: 4, ...config },
      writer,
      loader: writer,
      clock,
      onError: (_p, e) => errors.push(e),
    });
  let gc = make();
  const loadAll = async () => {
    for (let p = 0; p < gc.config.numPartitions; p++) await gc.onElection(p);
  };
  await loadAll();
  const origin = (clientId = 'client', apiVersion = 5): RequestOrigin => ({
    clientId,
    clientHost: '/127.0.0.1',
    apiVersion,
  });
  const joinReq = (
    groupId: string,
    memberId = '',
    extra: Partial<JoinGroupRequest> = {},
  ): JoinGroupRequest => ({
    groupId,
    sessionTimeoutMs: 10_000,
    rebalanceTimeoutMs: 30_000,
    memberId,
    groupInstanceId: null,
    protocolType: 'consumer',
    protocols: [{ name: 'range', metadata: subscription('t') }],
    ...extra,
  });
  /** Starts a JoinGroup; the promise may stay pending until the rebalance completes. */
  const join = (req: JoinGroupRequest, o = origin()): { done: boolean; result: Promise<JoinGroupResult> } => {
    const h = { done: false, result: gc.joinGroup(o, req) };
    h.result.then(() => (h.done = true));
    return h;
  };
  /** Joins a new member the way v4+ clients do (MEMBER_ID_REQUIRED first); returns its id. */
  const newMember = async (groupId: string, extra: Partial<JoinGroupRequest> = {}) => {
    const first = await gc.joinGroup(origin(), joinReq(groupId, '', extra));
    return { memberId: first.memberId, join: join(joinReq(groupId, first.memberId, extra)) };
  };
  const sync = (
    groupId: string,
    memberId: string,
    generationId: number,
    assignments: Array<{ memberId: string; assignment: Buffer }> = [],
  ) => {
    const h: { done: boolean; result: Promise<SyncGroupResult> } = {
      done: false,
      result: gc.syncGroup({
        groupId,
        generationId,
        memberId,
        groupInstanceId: null,
        protocolType: null,
        protocolName: null,
        assignments,
      }),
    };
    h.result.then(() => (h.done = true));
    return h;
  };
  const heartbeat = (
    groupId: string,
    memberId: string,
    generationId: number,
    groupInstanceId: string | null = null,
  ) => gc.heartbeat({ groupId, memberId, generationId, groupInstanceId });
  /** Advances the mock clock, letting timer operations and appends run. */
  const advance = async (ms: number) => {
    await settle();
    clock.advance(ms);
    await settle();
  };
  /** A new coordinator over the same log, as after a broker restart. */
  const restart = async () => {
    gc.close();
    gc = make();
    await loadAll();
  };
  return {
    clock,
    writer,
    errors,
    get gc() {
      return gc;
    },
    origin,
    joinReq,
    join,
    newMember,
    sync,
    heartbeat,
    advance,
    restart,
  };
}
