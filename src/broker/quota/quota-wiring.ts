// The broker's quota wiring, kept out of broker.ts: client quotas (read from the metadata store,
// then kept current) and connection limits (recomputed whenever the dynamic broker configs
// change, `max.connections*` being cluster-wide dynamic keys in Kafka).

import type { ConfigResolver } from '../config/config-resolver.js';
import { connectionLimits } from '../config/connection-limits.js';
import type { Logger } from '../logger.js';
import type { MetadataPublisher } from '../metadata/publisher.js';
import type { MetadataStore } from '../metadata/store/metadata-store.js';
import { ConnectionQuotas } from '../network/connection-quotas.js';
import { BrokerQuotas } from './broker-quotas.js';

export interface BrokerQuotaWiring {
  readonly clientQuotas: BrokerQuotas;
  readonly connectionQuotas: ConnectionQuotas;
  close(): void;
}

export async function startQuotas(o: {
  readonly configs: ConfigResolver;
  readonly store: MetadataStore;
  readonly publisher: MetadataPublisher;
  readonly listenerNames: readonly string[];
  readonly interBrokerListener: string;
  readonly logger: Logger;
}): Promise<BrokerQuotaWiring> {
  const positive = (key: string, dflt: number) => {
    const n = Number(o.configs.brokerValue(key));
    return Number.isInteger(n) && n >= 1 ? n : dflt;
  };
  const clientQuotas = new BrokerQuotas(
    { samples: positive('quota.window.num', 11), windowMs: positive('quota.window.size.seconds', 1) * 1000 },
    o.store,
    o.logger,
  );
  await clientQuotas.start();
  const limits = () => connectionLimits(o.configs, o.listenerNames);
  const connectionQuotas = new ConnectionQuotas(limits(), o.interBrokerListener, o.logger);
  const unsubscribe = o.publisher.subscribe((e) => {
    if (e.kind === 'broker-configs-changed') connectionQuotas.update(limits());
  });
  return {
    clientQuotas,
    connectionQuotas,
    close() {
      unsubscribe();
      clientQuotas.close();
    },
  };
}
