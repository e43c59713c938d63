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

/** Writes `meta.properties` unless the dir already has one (Kafka never rewrites it). */
export async function ensureMetaProperties(logDir: string, meta: MetaProperties): Promise<void> {
  const path = join(logDir, META_PROPERTIES_FILE);
  if ((await readFileOrNull(path)) !== null) return;
  let text = '#\n#Written by Samsa\nversion=0\n';
  if (meta.brokerId !== undefined) text += `broker.id=${meta.brokerId}\n`;
  if (meta.clusterId !== undefined) text += `cluster.id=${meta.clusterId}\n`;
  await writeFileAtomic(path, text);
}
