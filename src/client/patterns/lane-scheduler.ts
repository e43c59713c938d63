// Runs tasks concurrently while keeping the tasks of one lane strictly in order: a lane (one
// key of one partition, or one partition) has at most one task running, the next one starts
// only after the previous one completed, and different lanes run side by side up to
// `maxConcurrency`. Ready lanes are served first come, first served, and a lane goes to the back
// of the queue after each task, so one busy key cannot starve the others.
//
// A failed attempt keeps its task at the head of its lane: the lane is blocked (later tasks of
// the same key wait) while the concurrency slot is given back for the backoff, so one failing
// key never holds up the other keys, and per-key order survives retries.
//
// The scheduler holds only the tasks it was given and not yet completed (queued, running or
// waiting to retry); lanes with nothing left are deleted at once.

export interface LaneTask {
  /** Lanes of one partition are dropped together when the partition is given up. */
  readonly partitionKey: string;
  /** Tasks with the same lane key run one at a time, in order; null = a lane of its own. */
  readonly laneKey: string | null;
  /** Failed attempts so far. */
  attempts: number;
}

/** After a failed attempt: try again after a delay, count it as done, or stop everything. */
export type FailureDecision = { retryAfterMs: number } | 'skip' | 'halt';

export interface LaneHooks<T extends LaneTask> {
  /** One attempt at the task. */
  execute(task: T): Promise<void>;
  /** Decides what a failed attempt leads to (the task's `attempts` already counts it). */
  failed(task: T, error: unknown): Promise<FailureDecision>;
  /** The task completed (or was skipped): it will not run again. */
  completed(task: T): void;
}

interface Lane<T> {
  readonly key: string;
  readonly partitionKey: string;
  readonly tasks: T[];
  /** A task of this lane is running or waiting to retry. */
  busy: boolean;
  /** Pending retry timer. */
  retryTimer: NodeJS.Timeout | null;
  /** The partition was given up: drop the lane when its running task ends. */
  dropped: boolean;
}

export class LaneScheduler<T extends LaneTask> {
  readonly #maxConcurrency: number;
  readonly #hooks: LaneHooks<T>;
  /** partition key → lane key → lane. */
  readonly #lanes = new Map<string, Map<string, Lane<T>>>();
  readonly #ready: Lane<T>[] = [];
  #readyHead = 0;
  #running = 0;
  readonly #runningByPartition = new Map<string, number>();
  readonly #idleWaiters = new Map<string, (() => void)[]>();
  #held = 0;
  #uniqueLane = 0;
  #halted = false;

  constructor(maxConcurrency: number, hooks: LaneHooks<T>) {
    this.#maxConcurrency = maxConcurrency;
    this.#hooks = hooks;
  }

  /** Tasks given and not completed: queued, running, waiting to retry, or stuck after a halt. */
  get held(): number {
    return this.#held;
  }

  get running(): number {
    return this.#running;
  }

  /** No task starts any more (tasks already running finish). */
  halt(): void {
    this.#halted = true;
  }

  add(task: T): void {
    let byLane = this.#lanes.get(task.partitionKey);
    if (byLane === undefined) {
      byLane = new Map();
      this.#lanes.set(task.partitionKey, byLane);
    }
    const key = task.laneKey ?? `\u0001${this.#uniqueLane++}`;
    let lane = byLane.get(key);
    if (lane === undefined) {
      lane = {
        key,
        partitionKey: task.partitionKey,
        tasks: [],
        busy: false,
        retryTimer: null,
        dropped: false,
      };
      byLane.set(key, lane);
    }
    lane.tasks.push(task);
    this.#held++;
    if (lane.tasks.length === 1 && !lane.busy) this.#ready.push(lane);
    this.#pump();
  }

