// Parking for long-poll fetches (Kafka's DelayedFetch): resolves when any of the logs reports
// an append or a high-watermark move, when the wait times out, or when the broker shuts down.
// The caller then reads again and decides whether MinBytes is met; this keeps the "is it
// satisfied?" logic in one place (the read itself) instead of estimating bytes from offsets.

import type { PartitionLog } from '../../storage/index.js';
import type { ReplicaManager } from './replica-manager.js';

export type WakeReason = 'data' | 'timeout' | 'shutdown';

/** A log and the high watermark it had when the caller read it. */
export interface WatchedLog {
  readonly log: PartitionLog;
  readonly highWatermark: bigint;
}

export function waitForAppend(
  watched: readonly WatchedLog[],
  timeoutMs: number,
  replicas: ReplicaManager,
): Promise<WakeReason> {
  if (timeoutMs <= 0) return Promise.resolve('timeout');
  return new Promise((resolve) => {
    const unsubscribe: (() => void)[] = [];
    let done = false;
    const finish = (reason: WakeReason): void => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      for (const u of unsubscribe) u();
      resolve(reason);
    };
    const timer = setTimeout(() => finish('timeout'), timeoutMs);
    for (const log of new Set(watched.map((w) => w.log)))
      unsubscribe.push(log.onAppend(() => finish('data')));
    unsubscribe.push(replicas.onShutdown(() => finish('shutdown')));
    // An append that completed while the caller was reading would otherwise be missed.
    if (watched.some((w) => w.log.highWatermark !== w.highWatermark)) finish('data');
  });
}
