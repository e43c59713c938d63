// The `local` MetadataStore: the whole state in one JSON file at the root of the first log dir,
// rewritten atomically (write to a temp file, fsync, rename, fsync the directory) on every
// change. Metadata changes are rare and small, so a full rewrite is simpler and safer than a log.
// Writes are serialised so that the file always reflects the latest completed change.

import { mkdir, open, readFile, rename } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import type { MetadataStore } from './metadata-store.js';
import type { ProducerIdBlock, StoredMetadata, TopicRecord } from './types.js';
import { randomUuid } from './uuid.js';

export const METADATA_FILE = 'samsa-metadata.json';
const FORMAT_VERSION = 1;

interface FileState {
  version: number;
  clusterId: string;
  /** Next producer id not yet reserved (decimal string: int64). */
  nextProducerId: string;
  topics: TopicRecord[];
  brokerConfigs: Record<string, Record<string, string>>;
}

export class LocalMetadataStore implements MetadataStore {
  private state: FileState | null = null;
  private writing: Promise<void> = Promise.resolve();
  readonly path: string;

  constructor(logDir: string) {
    this.path = join(logDir, METADATA_FILE);
  }

  async load(): Promise<StoredMetadata> {
    let text: string | null = null;
    try {
      text = await readFile(this.path, 'utf8');
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'ENOENT') throw e;
    }
    if (text === null) {
      this.state = {
        version: FORMAT_VERSION,
        clusterId: randomUuid(),
        nextProducerId: '0',
        topics: [],
        brokerConfigs: {},
      };
      await this.persist();
    } else {
      this.state = parseState(text, this.path);
    }
    const s = this.state;
    return { clusterId: s.clusterId, topics: s.topics, brokerConfigs: s.brokerConfigs };
  }

  putTopic(topic: TopicRecord): Promise<void> {
    const s = this.mustState();
    const i = s.topics.findIndex((t) => t.name === topic.name);
    if (i >= 0) s.topics[i] = topic;
    else s.topics.push(topic);
    return this.persist();
  }

  removeTopic(name: string): Promise<void> {
    const s = this.mustState();
    s.topics = s.topics.filter((t) => t.name !== name);
    return this.persist();
  }

  putBrokerConfigs(entity: string, configs: Readonly<Record<string, string>>): Promise<void> {
    const s = this.mustState();
    if (Object.keys(configs).length === 0) delete s.brokerConfigs[entity];
    else s.brokerConfigs[entity] = { ...configs };
    return this.persist();
  }

  async allocateProducerIdBlock(size: number): Promise<ProducerIdBlock> {
    const s = this.mustState();
    const first = BigInt(s.nextProducerId);
    s.nextProducerId = String(first + BigInt(size));
    await this.persist();
    return { firstProducerId: first, size };
  }

  async close(): Promise<void> {
    await this.writing;
  }

  private mustState(): FileState {
    if (!this.state) throw new Error('LocalMetadataStore used before load()');
    return this.state;
  }

  private persist(): Promise<void> {
    // Snapshot now, so the file records exactly the state after this change.
    const text = JSON.stringify(this.state, null, 1);
    const next = this.writing.then(() => writeAtomically(this.path, text));
    this.writing = next.catch(() => {});
    return next;
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

function parseState(text: string, path: string): FileState {
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch (e) {
    throw new Error(`${path}: not valid JSON (${(e as Error).message})`);
  }
  const o = raw as Partial<FileState>;
  if (o.version !== FORMAT_VERSION || typeof o.clusterId !== 'string' || !Array.isArray(o.topics)) {
    throw new Error(`${path}: unsupported or damaged metadata file`);
  }
  return {
    version: FORMAT_VERSION,
    clusterId: o.clusterId,
    nextProducerId:
      typeof o.nextProducerId === 'string' && /^\d+$/.test(o.nextProducerId) ? o.nextProducerId : '0',
    topics: o.topics,
    brokerConfigs: o.brokerConfigs ?? {},
  };
}
