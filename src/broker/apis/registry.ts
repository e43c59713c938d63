// The table of implemented APIs. Adding an API = writing `NN-name.ts` and listing it here;
// ApiVersions advertises exactly this table.

import type { AnyApiHandler } from './api.js';

export class ApiRegistry {
  private readonly byKey: (AnyApiHandler | undefined)[] = [];
  /** Built once: every ApiVersions answer lists it (clients send one per connection, or more). */
  private readonly ranges: readonly { apiKey: number; minVersion: number; maxVersion: number }[];

  constructor(handlers: readonly AnyApiHandler[]) {
    for (const h of handlers) {
      if (this.byKey[h.api.key]) throw new Error(`API key ${h.api.key} registered twice`);
      this.byKey[h.api.key] = h;
    }
    this.ranges = Object.freeze(
      this.byKey
        .filter((h): h is AnyApiHandler => h !== undefined)
        .map((h) => Object.freeze({ apiKey: h.api.key, minVersion: h.minVersion, maxVersion: h.maxVersion })),
    );
  }

  get(key: number): AnyApiHandler | undefined {
    return key >= 0 ? this.byKey[key] : undefined;
  }

  /** `[key, min, max]` for every registered API, by key (the same frozen list every time). */
  advertised(): readonly { apiKey: number; minVersion: number; maxVersion: number }[] {
    return this.ranges;
  }
}
