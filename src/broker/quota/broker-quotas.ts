// This broker's client quotas: the produce, fetch and request managers, kept in step with the
// quota entities of the metadata store (read at start, then re-read on each `/config/changes`
// notification of a user, client-id or user/client-id entity, and all again after a session
// expiry), so a quota altered through any broker applies on every broker. `enabled` is the one
// flag the request path checks: false until a quota has been configured (as Kafka's
// quotasEnabled, it stays true until restart once one has).

import type { Logger } from '../logger.js';
import type { MetadataStore } from '../metadata/store/metadata-store.js';
import type { ConfigEntity } from '../metadata/store/records.js';
import { ClientQuotaManager } from './client-quota-manager.js';
import { QuotaAdmin } from './quota-admin.js';
import {
  CONSUMER_BYTE_RATE,
  PRODUCER_BYTE_RATE,
  type QuotaEntity,
  quotaEntityOf,
  quotaValues,
  REQUEST_PERCENTAGE,
} from './quota-entities.js';
import type { RateWindows } from './sampled-rate.js';

const QUOTA_ENTITY_TYPES = ['users', 'clients', 'user-clients'] as const;

type Store = Pick<MetadataStore, 'configs' | 'configEntities' | 'watch'>;

export class BrokerQuotas {
  readonly produce: ClientQuotaManager;
  readonly fetch: ClientQuotaManager;
  readonly request: ClientQuotaManager;
  /** Any quota configured since start: the request path does nothing more while false. */
  enabled = false;
  /** What was applied per store entity (`type/name`), to see removals after a reload. */
  readonly #applied = new Map<string, ConfigEntity>();
  #unwatch: (() => void) | null = null;
  #closed = false;

  /** DescribeClientQuotas / AlterClientQuotas over the same store. */
  readonly admin: QuotaAdmin;

  constructor(
    readonly windows: RateWindows,
    private readonly store: Store & Pick<MetadataStore, 'updateConfigs'>,
    private readonly logger?: Logger,
  ) {
    this.produce = new ClientQuotaManager(windows);
    this.fetch = new ClientQuotaManager(windows);
    // Kafka bounds request-quota throttling to one window (ClientRequestQuotaManager).
    this.request = new ClientQuotaManager(windows, windows.windowMs);
    this.admin = new QuotaAdmin(store);
  }

  /** Reads every quota entity, then follows changes. */
  async start(): Promise<void> {
    const store = this.store;
    this.#unwatch = store.watch({
      configChanged: (entity) => {
        if (quotaEntityOf(entity) !== null && entity.type !== 'ips') void this.#refresh(store, entity);
      },
      sessionExpired: () => void this.#reloadAll(store),
    });
    await this.#reloadAll(store);
  }

  close(): void {
    this.#closed = true;
    this.#unwatch?.();
  }

  /** Applies one entity's stored configs (its quota keys; other keys, e.g. SCRAM, are ignored). */
  apply(entity: ConfigEntity, configs: Readonly<Record<string, string>>): void {
    const q = quotaEntityOf(entity);
    if (q === null || q.ip !== undefined) return;
    const values = quotaValues(q, configs);
    const key = `${entity.type}/${entity.name}`;
    // An entity that never had a quota (a SCRAM-only user) leaves the quota path off.
    if (values.size === 0 && !this.#applied.delete(key)) return;
    if (values.size > 0) this.#applied.set(key, entity);
    // As Kafka's config handlers, every manager hears of the entity, with or without its key.
    this.#set(this.produce, q, values.get(PRODUCER_BYTE_RATE));
    this.#set(this.fetch, q, values.get(CONSUMER_BYTE_RATE));
    this.#set(this.request, q, values.get(REQUEST_PERCENTAGE));
    this.enabled = true;
  }

  #set(manager: ClientQuotaManager, q: QuotaEntity, value: number | undefined): void {
    const bound = value !== undefined && value > 0 ? value : null;
    manager.update(storeName(q.user), storeName(q.clientId), bound);
  }

  async #refresh(store: Store, entity: ConfigEntity, attempt = 0): Promise<void> {
    if (this.#closed) return;
    try {
      this.apply(entity, await store.configs(entity));
    } catch (e) {
      this.logger?.log('warn', 'quota config read failed; retrying', {
        entity: `${entity.type}/${entity.name}`,
        error: e instanceof Error ? e.message : String(e),
      });
      const t = setTimeout(
        () => void this.#refresh(store, entity, attempt + 1),
        Math.min(30_000, 1000 * 2 ** attempt),
      );
      t.unref();
    }
  }

  async #reloadAll(store: Store): Promise<void> {
    const seen = new Set<string>();
    for (const type of QUOTA_ENTITY_TYPES) {
      let names: string[];
      try {
        names = await store.configEntities(type);
      } catch (e) {
        this.logger?.log('warn', 'quota entities not readable', { type, error: String(e) });
        continue;
      }
      for (const name of names) {
        const entity = { type, name } as ConfigEntity;
        seen.add(`${type}/${name}`);
        await this.#refresh(store, entity);
      }
    }
    for (const [key, entity] of [...this.#applied]) if (!seen.has(key)) this.apply(entity, {});
  }
}

/** The managers' names: a component's default is `<default>`, as in the store. */
function storeName(name: string | null | undefined): string | undefined {
  return name === undefined ? undefined : (name ?? '<default>');
}
