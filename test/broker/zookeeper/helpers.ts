// Shared by the ZooKeeper tests: liveness waits with generous limits (a loaded 2-core machine),
// never speed assertions.

import assert from 'node:assert/strict';
import { ZkClient, type ZkClientOptions } from '../../../src/broker/metadata/zookeeper/zk-client.js';

/** Liveness limit for things that take a second or two when quiet. */
export const LIVENESS_MS = 30_000;

/** Polls `check` until it returns a value other than undefined/false, or fails after `timeoutMs`. */
export async function eventually<T>(
  what: string,
  check: () => Promise<T | undefined | false> | T | undefined | false,
  timeoutMs = LIVENESS_MS,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = await check();
    if (v !== undefined && v !== false) return v;
    if (Date.now() > deadline) assert.fail(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

/** Resolves with the first value `subscribe` hands to its callback that satisfies `match`. */
export function waitFor<T>(
  what: string,
  subscribe: (cb: (v: T) => void) => void,
  match: (v: T) => boolean = () => true,
  timeoutMs = LIVENESS_MS,
): Promise<T> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(
      () => reject(new Error(`timed out after ${timeoutMs} ms waiting for ${what}`)),
      timeoutMs,
    );
    subscribe((v) => {
      if (match(v)) {
        clearTimeout(timer);
        resolve(v);
      }
    });
  });
}

/** Opens clients and closes them all at the end of a test file. */
export class Clients {
  private readonly open: ZkClient[] = [];
  async connect(connectString: string, options: ZkClientOptions = {}): Promise<ZkClient> {
    const c = await ZkClient.connect(connectString, { connectionTimeoutMs: LIVENESS_MS, ...options });
    this.open.push(c);
    return c;
  }
  async closeAll(): Promise<void> {
    await Promise.all(this.open.splice(0).map((c) => c.close()));
  }
}

export const buf = (s: string): Buffer => Buffer.from(s, 'utf8');