  /**
   * Forgets the partition's tasks that are not running (queued or waiting to retry); running
   * ones finish on their own. Returns how many tasks were dropped.
   */
  dropPartition(partitionKey: string): number {
    const byLane = this.#lanes.get(partitionKey);
    if (byLane === undefined) return 0;
    let dropped = 0;
    for (const lane of byLane.values()) {
      lane.dropped = true;
      if (lane.retryTimer !== null) {
        clearTimeout(lane.retryTimer);
        lane.retryTimer = null;
        lane.busy = false;
      }
      // A running task stays at the head until it ends; everything behind it goes.
      const keep = lane.busy ? 1 : 0;
      dropped += lane.tasks.length - keep;
      lane.tasks.length = keep;
    }
    this.#lanes.delete(partitionKey);
    this.#held -= dropped;
    // Dropped lanes still in the ready queue are skipped when reached.
    return dropped;
  }

  /** Tasks of the partition running right now (retry waits excluded). */
  runningIn(partitionKey: string): number {
    return this.#runningByPartition.get(partitionKey) ?? 0;
  }

  /** Resolves once no task of the partition is running. */
  whenIdle(partitionKey: string): Promise<void> {
    if (this.runningIn(partitionKey) === 0) return Promise.resolve();
    return new Promise((resolve) => {
      const list = this.#idleWaiters.get(partitionKey) ?? [];
      list.push(resolve);
      this.#idleWaiters.set(partitionKey, list);
    });
  }

  #pump(): void {
    while (!this.#halted && this.#running < this.#maxConcurrency && this.#readyHead < this.#ready.length) {
      const lane = this.#ready[this.#readyHead++]!;
      if (this.#readyHead > 1024 && this.#readyHead * 2 > this.#ready.length) {
        this.#ready.splice(0, this.#readyHead);
        this.#readyHead = 0;
      }
      if (lane.dropped || lane.busy || lane.tasks.length === 0) continue;
      this.#start(lane, lane.tasks[0]!);
    }
  }

  #start(lane: Lane<T>, task: T): void {
    lane.busy = true;
    this.#running++;
    this.#runningByPartition.set(lane.partitionKey, this.runningIn(lane.partitionKey) + 1);
    const attempt = async (): Promise<FailureDecision | null> => {
      try {
        await this.#hooks.execute(task);
        return null;
      } catch (err) {
        task.attempts++;
        try {
          return await this.#hooks.failed(task, err);
        } catch {
          return 'halt';
        }
      }
    };
    void attempt().then((decision) => this.#ended(lane, task, decision));
  }

  #ended(lane: Lane<T>, task: T, decision: FailureDecision | null): void {
    this.#running--;
    const n = this.runningIn(lane.partitionKey) - 1;
    if (n > 0) this.#runningByPartition.set(lane.partitionKey, n);
    else {
      this.#runningByPartition.delete(lane.partitionKey);
      const waiters = this.#idleWaiters.get(lane.partitionKey);
      this.#idleWaiters.delete(lane.partitionKey);
      for (const w of waiters ?? []) w();
    }
    if (decision === 'halt') {
      // The task stays unfinished at the head of its lane: nothing after it may run.
      this.#halted = true;
      return;
    }
    if (decision !== null && typeof decision === 'object' && !lane.dropped) {
      lane.retryTimer = setTimeout(() => {
        lane.retryTimer = null;
        lane.busy = false;
        this.#ready.push(lane);
        this.#pump();
      }, decision.retryAfterMs);
      this.#pump();
      return;
    }
    lane.busy = false;
    lane.tasks.shift();
    this.#held--;
    if (!lane.dropped) {
      if (lane.tasks.length > 0) this.#ready.push(lane);
      else this.#lanes.get(lane.partitionKey)?.delete(lane.key);
    }
    // Last, with the lane settled: the hook may add tasks (to this very lane, too). Reported for
    // a dropped lane as well: giving the partition up waits for its running tasks and commits
    // what they completed. A retry due on a dropped lane is simply forgotten.
    if (decision === null || decision === 'skip') this.#hooks.completed(task);
    this.#pump();
  }
}
