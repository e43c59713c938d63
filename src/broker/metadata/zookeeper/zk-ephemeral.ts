// Writes whose outcome is unknown after a CONNECTION_LOSS, done the way Kafka's KafkaZkClient
// does them: retry once connected, and read back to tell "my earlier attempt was applied" from
// "someone else got there first".

import type { ZkClient } from './zk-client.js';
import { isZkError, ZkError } from './zk-errors.js';
import { sessionIdHex, type ZkStat } from './zk-stat.js';

/**
 * Runs `op`, and again each time it fails with CONNECTION_LOSS, once the client is connected
 * (possibly in a new session, after an expiry). Only for reads, or for writes whose repeated
 * outcome the caller checks: a retried create that was applied the first time fails with
 * NODE_EXISTS, a retried versioned setData with BAD_VERSION. Kafka's controller election, for
 * instance, answers NODE_EXISTS/BAD_VERSION by re-reading /controller and /controller_epoch and
 * comparing them with what it wrote (registerControllerAndIncrementControllerEpoch).
 */
export async function retryUntilConnected<T>(client: ZkClient, op: () => Promise<T>): Promise<T> {
  for (;;) {
    try {
      return await op();
    } catch (e) {
      if (!isZkError(e, 'CONNECTION_LOSS')) throw e;
      await client.waitUntilConnected();
    }
  }
}

/**
 * Creates the ephemeral znode `path` holding `data`, owned by the client's current session, and
 * returns its stat (czxid = the broker epoch of a broker registration). Kafka's
 * checkedEphemeralCreate: a multi of create(path, empty) + setData(path, data, version 0), so the
 * reply carries the stat; after CONNECTION_LOSS it is retried, and NODE_EXISTS is resolved by
 * reading the znode back:
 * - owned by the current session: our earlier attempt was applied; success;
 * - owned by an earlier session of this client (an expired session whose ephemeral the server
 *   has not removed yet, ZOOKEEPER-2985 / KAFKA-7165): delete it and create again;
 * - gone meanwhile: create again;
 * - owned by anyone else (or persistent): NODE_EXISTS, e.g. another broker with the same id.
 * SESSION_EXPIRED is thrown as is: the caller re-runs this after the client's 'newSession'.
 */
export async function createEphemeralChecked(client: ZkClient, path: string, data: Buffer): Promise<ZkStat> {
  for (let attempt = 0; attempt < 20; attempt++) {
    try {
      const results = await retryUntilConnected(client, () =>
        client.multi([
          { type: 'create', path, data: null, mode: 'EPHEMERAL' },
          { type: 'setData', path, data, version: 0 },
        ]),
      );
      const set = results[1];
      if (set?.type !== 'setData')
        throw new ZkError('MARSHALLING_ERROR', `create ${path}: unexpected multi result`);
      return set.stat;
    } catch (e) {
      if (!isZkError(e, 'NODE_EXISTS')) throw e;
    }
    let stat: ZkStat;
    try {
      stat = (await retryUntilConnected(client, () => client.getData(path))).stat;
    } catch (e) {
      if (isZkError(e, 'NO_NODE')) continue; // went away while we looked: try again
      throw e;
    }
    const owner = stat.ephemeralOwner;
    if (owner !== 0n && owner === client.sessionId) return stat;
    if (owner !== 0n && client.sessionIds.includes(owner)) {
      try {
        await retryUntilConnected(client, () => client.delete(path, -1));
      } catch (e) {
        if (!isZkError(e, 'NO_NODE')) throw e;
      }
      continue;
    }
    throw new ZkError(
      'NODE_EXISTS',
      `${path} already exists and is ${owner === 0n ? 'persistent' : `owned by session ${sessionIdHex(owner)}`}, ` +
        `not by this session (${client.sessionIdHex})`,
      path,
    );
  }
  throw new ZkError(
    'SYSTEM_ERROR',
    `create ${path}: gave up after 20 attempts (the znode keeps flapping)`,
    path,
  );
}
