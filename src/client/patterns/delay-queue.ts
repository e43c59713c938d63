// Delay queues on plain Kafka topics: a record sent with "deliver at T" (or "after D") reaches
// its target topic no earlier than T. The design (docs/patterns/delay-queues.md) is a timing
// wheel made of topics, one per delay level (e.g. 1 s, 10 s, 1 min, 10 min, 1 h):
//
// - A record waits in the level topic of the largest level not longer than its remaining delay,
//   carrying its final due time (samsa-deliver-at), the time it may leave this level
//   (samsa-delay-until = the time it entered + the level), and its target (samsa-delay-topic).
//   A remaining delay shorter than the smallest level waits in the smallest level, until its
//   due time.
// - The entry time of a hop is the planned one (the time the record was due to leave the
//   previous level), not the time the hop happened, so the hops' latencies never add up: the
//   planned path of a record depends on its delay only.
// - In a level topic, records written later leave later (same level, later entry), so the
//   scheduler only ever looks at the head of each partition (delay-scheduler.ts).
//
// This file holds the level set, the routing (a pure function of the due time and the entry
// time) and the producer side (`delayed()` builds the record to send with any producer).
import { Admin } from '../admin/admin.js';
import type { ClientOptions } from '../config.js';
import type { RecordHeader } from '../consumer/types.js';
import { ConfigError } from '../errors.js';
import type { HeaderValue, RecordHeaders } from '../producer/batch-builder.js';
import type { ProducerRecord } from '../producer/producer.js';
import { checkTopicName, positiveInteger } from './fan-out-options.js';
import { ensureTopic } from './pattern-topics.js';

/** Final due time of a record, ms since the epoch (decimal text); kept on the delivered record. */
export const DELIVER_AT_HEADER = 'samsa-deliver-at';
/** When the record may leave the level topic it is in (ms since the epoch). */
export const DELAY_UNTIL_HEADER = 'samsa-delay-until';
/** The topic the record is delivered to. */
export const DELAY_TOPIC_HEADER = 'samsa-delay-topic';
/** The partition of the target, when the sender chose one. */
export const DELAY_PARTITION_HEADER = 'samsa-delay-partition';

const ROUTING_HEADERS = new Set([DELAY_UNTIL_HEADER, DELAY_TOPIC_HEADER, DELAY_PARTITION_HEADER]);

/** 1 s, 10 s, 1 min, 10 min, 1 h: a delay of a day takes about 30 hops. */
export const DEFAULT_DELAY_LEVELS_MS: readonly number[] = [1000, 10_000, 60_000, 600_000, 3_600_000];

export interface DelayLevel {
  delayMs: number;
  topic: string;
}

export interface DelayQueueOptions {
  /** Prefix of the level topics: `<name>-delay-<level>` (e.g. `reminders-delay-10s`). */
  name: string;
  /** Delay levels in ms, default DEFAULT_DELAY_LEVELS_MS. */
  levels?: readonly number[];
}

/** When a delayed record is due: at a time, or after a delay from now. */
export type DeliveryTime = { deliverAt: Date | number } | { delayMs: number };

/** The next place of a record: a level to wait in until `until`, or null = deliver now. */
export interface Hop {
  level: DelayLevel;
  until: number;
}

/** `1000` → `1s`, `600000` → `10m`, `1500` → `1500ms`. */
export function levelLabel(ms: number): string {
  if (ms % 3_600_000 === 0) return `${ms / 3_600_000}h`;
  if (ms % 60_000 === 0) return `${ms / 60_000}m`;
  if (ms % 1000 === 0) return `${ms / 1000}s`;
  return `${ms}ms`;
}

/**
 * The routing rule: a record due at `deliverAt` that entered (or was planned to enter) its next
 * level at `from` waits in the largest level not longer than the remaining delay, until
 * from + level; with less left than the smallest level, in the smallest level until deliverAt;
 * with nothing left, nowhere (null: deliver it).
 */
export function nextHop(levels: readonly DelayLevel[], deliverAt: number, from: number): Hop | null {
  const remaining = deliverAt - from;
  if (remaining <= 0) return null;
  let chosen: DelayLevel | undefined;
  for (const l of levels) if (l.delayMs <= remaining) chosen = l;
  if (chosen === undefined) return { level: levels[0]!, until: deliverAt };
  return { level: chosen, until: from + chosen.delayMs };
}

function headerPairs(h: RecordHeaders | undefined): [string, HeaderValue][] {
  if (h === undefined) return [];
  const pairs = (
    Array.isArray(h) ? h : Object.entries(h as Record<string, HeaderValue>)
  ) as readonly (readonly [string, HeaderValue])[];
  return pairs.filter(([k]) => k !== DELIVER_AT_HEADER && !ROUTING_HEADERS.has(k)).map(([k, v]) => [k, v]);
}

export class DelayQueue {
  readonly name: string;
  /** Ascending. */
  readonly levels: readonly DelayLevel[];
  readonly #byTopic: Map<string, DelayLevel>;

