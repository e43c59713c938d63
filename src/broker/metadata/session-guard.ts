// What a clustered broker does about its metadata-store session (broker.ts wires it after the
// first registration). Without its session a broker cannot prove it still leads: another broker
// may have been made leader meanwhile. So its leaderships stop taking writes (NOT_LEADER_OR_FOLLOWER)
// - after the session timeout without the store (`disconnected`), until it reconnects within the
//   session (`reconnected`: nothing moved, as the registration never went away);
// - when this process did not run for half the session timeout (SIGSTOP, a VM or GC pause): the
//   session may have expired meanwhile — as early as 2/3 of the timeout into the stall, the client
//   pinging every 1/3 — and the requests read first on waking are handled before the ZooKeeper
//   client can learn so (measured: a frozen leader took acks=1 writes for ~100 ms after SIGCONT,
//   lost when it became a follower). Every write as leader checks it; the fence lasts until the
//   session proves intact (reconnected, or no connection trouble for a session timeout after
//   waking);
// - at once on a session expiry, until the controller speaks for the new registration: a
//   LeaderAndIsr with a newer leader epoch, or one at the same epoch still naming this broker
//   leader, sent for a broker epoch newer than the one it was fenced under
//   (`Partition.confirmsLeadership`). The second case is a whole-cluster outage: every session
//   expired, every broker registered again before the next controller read the live brokers, so
//   that controller saw no broker bounce, elected nobody and re-sent the unchanged states, as
//   Kafka's onControllerFailover does. (Kafka's ZooKeeper-mode brokers never fence themselves, so
//   they ignore such a same-epoch LeaderAndIsr and go on leading.)
// After an expiry the broker registers again (a new broker epoch), retrying until it succeeds or a
// newer expiry takes over: a broker that is not registered is dead to the controller for good.

import type { Logger } from '../logger.js';
import type { ReplicaManager } from '../replica/replica-manager.js';
import type { MetadataStore } from './store/metadata-store.js';
import type { BrokerInfo } from './store/records.js';

export interface SessionGuardDeps {
  readonly store: Pick<MetadataStore, 'watch' | 'registerBroker'>;
  readonly replicas: Pick<ReplicaManager, 'fenceLeaders' | 'setLeaderWriteGuard'>;
  readonly registration: Omit<BrokerInfo, 'epoch'>;
  readonly sessionTimeoutMs: number;
  /** Stall detection (false for the embedded broker's local store, which has no session). */
  readonly detectStalls: boolean;
  /** This broker's current registration epoch. */
  brokerEpoch(): bigint;
  /** A new registration took effect. */
  registered(epoch: bigint): void;
  /** False while re-registering after an expiry (the broker is not ready), true once done. */
  setReady(ready: boolean): void;
  readonly logger: Logger;
  /** Pause between re-registration attempts (default 1000 ms). */
  readonly retryBackoffMs?: number;
}

export interface SessionGuard {
  stop(): void;
}

interface Unfenceable {
  unfence(): void;
}

export function guardStoreSession(deps: SessionGuardDeps): SessionGuard {
  const { replicas, logger, sessionTimeoutMs } = deps;
  const retryBackoffMs = deps.retryBackoffMs ?? 1000;
  let stopped = false;
  const timers = new Set<NodeJS.Timeout>();
  const later = (ms: number, fn: () => void): NodeJS.Timeout => {
    const t = setTimeout(() => {
      timers.delete(t);
      fn();
    }, ms);
    t.unref();
    timers.add(t);
    return t;
  };
  const fence = (why: string, registrationLost = false): Unfenceable[] => {
    const fenced = replicas.fenceLeaders(deps.brokerEpoch(), { registrationLost });
    if (fenced.length > 0)
      logger.log('warn', 'refusing writes as leader until the controller confirms', {
        why,
        partitions: fenced.length,
      });
    return fenced;
  };

  let lostSession: NodeJS.Timeout | null = null;
  let fencedByDisconnect: Unfenceable[] = [];
  let fencedByStall: Unfenceable[] = [];
  let connectionEvents = 0;
  const stopLostSessionTimer = () => {
    if (lostSession !== null) {
      clearTimeout(lostSession);
      timers.delete(lostSession);
    }
    lostSession = null;
  };

  let ticker: NodeJS.Timeout | null = null;
  if (deps.detectStalls) {
    const limitMs = sessionTimeoutMs / 2;
    // Monotonic: a wall-clock step is not a stall.
    let lastTick = performance.now();
    const stalled = (now: number): boolean => {
      const gap = now - lastTick;
      if (gap <= limitMs) return false;
      lastTick = now;
      const fenced = fence(`this process did not run for ${Math.round(gap)} ms`);
      fencedByStall.push(...fenced);
      const events = connectionEvents;
      later(sessionTimeoutMs, () => {
        if (connectionEvents !== events) return;
        for (const p of fenced) p.unfence();
        fencedByStall = fencedByStall.filter((p) => !fenced.includes(p));
      });
      return true;
    };
    ticker = setInterval(() => {
      const now = performance.now();
      if (!stalled(now)) lastTick = now;
    }, 100);
    ticker.unref();
    replicas.setLeaderWriteGuard(() => !stalled(performance.now()));
  }

  // Each expiry starts its own registration; a newer one supersedes the attempts of the older.
  let registrations = 0;
  const register = (generation: number, attempt: number): void => {
    deps.store.registerBroker(deps.registration).then(
      (epoch) => {
        if (stopped || generation !== registrations) return;
        deps.registered(epoch);
        deps.setReady(true);
        logger.log('info', 'registered again after a session expiry', {
          nodeId: deps.registration.nodeId,
          brokerEpoch: String(epoch),
          attempts: attempt,
        });
      },
      (e: unknown) => {
        if (stopped || generation !== registrations) return;
        logger.log('warn', 'cannot register again after a session expiry: retrying', {
          error: e instanceof Error ? e.message : String(e),
          attempt,
        });
        later(retryBackoffMs, () => {
          if (!stopped && generation === registrations) register(generation, attempt + 1);
        });
      },
    );
  };

  const unwatch = deps.store.watch({
    disconnected: () => {
      connectionEvents++;
      lostSession ??= later(sessionTimeoutMs, () => {
        lostSession = null;
        fencedByDisconnect = fence('metadata store unreachable');
      });
    },
    // The session survived: nothing moved without this broker's registration going away.
    reconnected: () => {
      connectionEvents++;
      stopLostSessionTimer();
      for (const p of [...fencedByDisconnect, ...fencedByStall]) p.unfence();
      fencedByDisconnect = [];
      fencedByStall = [];
    },
    // A new session lost the ephemeral registration: register again (a new broker epoch). Every
    // leadership is fenced under the lost registration first (also those fenced already, maybe
    // under an older one whose confirmation may still be on its way), so only the controller's
    // word for a later registration lifts it.
    sessionExpired: () => {
      connectionEvents++;
      stopLostSessionTimer();
      fencedByDisconnect = [];
      fencedByStall = [];
      fence('metadata store session expired', true);
      deps.setReady(false);
      register(++registrations, 1);
    },
  });

  return {
    stop() {
      stopped = true;
      unwatch();
      if (ticker !== null) clearInterval(ticker);
      for (const t of timers) clearTimeout(t);
      timers.clear();
    },
  };
}
