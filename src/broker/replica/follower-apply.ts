// What a follower does with its leader's answer for one partition (Kafka's
// AbstractFetcherThread.processFetchRequest for one partition, ReplicaFetcherThread's
// processPartitionData), apart from the network so that tests drive it directly:
//
// - records: appended as follower (offsets, epochs, timestamps kept: the bytes are written as
//   they came); then the HW becomes min(leader HW, log end offset) and the log start offset
//   follows the leader's (up to the local HW);
// - a diverging epoch: the log is truncated where it stops agreeing (`divergence.ts`), and the
//   next fetch goes on from there;
// - OFFSET_OUT_OF_RANGE: below the leader's log start → the log restarts empty there; above what
//   the leader has → truncated to the leader's HW;
// - FENCED_LEADER_EPOCH: this replica's epoch is older than the leader's: stop fetching it until
//   the next LeaderAndIsr; any other error (UNKNOWN_LEADER_EPOCH, NOT_LEADER_OR_FOLLOWER: the
//   leader has not applied its LeaderAndIsr yet, …) → retried after the backoff.

import { ErrorCode, KafkaError } from '../../protocol/errors.js';
import type { FetchResponsePartitionData } from '../../protocol/messages/generated/fetch.js';
import type { Logger } from '../logger.js';
import { followerTruncation } from './divergence.js';
import type { Partition } from './partition.js';

/** One partition's fetch position. */
export interface FollowerFetchState {
  readonly partition: Partition;
  /** The leader epoch this replica follows with (its current one when the fetching began). */
  readonly leaderEpoch: number;
  fetchOffset: bigint;
  lastFetchedEpoch: number;
}

/** What the fetcher does next with the partition. */
export type ApplyOutcome = 'fetch' | 'backoff' | 'fenced';

export type FetchedPartition = Pick<
  FetchResponsePartitionData,
  'errorCode' | 'highWatermark' | 'logStartOffset' | 'records' | 'divergingEpoch'
>;

/** A partition's first fetch state: from its log end offset, with its latest epoch. */
export function initialFetchState(p: Partition): FollowerFetchState {
  return {
    partition: p,
    leaderEpoch: p.leaderEpoch,
    fetchOffset: p.log.logEndOffset,
    lastFetchedEpoch: p.log.latestEpoch,
  };
}

/**
 * Applies the leader's answer; throws KafkaError when the log refuses (the fetcher backs off).
 * `appended` is told the record bytes written (ReplicationBytesInPerSec).
 */
export async function applyFetchedPartition(
  s: FollowerFetchState,
  pd: FetchedPartition,
  logger: Logger,
  appended?: (bytes: number) => void,
): Promise<ApplyOutcome> {
  switch (pd.errorCode) {
    case ErrorCode.NONE:
      if (pd.divergingEpoch.epoch >= 0 && pd.divergingEpoch.endOffset >= 0n) {
        const point = followerTruncation(pd.divergingEpoch, s.partition.log);
        await truncate(
          s,
          point.offset,
          point.complete ? 'diverging epoch' : 'diverging epoch (intermediate)',
          logger,
        );
        return 'fetch';
      }
      await append(s, pd, appended);
      return 'fetch';
    case ErrorCode.OFFSET_OUT_OF_RANGE:
      return outOfRange(s, pd, logger);
    case ErrorCode.FENCED_LEADER_EPOCH:
      logger.log('info', 'leader has a newer epoch: waiting for its LeaderAndIsr', {
        topic: s.partition.topic,
        partition: s.partition.index,
        leaderEpoch: s.leaderEpoch,
      });
      return 'fenced';
    default:
      return 'backoff';
  }
}

async function append(
  s: FollowerFetchState,
  pd: FetchedPartition,
  appended: ((bytes: number) => void) | undefined,
): Promise<void> {
  const log = s.partition.log;
  if (s.fetchOffset !== log.logEndOffset) {
    // Only the fetcher writes a follower's log; anything else is a bug: start over from the log.
    const expected = s.fetchOffset;
    reset(s);
    throw new KafkaError(
      ErrorCode.UNKNOWN_SERVER_ERROR,
      `fetch offset ${expected} is not the log end offset ${log.logEndOffset}`,
    );
  }
  const records = pd.records;
  if (records !== null && records.length > 0) {
    const r = await log.appendAsFollower(records);
    appended?.(records.length);
    if (r !== null) s.fetchOffset = r.lastOffset + 1n;
    s.lastFetchedEpoch = log.latestEpoch;
  }
  if (pd.highWatermark >= 0n) log.setHighWatermark(pd.highWatermark);
  // biome-ignore lint/complexity/useMathMinMax: bigint
  const start = pd.logStartOffset < log.highWatermark ? pd.logStartOffset : log.highWatermark;
  if (pd.logStartOffset >= 0n && start > log.logStartOffset) await log.deleteRecordsBefore(start);
}

async function outOfRange(
  s: FollowerFetchState,
  pd: FetchedPartition,
  logger: Logger,
): Promise<ApplyOutcome> {
  const log = s.partition.log;
  if (pd.logStartOffset >= 0n && s.fetchOffset < pd.logStartOffset) {
    logger.log('info', 'follower log restarts at the leader log start offset', {
      topic: s.partition.topic,
      partition: s.partition.index,
      logStartOffset: String(pd.logStartOffset),
    });
    await log.truncateFullyAndStartAt(pd.logStartOffset);
    reset(s);
    return 'fetch';
  }
  if (pd.highWatermark >= 0n && pd.highWatermark < log.logEndOffset) {
    await truncate(s, pd.highWatermark, 'offset out of range on the leader', logger);
    return 'fetch';
  }
  logger.log('warn', 'follower fetch offset out of range, retrying', {
    topic: s.partition.topic,
    partition: s.partition.index,
    fetchOffset: String(s.fetchOffset),
    leaderLogStartOffset: String(pd.logStartOffset),
    leaderHighWatermark: String(pd.highWatermark),
  });
  return 'backoff';
}

async function truncate(s: FollowerFetchState, offset: bigint, why: string, logger: Logger): Promise<void> {
  const log = s.partition.log;
  if (offset < log.logEndOffset) {
    logger.log(offset < log.highWatermark ? 'warn' : 'info', 'follower truncates its log', {
      topic: s.partition.topic,
      partition: s.partition.index,
      offset: String(offset),
      logEndOffset: String(log.logEndOffset),
      highWatermark: String(log.highWatermark),
      why,
    });
  }
  // Also at the log end: an epoch begun there without a write (as leader) goes.
  await log.truncateTo(offset);
  reset(s);
}

function reset(s: FollowerFetchState): void {
  s.fetchOffset = s.partition.log.logEndOffset;
  s.lastFetchedEpoch = s.partition.log.latestEpoch;
}
