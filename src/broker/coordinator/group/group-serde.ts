// GroupRecord <-> __consumer_offsets bytes, in Kafka's formats (so a log written by Samsa
// reads as Kafka's and vice versa), KIP-848 consumer-group records included. Other record types
// (KIP-932 share groups, 4.0's regex records) are skipped;
// damaged ones throw, failing the load as in Kafka rather than silently losing offsets.

import {
  decodeConsumerGroupRecord,
  encodeConsumerGroupRecord,
  isConsumerGroupKeyVersion,
} from '../../../protocol/internal-topics/consumer-group-records.js';
import {
  decodeConsumerOffsetsRecord,
  encodeGroupMetadataKey,
  encodeGroupMetadataValue,
} from '../../../protocol/internal-topics/index.js';
import type { RecordSerde } from '../runtime/coordinator-shard.js';
import type { SerializedRecord } from '../runtime/partition-writer.js';
import type { GroupRecord } from './group-records.js';
import { encodeOffsetRecord } from './offset-record-encoder.js';

export const groupRecordSerde: RecordSerde<GroupRecord> = {
  serialize(r: GroupRecord): SerializedRecord {
    if (r.kind === 'consumer') return encodeConsumerGroupRecord(r.record);
    if (r.kind === 'offset') return encodeOffsetRecord(r.group, r.topic, r.partition, r.value);
    const key = encodeGroupMetadataKey({ group: r.group });
    const v = r.value;
    if (v === null) return { key, value: null };
    return {
      key,
      value: encodeGroupMetadataValue({
        protocolType: v.protocolType,
        generation: v.generation,
        protocol: v.protocol,
        leader: v.leader,
        currentStateTimestamp: BigInt(v.currentStateTimestamp),
        members: v.members.map((m) => ({
          memberId: m.memberId,
          groupInstanceId: m.groupInstanceId,
          clientId: m.clientId,
          clientHost: m.clientHost,
          rebalanceTimeout: m.rebalanceTimeoutMs,
          sessionTimeout: m.sessionTimeoutMs,
          subscription: m.subscription,
          assignment: m.assignment,
        })),
      }),
    };
  },

  deserialize(rec: SerializedRecord): GroupRecord | null {
    const d = decodeConsumerOffsetsRecord(rec.key, rec.value);
    if (d.type === 'unknown') {
      if (!isConsumerGroupKeyVersion(d.keyVersion)) return null;
      return { kind: 'consumer', record: decodeConsumerGroupRecord(rec.key, rec.value) };
    }
    if (d.type === 'offset') {
      const v = d.value;
      return {
        kind: 'offset',
        group: d.key.group,
        topic: d.key.topic,
        partition: d.key.partition,
        value:
          v === null
            ? null
            : {
                offset: v.offset,
                leaderEpoch: v.leaderEpoch,
                metadata: v.metadata,
                commitTimestamp: Number(v.commitTimestamp),
                expireTimestamp: Number(v.expireTimestamp),
              },
      };
    }
    const v = d.value;
    return {
      kind: 'group',
      group: d.key.group,
      value:
        v === null
          ? null
          : {
              protocolType: v.protocolType,
              generation: v.generation,
              protocol: v.protocol,
              leader: v.leader,
              currentStateTimestamp: Number(v.currentStateTimestamp),
              members: v.members.map((m) => ({
                memberId: m.memberId,
                groupInstanceId: m.groupInstanceId,
                clientId: m.clientId,
                clientHost: m.clientHost,
                rebalanceTimeoutMs: m.rebalanceTimeout,
                sessionTimeoutMs: m.sessionTimeout,
                subscription: m.subscription,
                assignment: m.assignment,
              })),
            },
    };
  },
};
