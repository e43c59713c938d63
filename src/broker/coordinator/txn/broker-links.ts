// Outbound links from this broker's transaction coordinator to the other brokers (markers to
// partition leaders, verification with another broker's coordinator): one `BrokerLink` per
// broker id, replaced when the broker's address changes, closed with the coordinator.
import { BrokerLink, type BrokerLinkOptions } from '../../../net/broker-link.js';
import type { MetadataView } from '../../metadata/cluster-image.js';

export class BrokerLinks {
  readonly #links = new Map<number, BrokerLink>();
  #closed = false;

  constructor(
    private readonly image: MetadataView,
    private readonly clientId: string,
    private readonly requestTimeoutMs: number,
    /** TLS and SASL of the inter-broker listener (the image's addresses are its endpoints). */
    private readonly security: Pick<BrokerLinkOptions, 'tls' | 'sasl'> = {},
  ) {}

  /** The link to broker `id` at its current address; null when the broker is unknown (down). */
  get(id: number): BrokerLink | null {
    const b = this.image.broker(id);
    if (b === undefined || this.#closed) return null;
    const cur = this.#links.get(id);
    if (cur !== undefined && cur.host === b.host && cur.port === b.port) return cur;
    cur?.close();
    const link = new BrokerLink(id, b.host, b.port, {
      clientId: this.clientId,
      requestTimeoutMs: this.requestTimeoutMs,
      ...this.security,
    });
    this.#links.set(id, link);
    return link;
  }

  close(): void {
    this.#closed = true;
    for (const link of this.#links.values()) link.close();
    this.#links.clear();
  }
}
