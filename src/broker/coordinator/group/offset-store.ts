// Committed offsets of every group of one shard: group → topic → partition → value. Changed
// only by replaying OffsetCommit records (a null value deletes).
import type { OffsetValue } from './group-records.js';

export type TopicOffsets = Map<number, OffsetValue>;

export class OffsetStore {
  readonly #groups = new Map<string, Map<string, TopicOffsets>>();

  replay(group: string, topic: string, partition: number, value: OffsetValue | null): void {
    this.put(group, topic, partition, value);
  }

  /** `replay` that returns the value it replaced (undefined: none), to take the record back later. */
  put(group: string, topic: string, partition: number, value: OffsetValue | null): OffsetValue | undefined {
    let topics = this.#groups.get(group);
    if (value === null) {
      const parts = topics?.get(topic);
      if (parts === undefined || topics === undefined) return undefined;
      const previous = parts.get(partition);
      parts.delete(partition);
      if (parts.size === 0) topics.delete(topic);
      if (topics.size === 0) this.#groups.delete(group);
      return previous;
    }
    if (topics === undefined) {
      topics = new Map();
      this.#groups.set(group, topics);
    }
    let parts = topics.get(topic);
    if (parts === undefined) {
      parts = new Map();
      topics.set(topic, parts);
    }
    const previous = parts.get(partition);
    parts.set(partition, value);
    return previous;
  }

  get(group: string, topic: string, partition: number): OffsetValue | undefined {
    return this.#groups.get(group)?.get(topic)?.get(partition);
  }

  topics(group: string): ReadonlyMap<string, TopicOffsets> {
    return this.#groups.get(group) ?? new Map();
  }

  has(group: string): boolean {
    return this.#groups.has(group);
  }

  /** Every (topic, partition, value) of a group, in a stable order. */
  *entries(group: string): IterableIterator<[string, number, OffsetValue]> {
    const topics = this.#groups.get(group);
    if (topics === undefined) return;
    for (const [topic, parts] of topics)
      for (const [partition, value] of parts) yield [topic, partition, value];
  }

  groupIds(): IterableIterator<string> {
    return this.#groups.keys();
  }
}
