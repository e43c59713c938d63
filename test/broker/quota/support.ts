// What the quota tests share: set a client-id quota through the admin client and wait until the
// broker applies it (the change travels through the metadata store's notification).
import type { Admin } from '../../../src/client/index.js';
import type { TestBroker } from '../../../src/testkit/index.js';
import { scaled, TestTimeoutError } from '../../support/timeouts.js';

export async function waitFor(what: string, cond: () => boolean, ms = scaled(15_000)): Promise<void> {
  const deadline = Date.now() + ms;
  while (!cond()) {
    if (Date.now() > deadline) throw new TestTimeoutError(what, ms);
    await new Promise((r) => setTimeout(r, 20));
  }
}

/** Sets (or removes, with null) `key` for `clientId` and waits until `broker` enforces it. */
export async function setClientIdQuota(
  admin: Admin,
  broker: TestBroker,
  clientId: string,
  key: 'producer_byte_rate' | 'consumer_byte_rate',
  value: number | null,
): Promise<void> {
  await admin.alterClientQuotas([
    { entity: [{ entityType: 'client-id', name: clientId }], ops: [{ key, value }] },
  ]);
  const q = broker.services.quotas!;
  const manager = key === 'producer_byte_rate' ? q.produce : q.fetch;
  await waitFor('the quota to reach the broker', () => {
    const v = manager.quotaFor({ user: 'ANONYMOUS', clientId });
    return value === null ? v === Number.POSITIVE_INFINITY : v === value;
  });
}
