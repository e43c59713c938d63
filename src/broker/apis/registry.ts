// The table of implemented APIs. Adding an API = writing `NN-name.ts` and listing it here;
// ApiVersions advertises exactly this table.

import type { AnyApiHandler } from './api.js';

export class ApiRegistry {
  private readonly byKey: (AnyApiHandler | undefined)[] = [];

  constructor(handlers: readonly AnyApiHandler[]) {
    for (const h of handlers) {
      if (this.byKey[h.api.key]) throw new Error(`API key ${h.api.key} registered twice`);
      this.byKey[h.api.key] = h;
    }
  }

  get(key: number): AnyApiHandler | undefined {
    return key >= 0 ? this.byKey[key] : undefined;
  }

  /** `[key, min, max]` for every registered API, by key. */
  advertised(): { apiKey: number; minVersion: number; maxVersion: number }[] {
    return this.byKey
      .filter((h): h is AnyApiHandler => h !== undefined)
      .map((h) => ({ apiKey: h.api.key, minVersion: h.minVersion, maxVersion: h.maxVersion }));
  }
}
