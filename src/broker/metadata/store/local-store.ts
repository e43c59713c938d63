// The `local` MetadataStore of the embedded single broker: an in-memory ensemble with one session,
// whose durable state lives in one JSON file at the root of the first log dir (format in
// local-store-file.ts; the version 1 file of earlier releases is read and upgraded). A write
// resolves only once the file holding it is durable (temp file, fsync, rename, directory fsync).
// Rewrites are serialised, and changes made while one is in flight are coalesced into the next, so
// creating thousands of topics at once costs a handful of rewrites, not two per topic.

import { mkdir, open, readFile, rename } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { FORMAT_VERSION, METADATA_FILE, parseStateFile, serializeState } from './local-store-file.js';
import type { DurableState } from './memory-state.js';
import { MemoryMetadataService, type MemoryMetadataStore } from './memory-store.js';
import type { MetadataStore, MetadataStoreListener } from './metadata-store.js';
import type {
  BrokerInfo,
  ConfigEntity,
  ControllerLease,
  PartitionState,
  PartitionStateWrite,
  PartitionWriteResult,
  ProducerIdBlock,
  TopicAssignment,
} from './records.js';

export { METADATA_FILE } from './local-store-file.js';

interface Waiter {
  readonly change: number;
  resolve(): void;
  reject(e: unknown): void;
}

export class LocalMetadataStore implements MetadataStore {
  readonly kind = 'local' as const;
  readonly path: string;
  #service: MemoryMetadataService | null = null;
  #session: MemoryMetadataStore | null = null;
  /** Highest change count the file on disk covers. */
  #persisted = 0;
  #waiters: Waiter[] = [];
  #writing = false;
  #idle: Promise<void> = Promise.resolve();
  #rewrites = 0;

  constructor(logDir: string) {
    this.path = join(logDir, METADATA_FILE);
  }

  /** Loads the file (version 1 or 2), or starts empty; a missing or older file is written at once. */
  async start(): Promise<void> {
    if (this.#session !== null) return;
    let text: string | null = null;
    try {
      text = await readFile(this.path, 'utf8');
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'ENOENT') throw e;
    }
    const parsed = text === null ? null : parseStateFile(text, this.path);
    const initialState: DurableState | undefined = parsed?.state;
    this.#service = new MemoryMetadataService({ kind: 'local', ...(initialState ? { initialState } : {}) });
    this.#session = this.#service.connect();
    if (parsed?.version !== FORMAT_VERSION) await this.#persist(this.#service.changeCount, true);
  }

  clusterId(): Promise<string> {
    return this.#write((s) => s.clusterId());
  }

  watch(listener: MetadataStoreListener): () => void {
    return this.#store().watch(listener);
  }

  registerBroker(broker: Omit<BrokerInfo, 'epoch'>): Promise<bigint> {
    return this.#write((s) => s.registerBroker(broker));
  }

  liveBrokers(): Promise<BrokerInfo[]> {
    return this.#store().liveBrokers();
  }

  tryElectController(nodeId: number): Promise<ControllerLease | null> {
    return this.#write((s) => s.tryElectController(nodeId));
  }

  controllerId(): Promise<number> {
    return this.#store().controllerId();
  }

  controllerEpoch(): Promise<number> {
    return this.#store().controllerEpoch();
  }

  resignController(lease: ControllerLease): Promise<void> {
    return this.#write((s) => s.resignController(lease));
  }

  topicNames(): Promise<string[]> {
    return this.#store().topicNames();
  }

  assignments(names?: readonly string[]): Promise<TopicAssignment[]> {
    return this.#store().assignments(names);
  }

  createTopic(assignment: TopicAssignment, configs: Readonly<Record<string, string>>): Promise<void> {
    return this.#write((s) => s.createTopic(assignment, configs));
  }

  setAssignment(assignment: TopicAssignment, lease?: ControllerLease): Promise<void> {
    return this.#write((s) => s.setAssignment(assignment, lease));
  }

  partitionStates(topic: string): Promise<Map<number, PartitionState>> {
    return this.#store().partitionStates(topic);
  }

  writePartitionStates(
    lease: ControllerLease,
    writes: readonly PartitionStateWrite[],
  ): Promise<PartitionWriteResult[]> {
    return this.#write((s) => s.writePartitionStates(lease, writes));
  }

  requestTopicDeletion(name: string): Promise<void> {
    return this.#write((s) => s.requestTopicDeletion(name));
  }

  pendingTopicDeletions(): Promise<string[]> {
    return this.#store().pendingTopicDeletions();
  }

  completeTopicDeletion(lease: ControllerLease, name: string): Promise<void> {
    return this.#write((s) => s.completeTopicDeletion(lease, name));
  }

  configs(entity: ConfigEntity): Promise<Record<string, string>> {
    return this.#store().configs(entity);
  }

  setConfigs(entity: ConfigEntity, configs: Readonly<Record<string, string>>): Promise<void> {
    return this.#write((s) => s.setConfigs(entity, configs));
  }

  configEntities(type: ConfigEntity['type']): Promise<string[]> {
    return this.#store().configEntities(type);
  }

  allocateProducerIdBlock(nodeId: number, size: number): Promise<ProducerIdBlock> {
    return this.#write((s) => s.allocateProducerIdBlock(nodeId, size));
  }

  /** File rewrites since start() (diagnostics: concurrent changes share one). */
  get rewrites(): number {
    return this.#rewrites;
  }

  /** Waits for the file to hold every change, then ends the session. */
  async close(): Promise<void> {
    const service = this.#service;
    if (service === null || this.#session === null) return;
    await this.#persist(service.changeCount).catch(() => {});
    await this.#idle;
    await this.#session.close();
    this.#session = null;
  }

  #store(): MemoryMetadataStore {
    if (this.#session === null) throw new Error('LocalMetadataStore used before start() or after close()');
    return this.#session;
  }

  /** Runs a call that may change state; resolves once the file holds the change. */
  async #write<T>(op: (s: MemoryMetadataStore) => Promise<T>): Promise<T> {
    const result = await op(this.#store());
    await this.#persist(this.#service!.changeCount);
    return result;
  }

  #persist(change: number, force = false): Promise<void> {
    if (!force && this.#persisted >= change) return Promise.resolve();
    return new Promise<void>((resolve, reject) => {
      this.#waiters.push({ change, resolve, reject });
      if (!this.#writing) this.#idle = this.#drain();
    });
  }

  /** One rewrite at a time; each covers every change made before it started. */
  async #drain(): Promise<void> {
    this.#writing = true;
    try {
      while (this.#waiters.length > 0) {
        const service = this.#service!;
        const covered = service.changeCount;
        const text = serializeState(service.snapshot());
        const batch = this.#waiters.filter((w) => w.change <= covered);
        this.#waiters = this.#waiters.filter((w) => w.change > covered);
        try {
          await writeAtomically(this.path, text);
          this.#rewrites++;
          this.#persisted = Math.max(this.#persisted, covered);
          for (const w of batch) w.resolve();
        } catch (e) {
          for (const w of batch) w.reject(e);
        }
      }
    } finally {
      this.#writing = false;
    }
  }
}

async function writeAtomically(path: string, text: string): Promise<void> {
  await mkdir(dirname(path), { recursive: true });
  const tmp = `${path}.tmp`;
  const fh = await open(tmp, 'w');
  try {
    await fh.writeFile(text);
    await fh.sync();
  } finally {
    await fh.close();
  }
  await rename(tmp, path);
  const dir = await open(dirname(path), 'r');
  try {
    await dir.sync();
  } finally {
    await dir.close();
  }
}
