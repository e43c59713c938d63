// The MetadataStore contract (store-contract.ts) against the in-memory ensemble: the same scenarios
// as against a real ZooKeeper (zk-store.test.ts).

import { MemoryMetadataService } from '../../../../src/broker/metadata/store/memory-store.js';
import type { MetadataStore } from '../../../../src/broker/metadata/store/metadata-store.js';
import { type ContractCluster, eventually, storeContract } from './store-contract.js';

storeContract(() => ({
  async cluster(): Promise<ContractCluster> {
    const service = new MemoryMetadataService();
    const stores: MetadataStore[] = [];
    return {
      async open() {
        const s = service.connect();
        await s.start();
        stores.push(s);
        return s;
      },
      async expire(store) {
        let expired = false;
        const stop = store.watch({ sessionExpired: () => (expired = true) });
        service.expireSession(store);
        await eventually('sessionExpired', () => expired);
        stop();
      },
      async close() {
        await Promise.all(stores.map((s) => s.close()));
      },
    };
  },
}));
