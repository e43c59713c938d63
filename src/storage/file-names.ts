// Kafka's file and directory names: segments are named by their base offset as 20 zero-padded
// digits (`00000000000000000042.log`), partition directories `<topic>-<partition>`, and deleted
// directories `<topic>-<partition>.<uuid>-delete`, so an operator recognises the layout.

export const LOG_SUFFIX = '.log';
export const INDEX_SUFFIX = '.index';
export const TIME_INDEX_SUFFIX = '.timeindex';
export const TXN_INDEX_SUFFIX = '.txnindex';
export const SNAPSHOT_SUFFIX = '.snapshot';
/** Files of a segment being deleted (kept `file.delete.delay.ms` for readers in flight). */
export const DELETED_SUFFIX = '.deleted';
/** Output of the log cleaner before it replaces the originals. */
export const CLEANED_SUFFIX = '.cleaned';
/** Cleaned segment committed to replace the originals; recovery completes the swap. */
export const SWAP_SUFFIX = '.swap';

export const PARTITION_METADATA_FILE = 'partition.metadata';
export const LEADER_EPOCH_CHECKPOINT_FILE = 'leader-epoch-checkpoint';
export const RECOVERY_POINT_CHECKPOINT_FILE = 'recovery-point-offset-checkpoint';
export const LOG_START_OFFSET_CHECKPOINT_FILE = 'log-start-offset-checkpoint';
export const REPLICATION_OFFSET_CHECKPOINT_FILE = 'replication-offset-checkpoint';
export const CLEANER_OFFSET_CHECKPOINT_FILE = 'cleaner-offset-checkpoint';
export const META_PROPERTIES_FILE = 'meta.properties';
export const CLEAN_SHUTDOWN_FILE = '.kafka_cleanshutdown';

const DIGITS = 20;
const OFFSET_NAME = /^(\d{20})(\.[a-z]+)((?:\.[a-z]+)?)$/;

/** `00000000000000000042` for 42n. */
export function offsetName(offset: bigint): string {
  return offset.toString().padStart(DIGITS, '0');
}

export function segmentFileName(baseOffset: bigint, suffix: string): string {
  return offsetName(baseOffset) + suffix;
}

export interface OffsetFileName {
  offset: bigint;
  /** `.log`, `.index`, `.snapshot`, ... */
  suffix: string;
  /** `''`, or a trailing `.deleted` / `.cleaned` / `.swap`. */
  state: string;
}

/** Parses `<20 digits><suffix>[.deleted|.cleaned|.swap]`, or returns null for any other name. */
export function parseOffsetFileName(name: string): OffsetFileName | null {
  const m = OFFSET_NAME.exec(name);
  if (m === null) return null;
  return { offset: BigInt(m[1]!), suffix: m[2]!, state: m[3]! };
}

export function partitionDirName(topic: string, partition: number): string {
  return `${topic}-${partition}`;
}

export interface PartitionDir {
  topic: string;
  partition: number;
}

// Kafka's legal topic characters; the partition is the digits after the last '-'.
const PARTITION_DIR = /^([a-zA-Z0-9._-]+)-(\d+)$/;

/** Parses `<topic>-<partition>`; null for `-delete`/`-future` dirs and anything else. */
export function parsePartitionDir(name: string): PartitionDir | null {
  const m = PARTITION_DIR.exec(name);
  if (m === null) return null;
  const partition = Number(m[2]);
  if (!Number.isSafeInteger(partition) || partition > 0x7fffffff) return null;
  return { topic: m[1]!, partition };
}

/** A directory renamed for asynchronous deletion (`<topic>-<p>.<hex uuid>-delete`). */
export function isDeletedDir(name: string): boolean {
  return name.endsWith('-delete');
}

export function deletedDirName(topic: string, partition: number, uniqueId: string): string {
  return `${topic}-${partition}.${uniqueId}-delete`;
}

/** A log being copied to another log dir (AlterReplicaLogDirs): `<topic>-<p>.<uuid>-future`. */
export function futureDirName(topic: string, partition: number, uniqueId: string): string {
  return `${topic}-${partition}.${uniqueId}-future`;
}

/** The partition a `-future` dir belongs to, or null for any other name. */
export function parseFutureDir(name: string): PartitionDir | null {
  const m = /^(.+)\.[0-9a-f]{32}-future$/.exec(name);
  return m === null ? null : parsePartitionDir(m[1]!);
}
