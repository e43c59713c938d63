// The ZooKeeper store's ACLs in Kafka's layout (kafka.zk.ZkData: ZkAclStore, ResourceZNode),
// so Kafka's tools and brokers read the same znodes:
//
// - LITERAL patterns: `/kafka-acl/<Type>/<name>`; PREFIXED: `/kafka-acl-extended/prefixed/<Type>/<name>`,
//   data `{"version":1,"acls":[{"principal":"User:a","permissionType":"Allow","operation":"Read","host":"*"}]}`;
// - a change notification per write, sequential `acl_changes_` znodes: under `/kafka-acl-changes`
//   the literal resource as `TOPIC:name`, under `/kafka-acl-extended-changes` the JSON
//   `{"version":1,"resourceType":"TOPIC","name":..,"patternType":"PREFIXED"}`.
//
// Writes are conditional on the znode version the writer read, so two brokers adding ACLs to one
// resource at once cannot lose either's entries: the loser gets BAD_VERSION and merges again.

import type { ZkClient } from '../zookeeper/zk-client.js';
import { ZkDataError } from '../zookeeper/zk-data.js';
import { isZkError } from '../zookeeper/zk-errors.js';
import { znodeSegment } from '../zookeeper/zk-paths.js';
import { MetadataStoreError } from './metadata-store.js';
import type { AclEntryRecord, AclResourceRecord, VersionedAcls } from './records.js';
import { pipelined, throwFailure } from './zk-store-partitions.js';

export const ACL_PATHS = {
  literal: '/kafka-acl',
  prefixed: '/kafka-acl-extended/prefixed',
  literalChanges: '/kafka-acl-changes',
  extendedChanges: '/kafka-acl-extended-changes',
} as const;
export const ACL_CHANGE_PREFIX = 'acl_changes_';
/** Created at startup, as Kafka's AclAuthorizer does. */
export const ACL_PERSISTENT_PATHS: readonly string[] = Object.values(ACL_PATHS);

function rootOf(patternType: AclResourceRecord['patternType']): string {
  return patternType === 'LITERAL' ? ACL_PATHS.literal : ACL_PATHS.prefixed;
}

export function aclResourcePath(r: AclResourceRecord): string {
  return `${rootOf(r.patternType)}/${znodeSegment(r.resourceType, 'ACL resource type')}/${znodeSegment(r.name, 'ACL resource name')}`;
}

export function encodeAcls(acls: readonly AclEntryRecord[]): Buffer {
  const entries = acls.map((a) => ({
    principal: a.principal,
    permissionType: a.permissionType,
    operation: a.operation,
    host: a.host,
  }));
  return Buffer.from(JSON.stringify({ version: 1, acls: entries }));
}

export function decodeAcls(path: string, data: Buffer | null): AclEntryRecord[] {
  if (data === null || data.length === 0) return [];
  let raw: unknown;
  try {
    raw = JSON.parse(data.toString('utf8'));
  } catch {
    throw new ZkDataError(path, 'ACLs are not JSON');
  }
  const acls = (raw as { acls?: unknown })?.acls;
  if (!Array.isArray(acls)) throw new ZkDataError(path, 'no "acls" array');
  return acls.map((a: unknown) => {
    const e = a as Record<string, unknown>;
    for (const k of ['principal', 'permissionType', 'operation', 'host'])
      if (typeof e?.[k] !== 'string') throw new ZkDataError(path, `an ACL without a string ${k}`);
    return {
      principal: e['principal'] as string,
      permissionType: e['permissionType'] as string,
      operation: e['operation'] as string,
      host: e['host'] as string,
    };
  });
}

