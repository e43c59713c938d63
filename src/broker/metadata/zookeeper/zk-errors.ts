// ZooKeeper errors with ZooKeeper's own code names (KeeperException.Code), so callers can match
// Kafka's ZooKeeper-mode logic case by case (`NODE_EXISTS` → re-read, `BAD_VERSION` → fenced…).
//
// CONNECTION_LOSS is NOT a "failed" outcome: the request may or may not have been applied by the
// server (the reply was lost, not necessarily the request). A create or multi that failed with
// CONNECTION_LOSS must be re-checked by reading back what it wrote — see zk-ephemeral.ts.

/** ZooKeeper result codes (KeeperException.Code), by the names ZooKeeper's clients use. */
export const ZK_ERROR_CODES = {
  SYSTEM_ERROR: -1,
  RUNTIME_INCONSISTENCY: -2,
  DATA_INCONSISTENCY: -3,
  CONNECTION_LOSS: -4,
  MARSHALLING_ERROR: -5,
  UNIMPLEMENTED: -6,
  OPERATION_TIMEOUT: -7,
  BAD_ARGUMENTS: -8,
  API_ERROR: -100,
  NO_NODE: -101,
  NO_AUTH: -102,
  BAD_VERSION: -103,
  NO_CHILDREN_FOR_EPHEMERALS: -108,
  NODE_EXISTS: -110,
  NOT_EMPTY: -111,
  SESSION_EXPIRED: -112,
  INVALID_CALLBACK: -113,
  INVALID_ACL: -114,
  AUTH_FAILED: -115,
} as const;

/**
 * A ZooKeeper code name, or one of this wrapper's own:
 * `CONNECT_TIMEOUT` (no session within connectionTimeoutMs) and `CLOSED` (the client was closed).
 */
export type ZkErrorCode = keyof typeof ZK_ERROR_CODES | 'CONNECT_TIMEOUT' | 'CLOSED';

const NAME_BY_NUMBER = new Map<number, keyof typeof ZK_ERROR_CODES>(
  Object.entries(ZK_ERROR_CODES).map(([name, n]) => [n, name as keyof typeof ZK_ERROR_CODES]),
);

export class ZkError extends Error {
  override readonly name = 'ZkError';
  constructor(
    readonly code: ZkErrorCode,
    message: string,
    /** The znode the failed operation was about, when there is one. */
    readonly path?: string,
  ) {
    super(message);
  }
}

/** A multi (transaction) failed: nothing of it was applied, except under CONNECTION_LOSS (unknown). */
export class ZkMultiError extends ZkError {
  constructor(
    code: ZkErrorCode,
    message: string,
    /** Index of the op that failed, or -1 when the server reported no per-op result (connection loss). */
    readonly failedOpIndex: number,
    /** Per-op codes as the server reported them ('OK' for ops before the failing one), when known. */
    readonly opCodes: readonly (ZkErrorCode | 'OK')[],
    path?: string,
  ) {
    super(code, message, path);
  }
}

export function isZkError(e: unknown, ...codes: ZkErrorCode[]): e is ZkError {
  return e instanceof ZkError && (codes.length === 0 || codes.includes(e.code));
}

export function codeName(n: number): ZkErrorCode | 'OK' {
  if (n === 0) return 'OK';
  return NAME_BY_NUMBER.get(n) ?? 'SYSTEM_ERROR';
}

/** Shape of node-zookeeper-client's Exception (its typings declare it as a class we never construct). */
interface LibraryException {
  getCode(): number;
}

function isLibraryException(e: unknown): e is LibraryException {
  return typeof e === 'object' && e !== null && typeof (e as { getCode?: unknown }).getCode === 'function';
}

/** Converts whatever the library passed to a callback (an Exception, an assertion Error) to a ZkError. */
export function toZkError(e: unknown, op: string, path?: string): ZkError {
  if (e instanceof ZkError) return e;
  if (isLibraryException(e)) {
    const code = codeName(e.getCode());
    const c: ZkErrorCode = code === 'OK' ? 'SYSTEM_ERROR' : code;
    return new ZkError(c, `ZooKeeper ${op}${path === undefined ? '' : ` ${path}`} failed: ${c}`, path);
  }
  // The library validates arguments with `assert` (bad path, oversized data): a caller bug.
  const msg = e instanceof Error ? e.message : String(e);
  return new ZkError('BAD_ARGUMENTS', `ZooKeeper ${op}${path === undefined ? '' : ` ${path}`}: ${msg}`, path);
}