  constructor(o: DelayQueueOptions) {
    const ms = [...(o.levels ?? DEFAULT_DELAY_LEVELS_MS)];
    if (ms.length === 0) throw new ConfigError('levels must name at least one delay');
    for (const l of ms) positiveInteger('each delay level (ms)', l);
    ms.sort((a, b) => a - b);
    if (new Set(ms).size !== ms.length) throw new ConfigError('levels lists a delay twice');
    this.name = o.name;
    this.levels = ms.map((delayMs) => ({
      delayMs,
      topic: checkTopicName('a level topic', `${o.name}-delay-${levelLabel(delayMs)}`),
    }));
    this.#byTopic = new Map(this.levels.map((l) => [l.topic, l]));
  }

  /** The level a topic of this queue holds, if it is one. */
  levelOf(topic: string): DelayLevel | undefined {
    return this.#byTopic.get(topic);
  }

  /**
   * The record to send, with any producer, so that `record` reaches `record.topic` no earlier than
   * its due time: a record for the level topic it waits in first (keyed records stay in one
   * partition per key, which keeps their order), or — when it is already due — `record` itself,
   * with its due time in a header.
   */
  delayed<K, V>(record: ProducerRecord<K, V> & DeliveryTime, now: number = Date.now()): ProducerRecord<K, V> {
    const {
      deliverAt: at,
      delayMs,
      ...plain
    } = record as ProducerRecord<K, V> & {
      deliverAt?: Date | number;
      delayMs?: number;
    };
    let due: number;
    if (at !== undefined) due = typeof at === 'number' ? at : at.getTime();
    else if (typeof delayMs === 'number' && delayMs >= 0 && Number.isFinite(delayMs)) due = now + delayMs;
    else throw new ConfigError(`a delayed record needs deliverAt or a delayMs ≥ 0, got ${String(delayMs)}`);
    if (!Number.isFinite(due)) throw new ConfigError(`deliverAt is not a valid time: ${String(at)}`);
    due = Math.ceil(due);
    checkTopicName('the target topic', plain.topic);
    if (this.#byTopic.has(plain.topic))
      throw new ConfigError(`the target topic ${plain.topic} is one of the delay queue's own topics`);
    const user = headerPairs(plain.headers);
    const hop = nextHop(this.levels, due, now);
    if (hop === null) return { ...plain, headers: [...user, [DELIVER_AT_HEADER, String(due)]] };
    const { partition, ...rest } = plain;
    const headers: [string, HeaderValue][] = [
      ...user,
      [DELIVER_AT_HEADER, String(due)],
      [DELAY_UNTIL_HEADER, String(hop.until)],
      [DELAY_TOPIC_HEADER, plain.topic],
    ];
    if (partition !== undefined) headers.push([DELAY_PARTITION_HEADER, String(partition)]);
    return { ...rest, topic: hop.level.topic, headers, timestamp: plain.timestamp ?? now };
  }

  /** Creates the level topics that do not exist yet; returns the names of those created. */
  async createTopics(
    client: ClientOptions,
    o: { partitions: number; replicationFactor?: number },
  ): Promise<string[]> {
    const partitions = positiveInteger('partitions', o.partitions);
    const admin = new Admin(client);
    try {
      const created: string[] = [];
      for (const l of this.levels) {
        const r = await ensureTopic(admin, l.topic, partitions, o.replicationFactor, 30_000);
        if (r.created) created.push(l.topic);
      }
      return created;
    } finally {
      await admin.close();
    }
  }
}

/** What the scheduler reads from a level record's headers. */
export interface RoutingInfo {
  deliverAt: number;
  until: number;
  topic: string;
  partition: number | undefined;
  /** The headers of the delivered record: the sender's and samsa-deliver-at. */
  headers: [string, Buffer | null][];
}

/**
 * The routing headers of a record read from a level topic, or a reason why it has none usable.
 * A record without samsa-delay-until (written by hand) leaves its level at its timestamp + level.
 */
export function routingOf(
  headers: readonly RecordHeader[],
  timestamp: number,
  level: DelayLevel,
): RoutingInfo | string {
  let deliverAt: number | undefined;
  let until: number | undefined;
  let topic: string | undefined;
  let partition: number | undefined;
  const keep: [string, Buffer | null][] = [];
  for (const h of headers) {
    const text = h.value?.toString('latin1');
    if (h.key === DELIVER_AT_HEADER) {
      deliverAt = Number(text);
      keep.push([h.key, h.value]);
    } else if (h.key === DELAY_UNTIL_HEADER) until = Number(text);
    else if (h.key === DELAY_TOPIC_HEADER) topic = h.value?.toString('utf8');
    else if (h.key === DELAY_PARTITION_HEADER) partition = Number(text);
    else keep.push([h.key, h.value]);
  }
  if (topic === undefined || topic === '') return `no ${DELAY_TOPIC_HEADER} header`;
  until ??= timestamp + level.delayMs;
  deliverAt ??= until;
  if (!Number.isFinite(deliverAt) || !Number.isFinite(until)) return 'a time header is not a number';
  if (partition !== undefined && !(Number.isInteger(partition) && partition >= 0))
    return `${DELAY_PARTITION_HEADER} is not a partition number`;
  return { deliverAt, until, topic, partition, headers: keep };
}
