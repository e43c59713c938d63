// ControlledShutdown (Kafka's doControlledShutdown): a broker about to stop asks the controller to
// move its leaderships first. Every partition it leads (replication factor > 1) gets another ISR
// member as leader and loses it from the ISR; every partition it follows stops fetching
// (StopReplica without delete) and drops it from the ISR. The answer lists the partitions it still
// leads — those with no other ISR member — and the broker retries until that list is empty.

import { ErrorCode, KafkaError } from '../../../protocol/errors.js';
import type { TopicPartition } from '../store/records.js';
import type { ActiveTerm } from './active-term.js';
import { electControlledShutdown, removeFromIsr } from './leader-election.js';
import { announce } from './partition-elections.js';
import { updatePartitionStates } from './state-updates.js';

/** UNKNOWN_BROKER_EPOCH in Kafka's control requests: no epoch check. */
const UNKNOWN_BROKER_EPOCH = -1n;

export async function controlledShutdown(
  term: ActiveTerm,
  brokerId: number,
  brokerEpoch: bigint,
): Promise<TopicPartition[]> {
  const ctx = term.ctx;
  const live = ctx.liveBrokers.get(brokerId);
  if (brokerEpoch !== UNKNOWN_BROKER_EPOCH && live !== undefined && brokerEpoch < live.epoch) {
    throw new KafkaError(
      ErrorCode.STALE_BROKER_EPOCH,
      `Received controlled shutdown request from an old broker epoch ${brokerEpoch} for broker ${brokerId}. Current broker epoch is ${live.epoch}.`,
    );
  }
  if (live === undefined)
    throw new KafkaError(ErrorCode.BROKER_NOT_AVAILABLE, `Broker id ${brokerId} does not exist.`);
  ctx.shuttingDown.add(brokerId);
  term.log('info', 'controlled shutdown', { broker: brokerId });

  const actOn = ctx
    .partitionsOnBrokers(new Set([brokerId]))
    .filter(
      (tp) =>
        ctx.replicas(tp.topic, tp.partition).length > 1 &&
        ctx.state(tp.topic, tp.partition) !== undefined &&
        !ctx.isQueuedForDeletion(tp.topic),
    );
  const led = actOn.filter((tp) => ctx.state(tp.topic, tp.partition)?.leader === brokerId);
  const followed = actOn.filter((tp) => ctx.state(tp.topic, tp.partition)?.leader !== brokerId);

  const batch = term.batch();
  const moved = await updatePartitionStates(term, led, (tp, current) =>
    current === undefined || current.leader !== brokerId
      ? null
      : electControlledShutdown(
          current,
          ctx.replicas(tp.topic, tp.partition),
          ctx.isLive,
          ctx.shuttingDown,
          term.epoch,
        ),
  );
  announce(term, batch, moved);
  for (const tp of followed) batch.stopReplica([brokerId], tp, false);
  const shrunk = await updatePartitionStates(term, followed, (_tp, current) =>
    current === undefined || current.leader === brokerId
      ? null
      : removeFromIsr(current, [brokerId], term.epoch),
  );
  for (const tp of shrunk.changed) {
    // The stopping broker already got StopReplica: only the others hear about the shrink.
    const recipients = ctx.replicas(tp.topic, tp.partition).filter((r) => r !== brokerId && ctx.isLive(r));
    batch.leaderAndIsr(recipients, tp);
  }
  batch.send();
  return ctx.partitionsLedBy(brokerId);
}
