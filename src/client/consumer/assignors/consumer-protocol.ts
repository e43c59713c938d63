// ConsumerProtocolSubscription / ConsumerProtocolAssignment (the opaque bytes of JoinGroup and
// SyncGroup for protocol type "consumer"): an int16 version followed by the generated schema.
// Like Kafka's ConsumerProtocol, a version newer than we know is read with the newest layout we
// know (later versions only append fields), so a newer client in the group does not break us.
// Malformed bytes throw the protocol's DecodeError.

import {
  consumerProtocolAssignmentVersions,
  readConsumerProtocolAssignment,
  writeConsumerProtocolAssignment,
} from '../../../protocol/messages/generated/data/consumer-protocol-assignment.js';
import {
  consumerProtocolSubscriptionVersions,
  readConsumerProtocolSubscription,
  writeConsumerProtocolSubscription,
} from '../../../protocol/messages/generated/data/consumer-protocol-subscription.js';
import { DecodeError } from '../../../protocol/primitives/errors.js';
import { Reader } from '../../../protocol/primitives/reader.js';
import { Writer } from '../../../protocol/primitives/writer.js';
import { groupByTopic, type TopicPartition } from '../types.js';
import type { MemberAssignment, MemberSubscription } from './assignor.js';

export const SUBSCRIPTION_VERSION = consumerProtocolSubscriptionVersions.maxVersion;
export const ASSIGNMENT_VERSION = consumerProtocolAssignmentVersions.maxVersion;

function toTopicList(tps: Iterable<TopicPartition>): { topic: string; partitions: number[] }[] {
  return [...groupByTopic(tps)].map(([topic, partitions]) => ({ topic, partitions }));
}

function fromTopicList(list: { topic: string; partitions: number[] }[]): TopicPartition[] {
  const out: TopicPartition[] = [];
  for (const t of list) for (const partition of t.partitions) out.push({ topic: t.topic, partition });
  return out;
}

function readVersion(r: Reader, what: string, max: number): number {
  const v = r.int16();
  if (v < 0) throw new DecodeError('UNSUPPORTED_VERSION', `${what} version ${v} is negative`, 0);
  return Math.min(v, max);
}

export function encodeSubscription(s: MemberSubscription, version: number = SUBSCRIPTION_VERSION): Buffer {
  const w = new Writer(64);
  w.int16(version);
  writeConsumerProtocolSubscription(w, version, {
    topics: s.topics,
    userData: s.userData,
    ownedPartitions: toTopicList(s.ownedPartitions),
    generationId: s.generationId,
    rackId: s.rackId,
  });
  return w.toBuffer();
}

export function decodeSubscription(buf: Buffer): MemberSubscription {
  const r = new Reader(buf);
  const v = readVersion(r, 'ConsumerProtocolSubscription', SUBSCRIPTION_VERSION);
  const s = readConsumerProtocolSubscription(r, v);
  return {
    topics: s.topics,
    userData: s.userData,
    ownedPartitions: fromTopicList(s.ownedPartitions),
    generationId: s.generationId,
    rackId: s.rackId,
  };
}

export function encodeAssignment(a: MemberAssignment, version: number = ASSIGNMENT_VERSION): Buffer {
  const w = new Writer(64);
  w.int16(version);
  writeConsumerProtocolAssignment(w, version, {
    assignedPartitions: toTopicList(a.partitions),
    userData: a.userData,
  });
  return w.toBuffer();
}

/** An empty buffer is a valid "nothing assigned" (Kafka's coordinator sends one to members it had no assignment for). */
export function decodeAssignment(buf: Buffer): MemberAssignment {
  if (buf.length === 0) return { partitions: [], userData: null };
  const r = new Reader(buf);
  const v = readVersion(r, 'ConsumerProtocolAssignment', ASSIGNMENT_VERSION);
  const a = readConsumerProtocolAssignment(r, v);
  return { partitions: fromTopicList(a.assignedPartitions), userData: a.userData };
}

/**
 * User data of Kafka's eager "sticky" assignor (StickyAssignor: previous assignment + generation,
 * no version prefix; the generation field is absent in the oldest form).
 */
export function encodeStickyUserData(partitions: Iterable<TopicPartition>, generation: number): Buffer {
  const w = new Writer(64);
  const list = toTopicList(partitions);
  w.arrayLength(list.length);
  for (const t of list) {
    w.string(t.topic);
    w.arrayLength(t.partitions.length);
    for (const p of t.partitions) w.int32(p);
  }
  w.int32(generation);
  return w.toBuffer();
}

export function decodeStickyUserData(buf: Buffer): { partitions: TopicPartition[]; generation: number } {
  const r = new Reader(buf);
  const n = r.arrayLength(6);
  const partitions: TopicPartition[] = [];
  for (let i = 0; i < n; i++) {
    const topic = r.string();
    const m = r.arrayLength(4);
    for (let j = 0; j < m; j++) partitions.push({ topic, partition: r.int32() });
  }
  const generation = r.remaining >= 4 ? r.int32() : -1;
  return { partitions, generation };
}

/** Cooperative-sticky user data: the generation as an int32 (for members that send v0/v1 subscriptions). */
export function encodeGenerationUserData(generation: number): Buffer {
  const b = Buffer.alloc(4);
  b.writeInt32BE(generation, 0);
  return b;
}

export function decodeGenerationUserData(buf: Buffer | null): number {
  return buf !== null && buf.length >= 4 ? buf.readInt32BE(0) : -1;
}
