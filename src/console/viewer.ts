// A viewer: one identity the console acts as, with its own connections, cache and live sampler.
// Without a login, or with basic auth, every page shares the console's own identity (one
// viewer). With a SASL login each session has its own viewer built on the user's credentials, so
// that what the cluster's ACLs hide from that user (topics, groups, offsets, log dirs) never
// reaches its pages, its cache or its event stream.
import type { ClientOptions } from '../client/index.js';
import { ConsoleClients } from './api/clients.js';
import { ClusterCache } from './cluster-cache.js';
import { LiveState } from './live.js';

export interface ViewerSettings {
  /** Sampling interval while a page of this viewer is open (ms). */
  readonly refreshMs: number;
  /** Sampling interval while none is (ms); 0 = no sampling then. */
  readonly idleRefreshMs: number;
  readonly throughputWindowMs: number;
  readonly historySize: number;
  /** How long the API may serve cached metadata and offsets (ms). */
  readonly cacheTtlMs: number;
}

export class Viewer {
  readonly clients: ConsoleClients;
  readonly cache: ClusterCache;
  readonly live: LiveState;
  /** The logged-in user; null for the console's own identity. */
  readonly user: string | null;

  constructor(client: ClientOptions, settings: ViewerSettings, user: string | null) {
    this.user = user;
    this.clients = new ConsoleClients(client);
    this.cache = new ClusterCache(() => this.clients.admin, settings.cacheTtlMs);
    this.live = new LiveState(this.clients, this.cache, settings);
  }

  async close(): Promise<void> {
    this.live.close();
    await this.clients.close();
  }
}
