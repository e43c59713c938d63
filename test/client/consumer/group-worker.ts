// A consumer running its poll loop in the background for group tests: records what it received,
// commits after every batch, and logs rebalance events with its assignment at that moment.
import type { Consumer, ConsumerOptions, TopicPartition } from '../../../src/client/consumer/index.js';
import type { TestBroker } from '../../../src/testkit/index.js';
import { scaled, TestTimeoutError } from '../../support/timeouts.js';
import { consumer } from './support.js';

export interface RebalanceEvent {
  kind: 'assigned' | 'revoked' | 'lost';
  partitions: string[];
  /** Assignment when the callback ran. */
  owned: string[];
  at: number;
}

export const key = (tp: TopicPartition): string => `${tp.topic}-${tp.partition}`;

export class GroupWorker {
  readonly consumer: Consumer;
  readonly received: string[] = [];
  readonly events: RebalanceEvent[] = [];
  #stop = false;
  #loop: Promise<void> | null = null;
  error: unknown = null;

  constructor(
    readonly name: string,
    b: TestBroker,
    topic: string,
    opts: Partial<ConsumerOptions>,
    readonly onBatch: (n: number) => Promise<void> = async () => {},
  ) {
    this.consumer = consumer(b, { enableAutoCommit: false, clientId: name, ...opts });
    const c = this.consumer;
    const log = (kind: RebalanceEvent['kind']) => (tps: TopicPartition[]) => {
      this.events.push({
        kind,
        partitions: tps.map(key).sort(),
        owned: c.assignment().map(key).sort(),
        at: Date.now(),
      });
    };
    c.subscribe([topic], {
      onPartitionsAssigned: log('assigned'),
      onPartitionsRevoked: async (tps) => {
        log('revoked')(tps);
        // Commit what was processed before the partitions go.
        await c.commitSync(this.#positions(tps)).catch(() => {});
      },
      onPartitionsLost: log('lost'),
    });
  }

  #positions(tps: TopicPartition[]) {
    return tps.flatMap((tp) => {
      const p = this.#committable.get(key(tp));
      return p === undefined ? [] : [{ ...tp, offset: p }];
    });
  }

  #committable = new Map<string, bigint>();

  start(): this {
    this.#loop = (async () => {
      const c = this.consumer;
      while (!this.#stop) {
        const recs = await c.poll(100);
        for (const r of recs) {
          this.received.push(r.key!.toString());
          this.#committable.set(`${r.topic}-${r.partition}`, r.offset + 1n);
        }
        if (recs.length > 0) {
          await this.onBatch(recs.length);
          const offsets = [...new Set(recs.map((r) => `${r.topic}-${r.partition}`))].map((k) => {
            const i = k.lastIndexOf('-');
            return {
              topic: k.slice(0, i),
              partition: Number(k.slice(i + 1)),
              offset: this.#committable.get(k)!,
            };
          });
          // A commit refused because a rebalance moved on is fine: the records will be redelivered.
          await c
            .commitSync(
              offsets.filter((o) => c.assignment().some((a) => key(a) === `${o.topic}-${o.partition}`)),
            )
            .catch(() => {});
        }
      }
    })().catch((err) => {
      this.error = err;
    });
    return this;
  }

  assignment(): string[] {
    return this.consumer.assignment().map(key).sort();
  }

  async stop(): Promise<void> {
    this.#stop = true;
    await this.#loop;
    await this.consumer.close();
  }
}

/** Polls `cond` every 50 ms; `timeoutMs` is scaled (SAMSA_TEST_TIMEOUT_SCALE). */
export async function until(cond: () => boolean, timeoutMs: number, what: string): Promise<void> {
  const ms = scaled(timeoutMs);
  const deadline = Date.now() + ms;
  while (!cond()) {
    if (Date.now() > deadline) throw new TestTimeoutError(what, ms);
    await new Promise((r) => setTimeout(r, 50));
  }
}
