// All broker links of one client: the bootstrap servers (until metadata names the real brokers)
// and one link per broker id. A link is replaced when metadata moves a broker id to a new address.
import { BrokerLink, type FinalizedFeatures, NO_FINALIZED_FEATURES } from '../net/broker-link.js';
import type { ResolvedClientOptions } from './config.js';
import { ClientClosedError, ConnectionError, KafkaResponseError } from './errors.js';

export interface BrokerAddress {
  nodeId: number;
  host: string;
  port: number;
  rack: string | null;
}

export class BrokerPool {
  readonly options: ResolvedClientOptions;
  #bootstrap: BrokerLink[];
  #links = new Map<number, BrokerLink>();
  /** Second links for group coordinator requests (`coordinatorLink`), by broker id. */
  #coordinatorLinks = new Map<number, BrokerLink>();
  #brokers = new Map<number, BrokerAddress>();
  #closed = false;
  #features: FinalizedFeatures = NO_FINALIZED_FEATURES;

  constructor(options: ResolvedClientOptions) {
    this.options = options;
    // Bootstrap links get negative ids so they never clash with real broker ids.
    this.#bootstrap = options.bootstrapServers.map((s, i) => new BrokerLink(-1 - i, s.host, s.port, options));
  }

  get closed(): boolean {
    return this.#closed;
  }

  brokers(): BrokerAddress[] {
    return [...this.#brokers.values()];
  }

  broker(nodeId: number): BrokerAddress | undefined {
    return this.#brokers.get(nodeId);
  }

  /**
   * The finalized features of the highest epoch any broker reported so far (Java's
   * ApiVersions.getFinalizedFeaturesInfo): a broker that has not caught up with a change does
   * not undo it, and a closed link does not forget it.
   */
  finalizedFeatures(): FinalizedFeatures {
    for (const l of [...this.#links.values(), ...this.#bootstrap]) {
      const f = l.finalizedFeatures;
      if (f.epoch > this.#features.epoch) this.#features = f;
    }
    return this.#features;
  }

  /** Installs the broker list from a Metadata response. */
  updateBrokers(list: readonly BrokerAddress[]): void {
    const next = new Map<number, BrokerAddress>();
    for (const b of list) next.set(b.nodeId, b);
    for (const links of [this.#links, this.#coordinatorLinks]) {
      for (const [id, link] of links) {
        const b = next.get(id);
        if (b === undefined || b.host !== link.host || b.port !== link.port) {
          link.close();
          links.delete(id);
        }
      }
    }
    this.#brokers = next;
  }

  /** Learns a broker address from a response (FindCoordinator) and returns its link. */
  linkTo(addr: BrokerAddress): BrokerLink {
    const known = this.#brokers.get(addr.nodeId);
    if (known === undefined || known.host !== addr.host || known.port !== addr.port) {
      for (const links of [this.#links, this.#coordinatorLinks]) {
        links.get(addr.nodeId)?.close();
        links.delete(addr.nodeId);
      }
      this.#brokers.set(addr.nodeId, addr);
    }
    return this.link(addr.nodeId)!;
  }

  /**
   * `linkTo` for a group coordinator: a second connection to that broker, as Java's consumer
   * keeps one. A broker answers a connection's requests in order, so on the shared link an
   * OffsetCommit, Heartbeat or JoinGroup would wait behind a Fetch long poll (fetch.max.wait.ms).
   */
  coordinatorLink(addr: BrokerAddress): BrokerLink {
    this.linkTo(addr);
    let link = this.#coordinatorLinks.get(addr.nodeId);
    if (link === undefined) {
      link = new BrokerLink(addr.nodeId, addr.host, addr.port, this.options);
      this.#coordinatorLinks.set(addr.nodeId, link);
    }
    return link;
  }

  /** The link to a broker id from metadata, or undefined if its address is unknown. */
  link(nodeId: number): BrokerLink | undefined {
    if (this.#closed) throw new ClientClosedError();
    let link = this.#links.get(nodeId);
    if (link !== undefined) return link;
    const b = this.#brokers.get(nodeId);
    if (b === undefined) return undefined;
    link = new BrokerLink(nodeId, b.host, b.port, this.options);
    this.#links.set(nodeId, link);
    return link;
  }

  /**
   * Some reachable broker for cluster-wide requests (Metadata, FindCoordinator): the connected
   * link with the fewest requests in flight, else the known brokers and bootstrap servers in
   * random order until one connects.
   */
  async any(): Promise<BrokerLink> {
    if (this.#closed) throw new ClientClosedError();
    let best: BrokerLink | undefined;
    for (const l of [...this.#links.values(), ...this.#bootstrap]) {
      if (l.connected && (best === undefined || l.inFlight < best.inFlight)) best = l;
    }
    if (best !== undefined) return best;
    const candidates: BrokerLink[] = [];
    for (const id of this.#brokers.keys()) candidates.push(this.link(id)!);
    candidates.push(...this.#bootstrap);
    shuffle(candidates);
    let last: unknown;
    for (const l of candidates) {
      try {
        await l.ready();
        return l;
      } catch (err) {
        if (this.#closed) throw new ClientClosedError();
        // A refusal by the broker itself (a failed SASL authentication) will not heal by trying
        // another broker or waiting: Kafka's clients fail the operation on it.
        if (err instanceof KafkaResponseError && !err.retriable) throw err;
        last = err;
      }
    }
    throw new ConnectionError('no broker is reachable', last);
  }

  close(): void {
    this.#closed = true;
    for (const l of this.#links.values()) l.close();
    for (const l of this.#coordinatorLinks.values()) l.close();
    for (const l of this.#bootstrap) l.close();
    this.#links.clear();
    this.#coordinatorLinks.clear();
  }
}

function shuffle<T>(a: T[]): void {
  for (let i = a.length - 1; i > 0; i--) {
    const j = Math.floor(Math.random() * (i + 1));
    [a[i], a[j]] = [a[j]!, a[i]!];
  }
}
