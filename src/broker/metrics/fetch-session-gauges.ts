// Kafka's FetchSessionCache metrics, named as the JMX exporter renders them:
//   kafka.server<type=FetchSessionCache, name=NumIncrementalFetchSessions> → kafka_server_fetchsessioncache_numincrementalfetchsessions
//   kafka.server<type=FetchSessionCache, name=NumIncrementalFetchPartitionsCached> → …_numincrementalfetchpartitionscached
//   kafka.server<type=FetchSessionCache, name=IncrementalFetchSessionEvictionsPerSec> → …_incrementalfetchsessionevictions_total
// Read from the cache when scraped.

import { Counter, Gauge, type Registry } from 'prom-client';
import type { FetchSessionCache } from '../replica/fetch-session-cache.js';

export function registerFetchSessionGauges(registers: Registry[], cache: FetchSessionCache): void {
  const prefix = 'kafka_server_fetchsessioncache';
  new Gauge({
    name: `${prefix}_numincrementalfetchsessions`,
    help: 'Incremental fetch sessions in the cache',
    registers,
    collect() {
      this.set(cache.size);
    },
  });
  new Gauge({
    name: `${prefix}_numincrementalfetchpartitionscached`,
    help: 'Partitions over all incremental fetch sessions',
    registers,
    collect() {
      this.set(cache.totalPartitions);
    },
  });
  new Counter({
    name: `${prefix}_incrementalfetchsessionevictions_total`,
    help: 'Fetch sessions evicted to make room for new ones (IncrementalFetchSessionEvictionsPerSec)',
    registers,
    collect() {
      this.reset();
      this.inc(cache.evictions);
    },
  });
}
