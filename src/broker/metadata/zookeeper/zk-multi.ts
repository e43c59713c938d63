// ZooKeeper multi (atomic transaction) over node-zookeeper-client, with the version fencing fixed.
//
// The library's Transaction.check/setData/remove do `version = version || -1`, so an expected
// version of 0 silently becomes -1 ("any version"; upstream issue #67). Every new znode is at
// version 0, so the first controller epoch and every new partition state would be written
// unfenced. We let the library build each op, then overwrite the op's version with the one asked
// for. If the library's internals ever change shape we refuse to send the multi at all rather
// than send it unfenced (test/broker/zookeeper keeps a regression test for version 0).

import type { Transaction } from 'node-zookeeper-client';
import { codeName, ZkError, type ZkErrorCode, ZkMultiError } from './zk-errors.js';
import { toZkStat, type ZkStat } from './zk-stat.js';

/** Match any version in setData/delete/check (ZooKeeper's -1; Kafka's ZkVersion.MatchAnyVersion). */
export const ZK_ANY_VERSION = -1;

export type ZkCreateMode = 'PERSISTENT' | 'EPHEMERAL' | 'PERSISTENT_SEQUENTIAL' | 'EPHEMERAL_SEQUENTIAL';

/** ZooKeeper's wire values of CreateMode. */
export const CREATE_MODE_FLAGS: Readonly<Record<ZkCreateMode, number>> = {
  PERSISTENT: 0,
  EPHEMERAL: 1,
  PERSISTENT_SEQUENTIAL: 2,
  EPHEMERAL_SEQUENTIAL: 3,
};

export type ZkOp =
  | {
      readonly type: 'create';
      readonly path: string;
      readonly data?: Buffer | null;
      readonly mode?: ZkCreateMode;
    }
  /** `version`: the expected data version, or ZK_ANY_VERSION. */
  | {
      readonly type: 'setData';
      readonly path: string;
      readonly data: Buffer | null;
      readonly version: number;
    }
  | { readonly type: 'delete'; readonly path: string; readonly version: number }
  | { readonly type: 'check'; readonly path: string; readonly version: number };

export type ZkOpResult =
  | { readonly type: 'create'; readonly path: string }
  | { readonly type: 'setData'; readonly stat: ZkStat }
  | { readonly type: 'delete' }
  | { readonly type: 'check' };

/** ZooKeeper op codes as they appear in multi results. */
const OP_CREATE = 1;
const OP_DELETE = 2;
const OP_SET_DATA = 5;
const OP_CHECK = 13;
const OP_ERROR = -1;

interface RawOpResult {
  type: number;
  path?: string;
  stat?: Parameters<typeof toZkStat>[0];
  err?: number;
}

function checkVersion(op: ZkOp & { version: number }): void {
  if (!Number.isInteger(op.version) || op.version < -1 || op.version > 0x7fffffff)
    throw new ZkError('BAD_ARGUMENTS', `multi ${op.type} ${op.path}: bad version ${op.version}`, op.path);
}

/** Adds `ops` to a library Transaction, with each op's expected version exactly as given. */
export function addOps(tx: Transaction, ops: readonly ZkOp[]): void {
  const internal = (tx as unknown as { ops?: unknown }).ops;
  if (!Array.isArray(internal))
    throw new ZkError(
      'SYSTEM_ERROR',
      'node-zookeeper-client Transaction no longer exposes its ops: refusing to send a multi whose ' +
        'version-0 checks the library would turn into "any version"',
    );
  const ownVersion = (version: number): void => {
    const last = internal[internal.length - 1] as { version?: number } | undefined;
    if (last === undefined || !('version' in last))
      throw new ZkError('SYSTEM_ERROR', 'node-zookeeper-client Transaction op has no version field');
    last.version = version;
  };
  for (const op of ops) {
    switch (op.type) {
      case 'create': {
        const mode = CREATE_MODE_FLAGS[op.mode ?? 'PERSISTENT'];
        // The library sorts create's optional arguments by type; pass data only when there is some.
        if (op.data) tx.create(op.path, op.data, mode);
        else tx.create(op.path, mode);
        break;
      }
      case 'setData':
        checkVersion(op);
        tx.setData(op.path, op.data, op.version);
        ownVersion(op.version);
        break;
      case 'delete':
        checkVersion(op);
        tx.remove(op.path, op.version);
        ownVersion(op.version);
        break;
      case 'check':
        checkVersion(op);
        tx.check(op.path, op.version);
        ownVersion(op.version);
        break;
    }
  }
}

/** Maps the library's successful results to ours. */
export function toOpResults(raw: readonly RawOpResult[]): ZkOpResult[] {
  return raw.map((r): ZkOpResult => {
    switch (r.type) {
      case OP_CREATE:
        return { type: 'create', path: r.path ?? '' };
      case OP_SET_DATA:
        if (!r.stat) throw new ZkError('MARSHALLING_ERROR', 'multi setData result without a stat');
        return { type: 'setData', stat: toZkStat(r.stat) };
      case OP_DELETE:
        return { type: 'delete' };
      case OP_CHECK:
        return { type: 'check' };
      default:
        throw new ZkError('MARSHALLING_ERROR', `unexpected multi result type ${r.type}`);
    }
  });
}

/**
 * The error of a failed multi. With per-op results the failing op is the first one whose code is
 * neither OK nor RUNTIME_INCONSISTENCY (ZooKeeper marks the ops after the failing one with the
 * latter); without them (connection loss, session expiry) the index is -1.
 */
export function toMultiError(
  error: ZkError,
  ops: readonly ZkOp[],
  raw: readonly RawOpResult[] | undefined,
): ZkMultiError {
  if (!Array.isArray(raw) || raw.length === 0 || raw.every((r) => r.type !== OP_ERROR)) {
    return new ZkMultiError(error.code, `ZooKeeper multi failed: ${error.code}`, -1, [], error.path);
  }
  const opCodes = raw.map((r) => (r.type === OP_ERROR ? codeName(r.err ?? 0) : 'OK'));
  let index = opCodes.findIndex((c) => c !== 'OK' && c !== 'RUNTIME_INCONSISTENCY');
  if (index < 0) index = opCodes.findIndex((c) => c !== 'OK');
  const code: ZkErrorCode = index >= 0 ? (opCodes[index] as ZkErrorCode) : error.code;
  const op = index >= 0 ? ops[index] : undefined;
  const where = op ? ` at op ${index} (${op.type} ${op.path})` : '';
  return new ZkMultiError(code, `ZooKeeper multi failed${where}: ${code}`, index, opCodes, op?.path);
}
