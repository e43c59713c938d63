// ZooKeeper's Stat with 64-bit fields as bigints (node-zookeeper-client hands them over as raw
// 8-byte buffers). czxid of a broker's registration znode is its broker epoch (KIP-380), and
// ephemeralOwner is the session id that owns an ephemeral znode (0 for persistent ones).

import type { Stat } from 'node-zookeeper-client';

export interface ZkStat {
  /** zxid of the transaction that created the znode (Kafka's broker epoch for /brokers/ids/N). */
  readonly czxid: bigint;
  /** zxid of the last data change. */
  readonly mzxid: bigint;
  /** zxid of the last change of the children list. */
  readonly pzxid: bigint;
  /** Creation time, ms since the epoch. */
  readonly ctime: number;
  /** Last data change, ms since the epoch. */
  readonly mtime: number;
  /** Data version: 0 at creation, +1 per setData. Kafka's "zkVersion" (partition epoch). */
  readonly version: number;
  /** Children version. */
  readonly cversion: number;
  /** ACL version. */
  readonly aversion: number;
  /** Owning session id of an ephemeral znode, 0n otherwise. */
  readonly ephemeralOwner: bigint;
  readonly dataLength: number;
  readonly numChildren: number;
}

function long(b: Buffer | undefined): bigint {
  return b && b.length === 8 ? b.readBigInt64BE(0) : 0n;
}

export function toZkStat(s: Stat): ZkStat {
  return {
    czxid: long(s.czxid),
    mzxid: long(s.mzxid),
    pzxid: long(s.pzxid),
    ctime: Number(long(s.ctime)),
    mtime: Number(long(s.mtime)),
    version: s.version,
    cversion: s.cversion,
    aversion: s.aversion,
    ephemeralOwner: long(s.ephemeralOwner),
    dataLength: s.dataLength,
    numChildren: s.numChildren,
  };
}

/** Session ids as ZooKeeper and Kafka log them: 0x + lower-case hex of the unsigned 64-bit value. */
export function sessionIdHex(id: bigint): string {
  return `0x${BigInt.asUintN(64, id).toString(16)}`;
}
