// The console's connections to the cluster: one Admin and one Producer, made on first use and
// shared by every request; consumers are made per read (group-less, assigned partitions) and
// closed after it. Nothing here knows the broker: it works against any Kafka-compatible cluster.
import { Admin, type ClientOptions, Consumer, Producer } from '../../client/index.js';

export class ConsoleClients {
  readonly options: ClientOptions;
  #admin: Admin | null = null;
  #producer: Producer | null = null;

  constructor(options: ClientOptions) {
    this.options = { clientId: 'samsa-console', ...options };
  }

  get admin(): Admin {
    this.#admin ??= new Admin(this.options);
    return this.#admin;
  }

  get producer(): Producer {
    this.#producer ??= new Producer({ ...this.options, lingerMs: 0 });
    return this.#producer;
  }

  /** A group-less consumer reading what the leader has committed (read_uncommitted, as Kafka's tools). */
  consumer(): Consumer {
    return new Consumer({
      ...this.options,
      enableAutoCommit: false,
      autoOffsetReset: 'earliest',
      isolationLevel: 'read_uncommitted',
      fetchMaxWaitMs: 100,
      maxPartitionFetchBytes: 256 * 1024,
    });
  }

  async close(): Promise<void> {
    await this.#producer?.close({ timeoutMs: 2000 }).catch(() => {});
    await this.#admin?.close().catch(() => {});
  }
}
