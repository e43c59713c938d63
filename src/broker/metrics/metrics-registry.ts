// One prom-client registry per broker (in-process clusters run several brokers in a process, so
// the library's global registry is never used): Kafka's families plus prom-client's process
// and Node.js runtime metrics (CPU, memory, event-loop lag, GC).

import { collectDefaultMetrics, Registry } from 'prom-client';
import type { MetricsSource } from '../http/http-listener.js';
import { type CollectorSources, registerKafkaCollectors } from './kafka-collectors.js';

export function brokerMetricsRegistry(sources: CollectorSources): MetricsSource {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry });
  registerKafkaCollectors(registry, sources);
  return registry;
}
