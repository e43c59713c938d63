// The part of a MetadataStore a broker's publisher reads (configs, config entities, watches),
// in memory, with failure injection: `failReads` makes reads reject (a lost ZooKeeper
// connection), `hangReads` makes them never answer.

import {
  type MetadataStore,
  MetadataStoreError,
  type MetadataStoreListener,
} from '../../../../../src/broker/metadata/store/metadata-store.js';
import type { ConfigEntity } from '../../../../../src/broker/metadata/store/records.js';

export class FakeConfigStore implements Pick<MetadataStore, 'configs' | 'configEntities' | 'watch'> {
  readonly #configs = new Map<string, Record<string, string>>();
  readonly #listeners = new Set<MetadataStoreListener>();
  failReads = false;
  hangReads = false;
  reads = 0;

  #key(e: ConfigEntity): string {
    return `${e.type}/${e.name}`;
  }

  async configs(entity: ConfigEntity): Promise<Record<string, string>> {
    this.reads++;
    if (this.hangReads) return new Promise(() => {});
    if (this.failReads) throw new MetadataStoreError('CONNECTION_LOSS', 'store down');
    return { ...(this.#configs.get(this.#key(entity)) ?? {}) };
  }

  async configEntities(type: ConfigEntity['type']): Promise<string[]> {
    if (this.failReads) throw new MetadataStoreError('CONNECTION_LOSS', 'store down');
    return [...this.#configs.keys()]
      .filter((k) => k.startsWith(`${type}/`))
      .map((k) => k.slice(type.length + 1));
  }

  watch(listener: MetadataStoreListener): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  get watchers(): number {
    return this.#listeners.size;
  }

  /** Sets an entity's overrides without notifying (as if written while the watch was lost). */
  put(entity: ConfigEntity, configs: Record<string, string>): void {
    if (Object.keys(configs).length === 0) this.#configs.delete(this.#key(entity));
    else this.#configs.set(this.#key(entity), { ...configs });
  }

  /** Sets an entity's overrides and sends the `/config/changes` notification. */
  set(entity: ConfigEntity, configs: Record<string, string>): void {
    this.put(entity, configs);
    for (const l of this.#listeners) l.configChanged?.(entity);
  }

  expireSession(): void {
    for (const l of this.#listeners) l.sessionExpired?.();
  }
}
