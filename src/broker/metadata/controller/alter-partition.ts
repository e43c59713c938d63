// AlterPartition (KIP-497): partition leaders propose ISR changes; the controller checks them
// against its view and writes them conditionally. The checks and their order are Kafka's
// ZooKeeper-mode ones (processAlterPartition), plus those KRaft added that ZooKeeper mode lacked:
// only the current leader may propose, the ISR must be assigned replicas including the leader, and
// (version 3) each member's broker epoch must be its current one. A lost conditional write answers
// INVALID_UPDATE_VERSION. Accepted changes go to every live broker in UpdateMetadata; the leader
// learns its new state from the response.

import { ErrorCode } from '../../../protocol/errors.js';
import type {
  AlterPartitionRequest,
  AlterPartitionRequestPartitionData,
  AlterPartitionResponse,
  AlterPartitionResponsePartitionData,
} from '../../../protocol/messages/generated/alter-partition.js';
import type { LeaderAndIsr, PartitionState, PartitionStateWrite, TopicPartition } from '../store/records.js';
import { ZERO_UUID } from '../uuid.js';
import type { ActiveTerm } from './active-term.js';
import { isStoreError } from './controller-errors.js';

type Outcome = { readonly error: number } | { readonly state: PartitionState };

interface Proposal extends TopicPartition {
  readonly data: AlterPartitionRequestPartitionData;
  readonly isr: readonly number[];
}

export async function alterPartition(
  term: ActiveTerm,
  request: AlterPartitionRequest,
  version: number | undefined,
): Promise<AlterPartitionResponse> {
  const ctx = term.ctx;
  const live = ctx.liveBrokers.get(request.brokerId);
  if (live === undefined || live.epoch !== request.brokerEpoch) {
    term.log('info', 'AlterPartition ignored: unknown broker or stale broker epoch', {
      broker: request.brokerId,
      brokerEpoch: String(request.brokerEpoch),
    });
    return { throttleTimeMs: 0, errorCode: ErrorCode.STALE_BROKER_EPOCH, topics: [] };
  }
  const response: AlterPartitionResponse = { throttleTimeMs: 0, errorCode: ErrorCode.NONE, topics: [] };
  const proposals: Proposal[] = [];
  const outcomes = new Map<Proposal, Outcome>();
  const topicOf = new Map<Proposal, AlterPartitionResponse['topics'][number]>();
  for (const t of request.topics) {
    // Topic ids from v2; without a version, whichever the request carries.
    const byId = version !== undefined ? version > 1 : t.topicId !== ZERO_UUID;
    const name = byId ? ctx.topicNameById(t.topicId) : t.topicName;
    const out: AlterPartitionResponse['topics'][number] = {
      topicName: name ?? t.topicName,
      topicId: name === undefined ? t.topicId : ctx.topicIdOf(name)!,
      partitions: [],
    };
    response.topics.push(out);
    for (const p of t.partitions) {
      if (name === undefined) {
        out.partitions.push(errorData(p.partitionIndex, ErrorCode.UNKNOWN_TOPIC_ID));
        continue;
      }
      const isr = p.newIsrWithEpochs.length > 0 ? p.newIsrWithEpochs.map((b) => b.brokerId) : p.newIsr;
      const proposal: Proposal = { topic: name, partition: p.partitionIndex, data: p, isr };
      proposals.push(proposal);
      topicOf.set(proposal, out);
    }
  }

  let pending = proposals;
  for (let losses = 0; pending.length > 0; ) {
    const writes: PartitionStateWrite[] = [];
    const writing: Proposal[] = [];
    for (const p of pending) {
      const verdict = validate(term, request.brokerId, p, version);
      if ('next' in verdict) {
        writes.push({
          topic: p.topic,
          partition: p.partition,
          state: verdict.next,
          expectedVersion: verdict.version,
        });
        writing.push(p);
      } else outcomes.set(p, verdict);
    }
    if (writes.length === 0) break;
    try {
      const results = await term.deps.store.writePartitionStates(term.lease, writes);
      results.forEach((r, i) => {
        const p = writing[i]!;
        if (r.ok) {
          const state = { ...writes[i]!.state, version: r.version };
          ctx.setState(p.topic, p.partition, state);
          outcomes.set(p, { state });
        } else {
          outcomes.set(p, {
            error:
              r.reason === 'NO_NODE'
                ? ErrorCode.UNKNOWN_TOPIC_OR_PARTITION
                : ErrorCode.INVALID_UPDATE_VERSION,
          });
        }
      });
      const lost = writing.filter((_p, i) => !results[i]!.ok);
      if (lost.length > 0) await term.refreshStates(lost.map((p) => p.topic));
      pending = [];
    } catch (e) {
      if (isStoreError(e, 'NOT_CONTROLLER')) throw term.fenced(e.message);
      if (!isStoreError(e, 'CONNECTION_LOSS')) throw e;
      // Applied or not: re-read and judge again; an applied proposal now matches the state.
      await term.deps.gate.afterConnectionLoss(losses++);
      await term.refreshStates(writing.map((p) => p.topic));
      pending = writing;
    }
  }

  for (const p of proposals) {
    const o = outcomes.get(p)!;
    const out = topicOf.get(p)!;
    if ('error' in o) out.partitions.push(errorData(p.partition, o.error));
    else
      out.partitions.push({
        partitionIndex: p.partition,
        errorCode: ErrorCode.NONE,
        leaderId: o.state.leader,
        leaderEpoch: o.state.leaderEpoch,
        isr: [...o.state.isr],
        leaderRecoveryState: o.state.leaderRecoveryState,
        partitionEpoch: o.state.version,
      });
  }
  if (proposals.length > 0) {
    const batch = term.batch();
    batch.updateMetadata(
      ctx.liveBrokerIds(),
      proposals.filter((p) => ctx.hasPartition(p.topic, p.partition)),
    );
    batch.send();
  }
  return response;
}