/** The notification a write leaves for every broker (Kafka's ZkAclChangeStore encodings). */
function changeNotification(r: AclResourceRecord): { path: string; data: Buffer } {
  const typeName = r.resourceType.replace(/([a-z])([A-Z])/g, '$1_$2').toUpperCase();
  if (r.patternType === 'LITERAL')
    return {
      path: `${ACL_PATHS.literalChanges}/${ACL_CHANGE_PREFIX}`,
      data: Buffer.from(`${typeName}:${r.name}`),
    };
  const event = { version: 1, resourceType: typeName, name: r.name, patternType: r.patternType };
  return {
    path: `${ACL_PATHS.extendedChanges}/${ACL_CHANGE_PREFIX}`,
    data: Buffer.from(JSON.stringify(event)),
  };
}

/** Reads a notification back (`TOPIC:name` or the extended JSON); null if unreadable. */
export function decodeAclChange(literal: boolean, data: Buffer | null): AclResourceRecord | null {
  if (data === null) return null;
  const text = data.toString('utf8');
  const pascal = (t: string) =>
    t
      .toLowerCase()
      .split('_')
      .map((w) => w.charAt(0).toUpperCase() + w.slice(1))
      .join('');
  if (literal) {
    const colon = text.indexOf(':');
    if (colon < 0) return null;
    return {
      resourceType: pascal(text.slice(0, colon)),
      patternType: 'LITERAL',
      name: text.slice(colon + 1),
    };
  }
  try {
    const e = JSON.parse(text) as Record<string, unknown>;
    if (typeof e['resourceType'] !== 'string' || typeof e['name'] !== 'string') return null;
    if (String(e['patternType']).toUpperCase() !== 'PREFIXED') return null;
    return { resourceType: pascal(e['resourceType']), patternType: 'PREFIXED', name: e['name'] };
  } catch {
    return null;
  }
}

export async function readAcls(c: ZkClient, resource: AclResourceRecord): Promise<VersionedAcls> {
  const path = aclResourcePath(resource);
  try {
    const { data, stat } = await c.getData(path);
    return { resource, acls: decodeAcls(path, data), version: stat.version };
  } catch (e) {
    if (isZkError(e, 'NO_NODE')) return { resource, acls: [], version: -1 };
    throw e;
  }
}

async function childrenOrNone(c: ZkClient, path: string): Promise<string[]> {
  try {
    return await c.getChildren(path);
  } catch (e) {
    if (isZkError(e, 'NO_NODE')) return [];
    throw e;
  }
}

export async function readAllAcls(c: ZkClient): Promise<VersionedAcls[]> {
  const resources: AclResourceRecord[] = [];
  for (const patternType of ['LITERAL', 'PREFIXED'] as const) {
    const root = rootOf(patternType);
    for (const resourceType of await childrenOrNone(c, root))
      for (const name of await childrenOrNone(c, `${root}/${resourceType}`))
        resources.push({ resourceType, patternType, name });
  }
  const read = await pipelined(resources, (r) => readAcls(c, r));
  throwFailure(read);
  return read.flatMap((r) => (r.status === 'fulfilled' && r.value.acls.length > 0 ? [r.value] : []));
}

export async function writeAcls(
  c: ZkClient,
  resource: AclResourceRecord,
  acls: readonly AclEntryRecord[],
  expectedVersion: number,
): Promise<void> {
  const path = aclResourcePath(resource);
  try {
    if (expectedVersion === -1) {
      if (acls.length > 0) await c.create(path, encodeAcls(acls), { createParents: true });
    } else if (acls.length === 0) await c.delete(path, expectedVersion);
    else await c.setData(path, encodeAcls(acls), expectedVersion);
  } catch (e) {
    // Someone else wrote the resource since it was read (Kafka's conditional update fails alike).
    if (isZkError(e, 'BAD_VERSION', 'NODE_EXISTS', 'NO_NODE'))
      throw new MetadataStoreError('BAD_VERSION', `ACLs of ${path} changed concurrently`);
    throw e;
  }
  const note = changeNotification(resource);
  await c.create(note.path, note.data, { mode: 'PERSISTENT_SEQUENTIAL', createParents: true });
}
