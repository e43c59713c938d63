// What /metrics serves, one per broker: a prom-client registry (in-process clusters run several
// brokers in a process, so the library's global registry is never used) with Kafka's small
// families and prom-client's process and Node.js runtime metrics (CPU, memory, event-loop lag,
// GC), followed by the families with a series per partition, written as text by this module's
// collectors (log-families.ts, consumer-lag.ts): prom-client's labelled gauges cost ≈ 25 µs a
// series per scrape.

import { collectDefaultMetrics, Registry } from 'prom-client';
import type { MetricsSource } from '../http/http-listener.js';
import { ConsumerLag, committedOffsets } from './consumer-lag.js';
import { type CollectorSources, registerKafkaCollectors } from './kafka-collectors.js';
import { LogFamilies } from './log-families.js';

export class BrokerMetricsSource implements MetricsSource {
  readonly contentType = Registry.PROMETHEUS_CONTENT_TYPE;
  readonly registry = new Registry();
  readonly #logs: LogFamilies;
  readonly #lag: ConsumerLag | null;

  constructor(sources: CollectorSources, options: { defaultMetrics?: boolean } = {}) {
    if (options.defaultMetrics !== false) collectDefaultMetrics({ register: this.registry });
    registerKafkaCollectors(this.registry, sources);
    this.#logs = new LogFamilies(() => sources.replicas.all());
    const groups = sources.groups;
    this.#lag = groups
      ? new ConsumerLag({
          offsets: () => committedOffsets(groups),
          partition: (topic, partition) => sources.replicas.get(topic, partition),
        })
      : null;
  }

  async metrics(): Promise<string> {
    const [registered, lag] = await Promise.all([this.registry.metrics(), this.#lag?.text() ?? '']);
    // prom-client ends with one newline; the text families are separated by empty lines as its are.
    return `${registered}\n${this.#logs.text()}${lag === '' ? '' : `\n${lag}`}`;
  }
}

export function brokerMetricsRegistry(sources: CollectorSources): MetricsSource {
  return new BrokerMetricsSource(sources);
}
