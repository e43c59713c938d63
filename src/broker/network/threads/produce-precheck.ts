// A network thread's share of Produce (`num.network.threads` > 1): before a Produce frame goes to
// the event loop, the config-free checks of each partition's batch run here, as Kafka runs them
// in its request handler threads, in parallel across partitions. The event loop is told which
// batches passed (their byte ranges in the frame) and skips those checks for exactly those bytes
// (`markVerifiedBatches`); everything that needs config or state (sizes, timestamps, producer
// state, transactions) stays there. A batch that fails here is simply not marked: the event
// loop's own checks answer it, so the error codes are the single-thread broker's.

import { decodeRequestHeader } from '../../../protocol/messages/frame.js';
import { produceApi } from '../../../protocol/messages/generated/produce.js';
import { checkClientBatch } from '../../../storage/log-validator.js';

/** Produce v0-2 carry legacy message sets, converted on the event loop; v3+ one v2 batch each
 * (the same bound as `apis/00-produce.ts`, which the threads do not load). */
const FIRST_BATCH_VERSION = 3;

/**
 * The [byteOffset, length] pairs (within `frame.buffer`) of the records fields of a Produce
 * request that passed `checkClientBatch`, or undefined when there are none (not a Produce v3+
 * frame, undecodable, or no batch passed).
 */
export function precheckProduce(frame: Buffer): number[] | undefined {
  if (frame.length < 4 || frame.readInt16BE(0) !== produceApi.key) return undefined;
  const version = frame.readInt16BE(2);
  if (version < FIRST_BATCH_VERSION || version > produceApi.maxVersion) return undefined;
  let topics: ReturnType<typeof produceApi.readRequest>['topicData'];
  try {
    topics = produceApi.readRequest(decodeRequestHeader(frame).reader, version).topicData;
  } catch {
    return undefined; // the event loop's decoder answers it
  }
  let verified: number[] | undefined;
  for (const topic of topics) {
    for (const { records } of topic.partitionData) {
      if (records === null || records.length === 0 || !passes(records)) continue;
      verified ??= [];
      verified.push(records.byteOffset, records.length);
    }
  }
  return verified;
}

function passes(records: Buffer): boolean {
  try {
    checkClientBatch(records);
    return true;
  } catch {
    return false;
  }
}
