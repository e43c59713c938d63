// The target topics of a delay queue as the scheduler knows them: which exist and how many
// partitions they have. A record for a topic that does not exist (or a partition past its end)
// can never be written; handing it off in a transaction would fail that transaction, and every
// retry would fail again — stalling every record handed off with it. The scheduler asks here
// first and skips such a record instead.
import { Admin } from '../admin/admin.js';
import type { ClientOptions } from '../config.js';
import { partitionCount } from './pattern-topics.js';

/** How long a topic found missing stays missing before it is looked up again. */
const MISSING_RECHECK_MS = 5000;
/** How long a known partition count is trusted (Kafka's metadata.max.age.ms). */
const KNOWN_MAX_AGE_MS = 300_000;

interface Known {
  partitions: number | null;
  checkedAt: number;
}

export class DeliveryTargets {
  readonly #admin: Admin;
  readonly #known = new Map<string, Known>();

  constructor(client: ClientOptions) {
    this.#admin = new Admin(client);
  }

  /** Looks up the topics not known, or known for too long. */
  async learn(topics: Iterable<string>): Promise<void> {
    const now = Date.now();
    for (const topic of new Set(topics)) {
      const k = this.#known.get(topic);
      const maxAge = k?.partitions === null ? MISSING_RECHECK_MS : KNOWN_MAX_AGE_MS;
      if (k !== undefined && now - k.checkedAt < maxAge) continue;
      this.#known.set(topic, { partitions: await partitionCount(this.#admin, topic), checkedAt: now });
    }
  }

  /** Why a record cannot be delivered to `topic` (`partition`), or null if it can. */
  problem(topic: string, partition: number | undefined): string | null {
    const k = this.#known.get(topic);
    if (k === undefined || k.partitions === null) return `target topic ${topic} does not exist`;
    if (partition !== undefined && partition >= k.partitions)
      return `target partition ${partition} does not exist (${topic} has ${k.partitions})`;
    return null;
  }

  async close(): Promise<void> {
    await this.#admin.close();
  }
}
