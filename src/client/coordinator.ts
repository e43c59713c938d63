// Finds (and caches) the coordinator broker of a consumer group (key type 0) or a transactional
// id (key type 1) with FindCoordinator, retrying while the coordinator is not available yet
// (the internal topic may still be created or loading). Callers invalidate the cache entry when a
// response says NOT_COORDINATOR / COORDINATOR_NOT_AVAILABLE.
import { backoffMs } from '../net/backoff.js';
import type { BrokerLink } from '../net/broker-link.js';
import { ErrorCode } from '../protocol/errors.js';
import { findCoordinatorApi } from '../protocol/messages/generated/find-coordinator.js';
import type { BrokerPool } from './broker-pool.js';
import { KafkaClientError, KafkaResponseError } from './errors.js';

export const COORDINATOR_GROUP = 0;
export const COORDINATOR_TRANSACTION = 1;

/** Errors after which the cached coordinator must be looked up again. */
export const COORDINATOR_MOVED = new Set<number>([
  ErrorCode.NOT_COORDINATOR,
  ErrorCode.COORDINATOR_NOT_AVAILABLE,
]);

export class Coordinators {
  readonly #pool: BrokerPool;
  #cache = new Map<string, BrokerLink>();

  constructor(pool: BrokerPool) {
    this.#pool = pool;
  }

  invalidate(keyType: number, key: string): void {
    this.#cache.delete(`${keyType}:${key}`);
    this.#cache.delete(`${keyType}:${key}:own`);
  }

  /**
   * `ownConnection`: a connection to the coordinator used for nothing else (`coordinatorLink`),
   * so that its requests never queue behind a Fetch long poll to the same broker (the consumer).
   */
  async find(keyType: number, key: string, timeoutMs: number, ownConnection = false): Promise<BrokerLink> {
    const cacheKey = ownConnection ? `${keyType}:${key}:own` : `${keyType}:${key}`;
    const cached = this.#cache.get(cacheKey);
    // The pool closes a link when metadata drops its broker (a dead coordinator's, typically):
    // a closed link would fail every later request with ClientClosedError, never retried.
    if (cached !== undefined && !cached.closed) return cached;
    const opts = this.#pool.options;
    const deadline = Date.now() + timeoutMs;
    let last: Error | undefined;
    for (let attempt = 0; ; attempt++) {
      try {
        const link = await this.#lookup(keyType, key, ownConnection);
        this.#cache.set(cacheKey, link);
        return link;
      } catch (err) {
        if (!(err instanceof KafkaClientError) || !err.retriable) throw err;
        last = err;
      }
      const wait = backoffMs(opts.retryBackoffMs, opts.retryBackoffMaxMs, attempt);
      if (Date.now() + wait >= deadline) throw last;
      await new Promise((r) => setTimeout(r, wait));
    }
  }

  async #lookup(keyType: number, key: string, ownConnection: boolean): Promise<BrokerLink> {
    const any = await this.#pool.any();
    const res = await any.request(
      findCoordinatorApi,
      { key, keyType, coordinatorKeys: [key] },
      {
        // key type 1 needs v1+; v0 is gone from Kafka 4 anyway
        minVersion: keyType === COORDINATOR_GROUP ? 0 : 1,
      },
    );
    // v4+ answers per key in `coordinators`; older versions in the top-level fields.
    const c = res.coordinators.find((x) => x.key === key);
    const errorCode = c ? c.errorCode : res.errorCode;
    if (errorCode !== 0) {
      throw new KafkaResponseError(
        errorCode,
        `FindCoordinator(${keyType === 0 ? 'group' : 'transaction'} ${key})`,
        c ? c.errorMessage : res.errorMessage,
      );
    }
    const addr = c
      ? { nodeId: c.nodeId, host: c.host, port: c.port }
      : { nodeId: res.nodeId, host: res.host, port: res.port };
    return ownConnection
      ? this.#pool.coordinatorLink({ ...addr, rack: null })
      : this.#pool.linkTo({ ...addr, rack: null });
  }
}