type Verdict = Outcome | { readonly next: LeaderAndIsr; readonly version: number };

function validate(term: ActiveTerm, brokerId: number, p: Proposal, version: number | undefined): Verdict {
  const ctx = term.ctx;
  const current = ctx.state(p.topic, p.partition);
  if (!ctx.hasPartition(p.topic, p.partition) || current === undefined)
    return { error: ErrorCode.UNKNOWN_TOPIC_OR_PARTITION };
  const d = p.data;
  // A leader ahead of us means a newer controller decided: let it find that one.
  if (d.partitionEpoch > current.version || d.leaderEpoch > current.leaderEpoch)
    return { error: ErrorCode.NOT_CONTROLLER };
  if (d.leaderEpoch < current.leaderEpoch) return { error: ErrorCode.FENCED_LEADER_EPOCH };
  if (brokerId !== current.leader) return { error: ErrorCode.INVALID_REQUEST };
  const recovery = d.leaderRecoveryState === 1 ? 1 : 0;
  // Already the state asked for: answer it (idempotent retries, a write whose reply was lost).
  if (
    sameIsr(p.isr, current.isr) &&
    recovery === current.leaderRecoveryState &&
    d.partitionEpoch <= current.version
  )
    return { state: current };
  if (d.partitionEpoch < current.version) return { error: ErrorCode.INVALID_UPDATE_VERSION };
  if (d.leaderRecoveryState !== 0 && d.leaderRecoveryState !== 1) return { error: ErrorCode.INVALID_REQUEST };
  if (recovery === 1 && p.isr.length > 1) return { error: ErrorCode.INVALID_REQUEST };
  if (current.leaderRecoveryState === 0 && recovery === 1) return { error: ErrorCode.INVALID_REQUEST };
  const replicas = ctx.replicas(p.topic, p.partition);
  if (
    p.isr.length === 0 ||
    new Set(p.isr).size !== p.isr.length ||
    !p.isr.every((r) => replicas.includes(r)) ||
    !p.isr.includes(brokerId)
  )
    return { error: ErrorCode.INVALID_REQUEST };
  const epochs = new Map(d.newIsrWithEpochs.map((b) => [b.brokerId, b.brokerEpoch]));
  const ineligible = p.isr.filter((r) => {
    if (!ctx.isOnline(r)) return true;
    const e = epochs.get(r);
    return e !== undefined && e !== -1n && e !== ctx.liveBrokers.get(r)!.epoch;
  });
  if (ineligible.length > 0) {
    term.log('info', 'AlterPartition rejected: ineligible replicas in the new ISR', {
      topic: p.topic,
      partition: p.partition,
      ineligible,
    });
    return {
      error:
        version === undefined || version > 1
          ? ErrorCode.INELIGIBLE_REPLICA
          : ErrorCode.OPERATION_NOT_ATTEMPTED,
    };
  }
  return {
    next: {
      leader: brokerId,
      leaderEpoch: d.leaderEpoch,
      isr: [...p.isr],
      controllerEpoch: term.epoch,
      leaderRecoveryState: recovery,
    },
    version: current.version,
  };
}

function sameIsr(a: readonly number[], b: readonly number[]): boolean {
  return a.length === b.length && a.every((x, i) => x === b[i]);
}

function errorData(partitionIndex: number, errorCode: number): AlterPartitionResponsePartitionData {
  return {
    partitionIndex,
    errorCode,
    leaderId: -1,
    leaderEpoch: -1,
    isr: [],
    leaderRecoveryState: 0,
    partitionEpoch: -1,
  };
}
