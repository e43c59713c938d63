// The `local` MetadataStore of the embedded single broker: an in-memory ensemble with one session,
// whose durable state lives at the root of the first log dir in a snapshot (a JSON file, format in
// local-store-file.ts; the version 1 and 2 files of earlier releases are read and upgraded) and a
// journal of the changes made since (local-store-journal.ts). A write resolves only once it is
// durable: its journal line appended and fdatasynced. Appends are serialised, and changes made
// while one is in flight are coalesced into the next, so creating thousands of topics at once
// costs a handful of appends, not two per topic. When the journal outgrows the snapshot, the
// snapshot is rewritten (temp file, fsync, rename, directory fsync) and the journal emptied.

import { mkdir, open, readFile, rename } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import {
  corrupt,
  FORMAT_VERSION,
  METADATA_FILE,
  parseStateFile,
  serializeState,
} from './local-store-file.js';
import { JOURNAL_FILE, JournalWriter, journalLine, replayJournal } from './local-store-journal.js';
import type { DurableState } from './memory-state.js';
import { MemoryMetadataService, type MemoryMetadataStore } from './memory-store.js';
import type { MetadataStore, MetadataStoreListener } from './metadata-store.js';
import type {
  AclEntryRecord,
  AclResourceRecord,
  BrokerInfo,
  ConfigEntity,
  ControllerLease,
  PartitionState,
  PartitionStateWrite,
  PartitionWriteResult,
  ProducerIdBlock,
  TopicAssignment,
  VersionedAcls,
} from './records.js';

export { METADATA_FILE } from './local-store-file.js';
export { JOURNAL_FILE } from './local-store-journal.js';

/** The journal is folded into a new snapshot once it is this much larger than the snapshot. */
const COMPACTION_SLACK_BYTES = 1 << 20;

interface Waiter {
  readonly change: number;
  resolve(): void;
  reject(e: unknown): void;
}

export class LocalMetadataStore implements MetadataStore {
  readonly kind = 'local' as const;
  readonly path: string;
  readonly journalPath: string;
  #service: MemoryMetadataService | null = null;
  #session: MemoryMetadataStore | null = null;
  /** Highest change count the file on disk covers. */
  #persisted = 0;
  #waiters: Waiter[] = [];
  #writing = false;
  #idle: Promise<void> = Promise.resolve();
  #rewrites = 0;
  #journal: JournalWriter | null = null;
  /** The last journal entry written (or held by the snapshot). */
  #seq = 0;
  /** The state as the files hold it: what the next journal line is computed against. */
  #written: DurableState | null = null;
  #snapshotBytes = 0;

  constructor(logDir: string) {
    this.path = join(logDir, METADATA_FILE);
    this.journalPath = join(logDir, JOURNAL_FILE);
  }

  /**
   * Loads the snapshot (version 1, 2 or 3) and replays the journal, or starts empty; a missing or
   * older snapshot is written at once.
   */
  async start(): Promise<void> {
    if (this.#session !== null) return;
    const text = await readIfExists(this.path);
    const journalText = (await readIfExists(this.journalPath)) ?? '';
    const parsed = text === null ? null : parseStateFile(text, this.path);
    if (parsed === null && journalText.length > 0)
      throw corrupt(this.journalPath, `a journal without its snapshot ${METADATA_FILE}`);
    const initialState: DurableState | undefined = parsed?.state;
    let intactBytes = 0;
    if (parsed !== null && parsed.version === FORMAT_VERSION) {
      const replayed = replayJournal(journalText, this.journalPath, parsed.state, parsed.journalSeq);
      this.#seq = replayed.lastSeq;
      intactBytes = replayed.intactBytes;
      this.#snapshotBytes = Buffer.byteLength(text!);
    }
    await mkdir(dirname(this.path), { recursive: true });
    this.#journal = await JournalWriter.open(this.journalPath, intactBytes);
    this.#service = new MemoryMetadataService({ kind: 'local', ...(initialState ? { initialState } : {}) });
    this.#session = this.#service.connect();
    if (parsed?.version === FORMAT_VERSION) this.#written = this.#service.snapshot();
    // No snapshot yet, or an older format: the next write (this one) is a snapshot.
    else await this.#persist(this.#service.changeCount, true);
  }

  clusterId(): Promise<string> {
    return this.#write((s) => s.clusterId());
  }

  watch(listener: MetadataStoreListener): () => void {
    return this.#store().watch(listener);
  }

  whenConnected(timeoutMs: number): Promise<boolean> {
    return this.#session === null ? Promise.resolve(false) : this.#session.whenConnected(timeoutMs);
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

  updateConfigs(
    entity: ConfigEntity,
    update: (current: Record<string, string>) => Record<string, string> | null,
  ): Promise<Record<string, string> | null> {
    return this.#write((s) => s.updateConfigs(entity, update));
  }

  configEntities(type: ConfigEntity['type']): Promise<string[]> {
    return this.#store().configEntities(type);
  }

  allAcls(): Promise<VersionedAcls[]> {
    return this.#store().allAcls();
  }

  acls(resource: AclResourceRecord): Promise<VersionedAcls> {
    return this.#store().acls(resource);
  }

  writeAcls(
    resource: AclResourceRecord,
    acls: readonly AclEntryRecord[],
    expectedVersion: number,
  ): Promise<void> {
    return this.#write((s) => s.writeAcls(resource, acls, expectedVersion));
  }

  allocateProducerIdBlock(nodeId: number, size: number): Promise<ProducerIdBlock> {
    return this.#write((s) => s.allocateProducerIdBlock(nodeId, size));
  }

  /** File writes (journal appends and snapshots) since start() (diagnostics: concurrent changes share one). */
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
    await this.#journal?.close();
    this.#journal = null;
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
        const state = service.snapshot();
        const batch = this.#waiters.filter((w) => w.change <= covered);
        this.#waiters = this.#waiters.filter((w) => w.change > covered);
        try {
          await this.#write1(state);
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

  /** Makes `state` durable: a journal line, or a new snapshot when there is none yet or the journal outgrew it. */
  async #write1(state: DurableState): Promise<void> {
    const journal = this.#journal!;
    if (this.#written !== null && journal.bytes <= this.#snapshotBytes + COMPACTION_SLACK_BYTES) {
      const line = journalLine(this.#seq + 1, this.#written, state);
      await journal.append(line);
      this.#seq++;
    } else {
      const text = serializeState(state, this.#seq);
      await writeAtomically(this.path, text);
      // Entries up to #seq are in the snapshot now: replaying them again would be skipped anyway.
      await journal.clear();
      this.#snapshotBytes = Buffer.byteLength(text);
    }
    this.#written = state;
  }
}

async function readIfExists(path: string): Promise<string | null> {
  try {
    return await readFile(path, 'utf8');
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw e;
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
