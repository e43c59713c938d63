// Small text files Kafka keeps next to the data: `partition.metadata` in each partition dir
// (`version: 0` / `topic_id: <uuid>`) and `meta.properties` at each log dir's root.
import { promises as fsp } from 'node:fs';
import { join } from 'node:path';
import { META_PROPERTIES_FILE, PARTITION_METADATA_FILE } from './file-names.js';
import { readFileOrNull, writeFileAtomic } from './fs-util.js';

/** Kafka's zero uuid in text form: "no topic id". */
export const ZERO_TOPIC_ID = 'AAAAAAAAAAAAAAAAAAAAAA';
const TOPIC_ID = /^[A-Za-z0-9_-]{22}$/;

/**
 * Writes `partition.metadata`. In a directory just created (`fresh`) there is nothing to replace,
 * so it is written in place without fsync (creating 10,000 partitions must stay cheap; if a
 * power cut loses it, `LogManager.createLog` rewrites it).
 */
export async function writePartitionMetadata(dir: string, topicId: string, fresh = false): Promise<void> {
  const text = `version: 0\ntopic_id: ${topicId}\n`;
  const path = join(dir, PARTITION_METADATA_FILE);
  if (fresh) await fsp.writeFile(path, text, { flag: 'wx' });
  else await writeFileAtomic(path, text, true);
}

/** The topic id stored in `partition.metadata`, or null when missing or unreadable. */
export async function readPartitionMetadata(dir: string): Promise<string | null> {
  const raw = await readFileOrNull(join(dir, PARTITION_METADATA_FILE));
  if (raw === null) return null;
  const fields = new Map<string, string>();
  for (const line of raw.toString('utf8').split('\n')) {
    const i = line.indexOf(':');
    if (i > 0) fields.set(line.slice(0, i).trim(), line.slice(i + 1).trim());
  }
  const id = fields.get('topic_id');
  return fields.get('version') === '0' && id !== undefined && TOPIC_ID.test(id) ? id : null;
}

export interface MetaProperties {
  brokerId?: number;
  clusterId?: string;
}

/** The stored identity of a log dir disagrees with this broker's (Kafka refuses to start too). */
export class MetaPropertiesMismatchError extends Error {
  readonly code = 'META_PROPERTIES_MISMATCH';
  constructor(message: string) {
    super(message);
    this.name = 'MetaPropertiesMismatchError';
  }
}

/**
 * Writes `meta.properties` when the dir has none (Kafka never rewrites it), else checks that it
 * names this broker and cluster: a dir moved from another broker, or left over from another
 * cluster, would otherwise serve that broker's replicas as ours.
 */
export async function ensureMetaProperties(logDir: string, meta: MetaProperties): Promise<void> {
  const path = join(logDir, META_PROPERTIES_FILE);
  const raw = await readFileOrNull(path);
  if (raw !== null) {
    checkMetaProperties(path, parseProperties(raw.toString('utf8')), meta);
    return;
  }
  let text = '#\n#Written by Samsa\nversion=0\n';
  if (meta.brokerId !== undefined) text += `broker.id=${meta.brokerId}\n`;
  if (meta.clusterId !== undefined) text += `cluster.id=${meta.clusterId}\n`;
  await writeFileAtomic(path, text);
}

function checkMetaProperties(path: string, stored: Map<string, string>, meta: MetaProperties): void {
  const storedId = stored.get('broker.id') ?? stored.get('node.id');
  if (meta.brokerId !== undefined && storedId !== undefined && storedId !== String(meta.brokerId)) {
    throw new MetaPropertiesMismatchError(
      `configured node id ${meta.brokerId} does not match the id ${storedId} stored in ${path}: ` +
        'if you moved this data, configure that id; for a new broker, use an empty log dir',
    );
  }
  const storedCluster = stored.get('cluster.id');
  if (meta.clusterId !== undefined && storedCluster !== undefined && storedCluster !== meta.clusterId) {
    throw new MetaPropertiesMismatchError(
      `cluster id ${meta.clusterId} does not match the cluster id ${storedCluster} stored in ${path}: ` +
        'this log dir belongs to another cluster (is zookeeper.connect or log.dirs wrong?)',
    );
  }
}

/** The `key=value` lines of a Java properties file written by Kafka or Samsa (comments skipped). */
function parseProperties(text: string): Map<string, string> {
  const out = new Map<string, string>();
  for (const line of text.split(/\r?\n/)) {
    const t = line.trim();
    if (t === '' || t.startsWith('#') || t.startsWith('!')) continue;
    const i = t.search(/[=:]/);
    if (i > 0) out.set(t.slice(0, i).trim(), t.slice(i + 1).trim());
  }
  return out;
}
