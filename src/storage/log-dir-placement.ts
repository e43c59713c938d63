// Which of a broker's log dirs (JBOD) takes a new log, by Kafka's rules: the online dir with the
// fewest logs (ties: `log.dirs` order), unless AlterReplicaLogDirs chose one for a partition not
// hosted yet. Also the dirs an I/O error took offline: nothing is placed there any more.

import { ErrorCode, KafkaError } from '../protocol/errors.js';

export class LogDirPlacement {
  /** Logs per dir, counted when a creation starts so that concurrent ones spread. */
  readonly #counts = new Map<string, number>();
  /** Failed log dirs and why (Kafka: offline dirs). */
  readonly #offline = new Map<string, Error>();
  /** Dirs AlterReplicaLogDirs chose for partitions this broker does not host yet, by key. */
  readonly #preferred = new Map<string, string>();

  constructor(readonly dirs: readonly string[]) {}

  added(dir: string): void {
    this.#counts.set(dir, (this.#counts.get(dir) ?? 0) + 1);
  }

  removed(dir: string): void {
    this.#counts.set(dir, (this.#counts.get(dir) ?? 1) - 1);
  }

  /** Picks and counts the dir for a new log (`removed` undoes it if the creation fails). */
  place(key: string): string {
    const online = this.dirs.filter((d) => !this.#offline.has(d));
    const preferred = this.#preferred.get(key);
    this.#preferred.delete(key);
    let root = preferred !== undefined && online.includes(preferred) ? preferred : online[0];
    if (root === undefined)
      throw new KafkaError(ErrorCode.KAFKA_STORAGE_ERROR, 'No log dir is online to create a log in');
    if (root !== preferred) {
      for (const d of online) if ((this.#counts.get(d) ?? 0) < (this.#counts.get(root) ?? 0)) root = d;
    }
    this.added(root);
    return root;
  }

  prefer(key: string, dir: string): void {
    if (this.dirs.includes(dir)) this.#preferred.set(key, dir);
  }

  isOffline(dir: string): boolean {
    return this.#offline.has(dir);
  }

  get anyOffline(): boolean {
    return this.#offline.size > 0;
  }

  get offlineDirs(): readonly string[] {
    return [...this.#offline.keys()];
  }

  /** Records a dir as failed; false when it is not one of ours or was offline already. */
  markOffline(dir: string, error: Error): boolean {
    if (this.#offline.has(dir) || !this.dirs.includes(dir)) return false;
    this.#offline.set(dir, error);
    return true;
  }
}
