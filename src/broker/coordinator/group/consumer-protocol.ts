// The embedded "consumer" protocol of classic groups (ConsumerProtocolSubscription and
// ConsumerProtocolAssignment, int16 version prefix, versions 0–3), as the coordinator reads and
// writes it: OffsetDelete needs a non-empty group's subscribed topics, and the online migration
// between classic and consumer groups (KIP-848) turns subscriptions and assignments into member
// state and back. The bytes come from clients: anything unparsable yields null, never an
// exception. A version above 3 is read as 3 (later versions only add fields), as Kafka does.
import {
  type ConsumerProtocolAssignment,
  readConsumerProtocolAssignment,
  writeConsumerProtocolAssignment,
} from '../../../protocol/messages/generated/data/consumer-protocol-assignment.js';
import {
  type ConsumerProtocolSubscription,
  readConsumerProtocolSubscription,
} from '../../../protocol/messages/generated/data/consumer-protocol-subscription.js';
import { Reader } from '../../../protocol/primitives/reader.js';
import { Writer } from '../../../protocol/primitives/writer.js';

export type { ConsumerProtocolAssignment, ConsumerProtocolSubscription };

const HIGHEST = 3;

function read<T>(buf: Buffer, body: (r: Reader, version: number) => T): T | null {
  try {
    const r = new Reader(buf);
    const version = r.int16();
    if (version < 0) return null;
    return body(r, Math.min(version, HIGHEST));
  } catch {
    return null;
  }
}

export function decodeSubscription(metadata: Buffer): ConsumerProtocolSubscription | null {
  return read(metadata, readConsumerProtocolSubscription);
}

/** Topics of a subscription, or null when unknown (not the consumer protocol, or damaged). */
export function subscribedTopics(metadata: Buffer): string[] | null {
  return decodeSubscription(metadata)?.topics ?? null;
}

/** An empty buffer is "no assignment yet" (a member that joined and never synced). */
export function decodeAssignment(bytes: Buffer): ConsumerProtocolAssignment | null {
  if (bytes.length === 0) return { assignedPartitions: [], userData: null };
  return read(bytes, readConsumerProtocolAssignment);
}

/** The version a member's subscription was written in, which its assignment is written in too. */
export function protocolVersion(metadata: Buffer): number {
  if (metadata.length < 2) return 0;
  return Math.max(0, Math.min(metadata.readInt16BE(0), HIGHEST));
}

export function encodeAssignment(
  partitions: ReadonlyArray<{ topic: string; partitions: number[] }>,
  version: number,
): Buffer {
  const w = new Writer(64);
  const v = Math.max(0, Math.min(version, HIGHEST));
  w.int16(v);
  writeConsumerProtocolAssignment(w, v, { assignedPartitions: [...partitions], userData: null });
  return Buffer.from(w.toBuffer());
}
