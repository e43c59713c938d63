// Collects what a classic-group operation writes while it mutates the group in memory.
// Classic membership state (who is waiting in a join, pending syncs) is transient, so, as in
// Kafka, these operations change memory directly and their GroupMetadata records only
// persist the outcome: the result is built with replayRecords = false.
import type { CoordinatorResult } from '../runtime/coordinator-shard.js';
import type { GroupRecord } from './group-records.js';

export class OpEffects {
  readonly records: GroupRecord[] = [];
  readonly #callbacks: Array<(err: Error | null) => void> = [];

  write(record: GroupRecord, onAppended?: (err: Error | null) => void): void {
    this.records.push(record);
    if (onAppended !== undefined) this.#callbacks.push(onAppended);
  }

  toResult<T>(response: T): CoordinatorResult<GroupRecord, T> {
    const callbacks = this.#callbacks;
    return {
      records: this.records,
      response,
      replayRecords: false,
      onAppended:
        callbacks.length === 0
          ? undefined
          : (err) => {
              for (const cb of callbacks) cb(err);
            },
    };
  }
}
