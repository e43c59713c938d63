// Kafka 3.9's ConnectionQuotas, shared by every listener of a broker:
// - `max.connections` (broker-wide) and `listener.name.<l>.max.connections`: a listener at its
//   limit stops accepting until a connection closes. Node cannot stop accepting, so a socket
//   accepted meanwhile is parked unread — to its client just like a connection waiting in the
//   kernel's backlog of a blocked Kafka acceptor — and admitted, oldest first, when a slot
//   frees. The inter-broker listener is exempt from the broker-wide limit when the broker has
//   other listeners; admitting over the limit there closes the oldest connection of another
//   listener (Kafka closes the least recently used one).
// - `max.connections.per.ip` with `max.connections.per.ip.overrides` (broker-wide per address):
//   a connection past its address's limit is closed at once, after it got a slot, as Kafka.
// Limits change at runtime (the three keys are cluster-wide dynamic configs); host names in
// the overrides are resolved when set, as Kafka resolves them.

import { lookup } from 'node:dns/promises';
import { isIP } from 'node:net';
import type { ConnectionLimits } from '../config/connection-limits.js';
import type { Logger } from '../logger.js';

const INT_MAX = 0x7fffffff;

/** `::ffff:1.2.3.4` (an IPv4 client of a dual-stack socket) is 1.2.3.4, as Java sees it. */
export function normalizeAddress(address: string): string {
  return address.startsWith('::ffff:') && isIP(address.slice(7)) === 4 ? address.slice(7) : address;
}

export type Admission = 'admitted' | 'refused';

interface Waiter {
  readonly address: string;
  readonly admit: (outcome: Admission) => void;
}

export class ConnectionQuotas {
  #limits: ConnectionLimits;
  #perIp = new Map<string, number>();
  readonly #byAddress = new Map<string, number>();
  readonly #byListener = new Map<string, number>();
  readonly #waiting = new Map<string, Waiter[]>();
  readonly #closeOldest = new Map<string, () => boolean>();
  #total = 0;
  #resolving = 0;

  constructor(
    limits: ConnectionLimits,
    private readonly interBrokerListener: string,
    private readonly logger?: Logger,
  ) {
    this.#limits = limits;
    this.update(limits);
  }

  /** A listener joins; `closeOldest` closes its oldest connection (false when it has none). */
  addListener(name: string, closeOldest: () => boolean): void {
    this.#byListener.set(name, this.#byListener.get(name) ?? 0);
    this.#closeOldest.set(name, closeOldest);
  }

  get total(): number {
    return this.#total;
  }

  /** Applies new limits; waiting connections are admitted if the new limits allow. */
  update(limits: ConnectionLimits): void {
    this.#limits = limits;
    const resolved = new Map<string, number>();
    const names: [string, number][] = [];
    for (const [host, max] of limits.perIpOverrides) {
      if (isIP(host) !== 0) resolved.set(normalizeAddress(host), max);
      else names.push([host, max]);
    }
    this.#perIp = resolved;
    const generation = ++this.#resolving;
    if (names.length > 0)
      void Promise.all(
        names.map(async ([host, max]) => {
          try {
            for (const a of await lookup(host, { all: true })) resolved.set(normalizeAddress(a.address), max);
          } catch {
            this.logger?.log('warn', 'max.connections.per.ip.overrides: host does not resolve', { host });
          }
        }),
      ).then(() => {
        if (generation === this.#resolving) this.#perIp = new Map(resolved);
      });
    this.#drain();
  }

  /**
   * Called for each accepted socket: `admit` gets the outcome now or once a slot frees (never
   * after `cancel`, which the caller runs if the socket closes while waiting).
   */
  accept(listener: string, remoteAddress: string, admit: (outcome: Admission) => void): () => void {
    const waiter: Waiter = { address: normalizeAddress(remoteAddress), admit };
    const queue = this.#waiting.get(listener) ?? [];
    if (queue.length === 0 && this.#slotAvailable(listener)) {
      this.#admit(listener, waiter);
      return () => {};
    }
    queue.push(waiter);
    this.#waiting.set(listener, queue);
    return () => {
      const i = queue.indexOf(waiter);
      if (i >= 0) queue.splice(i, 1);
    };
  }

  /** A counted connection closed. */
  release(listener: string, remoteAddress: string): void {
    const address = normalizeAddress(remoteAddress);
    const n = (this.#byAddress.get(address) ?? 1) - 1;
    if (n <= 0) this.#byAddress.delete(address);
    else this.#byAddress.set(address, n);
    this.#byListener.set(listener, Math.max(0, (this.#byListener.get(listener) ?? 1) - 1));
    this.#total = Math.max(0, this.#total - 1);
    this.#drain();
  }

  /** Waiting connections of a listener (parked sockets). */
  waiting(listener: string): number {
    return this.#waiting.get(listener)?.length ?? 0;
  }

  #admit(listener: string, w: Waiter): void {
    const count = this.#byAddress.get(w.address) ?? 0;
    const max = this.#perIp.get(w.address) ?? this.#limits.maxConnectionsPerIp;
    if (count >= max) {
      this.logger?.log('info', 'connection refused: address already has its maximum of connections', {
        address: w.address,
        max,
      });
      w.admit('refused');
      return;
    }
    this.#byAddress.set(w.address, count + 1);
    this.#byListener.set(listener, (this.#byListener.get(listener) ?? 0) + 1);
    this.#total++;
    w.admit('admitted');
    if (this.#protected(listener)) this.#closeExcess();
  }

  #slotAvailable(listener: string): boolean {
    const max = this.#limits.listenerMaxConnections.get(listener) ?? INT_MAX;
    if ((this.#byListener.get(listener) ?? 0) >= max) return false;
    return this.#protected(listener) || this.#total < this.#limits.maxConnections;
  }

  #protected(listener: string): boolean {
    return listener === this.interBrokerListener && this.#byListener.size > 1;
  }

  /** Over the broker-wide limit through the protected listener: make room on the others. */
  #closeExcess(): void {
    for (const [name, closeOldest] of this.#closeOldest) {
      if (this.#total <= this.#limits.maxConnections) return;
      if (!this.#protected(name)) closeOldest();
    }
  }

  #drain(): void {
    for (const [listener, queue] of this.#waiting)
      while (queue.length > 0 && this.#slotAvailable(listener)) this.#admit(listener, queue.shift()!);
  }
}
