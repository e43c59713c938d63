// The Prometheus families, named as the Prometheus JMX exporter's Kafka rules
// (example_configs/kafka-2_0_0.yml, lowercaseOutputName) render Kafka's MBeans, so dashboards
// built for Kafka read Samsa unchanged:
//   kafka.server<type=BrokerTopicMetrics, name=MessagesInPerSec, topic=T>  → kafka_server_brokertopicmetrics_messagesin_total{topic="T"}
//   kafka.network<type=RequestMetrics, name=RequestsPerSec, request=R, version=V> → kafka_network_requestmetrics_requests_total{request,version}
//   kafka.network<type=RequestMetrics, name=TotalTimeMs, request=R> 99thPercentile → kafka_network_requestmetrics_totaltimems{request,quantile="0.99"}, Count → …_count
//   kafka.server<type=ReplicaManager, name=PartitionCount> → kafka_server_replicamanager_partitioncount
//   kafka.log<type=Log, name=Size, topic=T, partition=P> → kafka_log_log_size{topic,partition} (log-families.ts)
//   kafka.coordinator.group<type=GroupMetadataManager, name=NumGroups> → kafka_coordinator_group_groupmetadatamanager_numgroups
// Every value is read from the broker's own state when scraped; nothing here runs per request.
// The families with a series per partition (log gauges, consumer lag) are not prom-client
// metrics: they are written as text (log-families.ts, consumer-lag.ts, metrics-registry.ts).

import { Counter, Gauge, type Registry } from 'prom-client';
import { errorName } from '../../protocol/errors.js';
import type { GroupCoordinator } from '../coordinator/group/group-coordinator.js';
import type { MetadataView } from '../metadata/cluster-image.js';
import type { BrokerQuotas } from '../quota/broker-quotas.js';
import type { FetchSessionCache } from '../replica/fetch-session-cache.js';
import type { MinIsrOf } from '../replica/min-isr.js';
import type { ReplicaManager } from '../replica/replica-manager.js';
import type { BrokerMetrics } from './broker-metrics.js';
import { registerFetchSessionGauges } from './fetch-session-gauges.js';
import type { IdleRatios } from './idle-ratios.js';
import { type ApiRequestStats, REQUEST_TIMES } from './request-stats.js';

/** The percentiles of Kafka's Yammer histograms, as the exporter labels them. */
const QUANTILES: readonly [number, string][] = [
  [0.5, '0.50'],
  [0.75, '0.75'],
  [0.95, '0.95'],
  [0.98, '0.98'],
  [0.99, '0.99'],
  [0.999, '0.999'],
];

const GROUP_STATES = ['PreparingRebalance', 'CompletingRebalance', 'Stable', 'Dead', 'Empty'] as const;

export interface CollectorSources {
  readonly metrics: BrokerMetrics;
  readonly replicas: ReplicaManager;
  readonly image: MetadataView;
  readonly isActiveController: () => boolean;
  /** `min.insync.replicas` of a topic as applied now (the UnderMinIsr and AtMinIsr counts). */
  readonly minIsrOf: MinIsrOf;
  /** The group coordinator (group counts, consumer lag); absent = none. */
  readonly groups?: GroupCoordinator;
  /** Incremental fetch sessions; absent = no FetchSessionCache families. */
  readonly fetchSessions?: FetchSessionCache;
  /** Whether the metadata store is ZooKeeper (its session families, from `metrics.zookeeper`). */
  readonly zookeeper?: boolean;
  /** Client quotas: their rates and throttle times per user/client-id; absent = none. */
  readonly quotas?: BrokerQuotas;
  /** The event loop's and the network threads' idle fractions; absent = no such families. */
  readonly idle?: IdleRatios;
}

export function registerKafkaCollectors(registry: Registry, s: CollectorSources): void {
  const registers = [registry];
  const { topics, requests } = s.metrics;

  for (const [field, name, help] of [
    ['messagesIn', 'messagesin', 'Records appended as leader (MessagesInPerSec)'],
    ['bytesIn', 'bytesin', 'Record bytes produced (BytesInPerSec)'],
    ['bytesOut', 'bytesout', 'Record bytes fetched by consumers (BytesOutPerSec)'],
    [
      'totalProduceRequests',
      'totalproducerequests',
      'Partitions of Produce requests handled (TotalProduceRequestsPerSec)',
    ],
    [
      'failedProduceRequests',
      'failedproducerequests',
      'Partitions of Produce requests whose append failed, not counting leadership, size and corruption errors (FailedProduceRequestsPerSec)',
    ],
    [
      'totalFetchRequests',
      'totalfetchrequests',
      'Partitions read by Fetch requests, consumers and followers (TotalFetchRequestsPerSec)',
    ],
    [
      'failedFetchRequests',
      'failedfetchrequests',
      'Partitions of Fetch requests whose read failed, not counting leadership, epoch and offset-range errors (FailedFetchRequestsPerSec)',
    ],
  ] as const) {
    new Counter({
      name: `kafka_server_brokertopicmetrics_${name}_total`,
      help,
      labelNames: ['topic'],
      registers,
      collect() {
        this.reset();
        this.inc(topics.all[field]);
        for (const [topic, c] of topics.topics((t) => s.image.topic(t) !== undefined))
          this.inc({ topic }, c[field]);
      },
    });
  }

  counter(
    registers,
    'kafka_server_brokertopicmetrics_replicationbytesin_total',
    'Record bytes appended as follower, fetched from leaders (ReplicationBytesInPerSec)',
    () => topics.replicationBytesIn,
  );
  counter(
    registers,
    'kafka_server_brokertopicmetrics_replicationbytesout_total',
    'Record bytes read by followers (ReplicationBytesOutPerSec)',
    () => topics.replicationBytesOut,
  );

  // Each API's counts kept in a sparse array (by version; by error code + 1), one series a slot.
  for (const [name, help, label, slots, slotLabel] of [
    [
      'requests',
      'Requests handled, by API and version (RequestsPerSec)',
      'version',
      (st: ApiRequestStats) => st.byVersion,
      (version: number) => String(version),
    ],
    [
      'errors',
      'Error codes in responses (NONE included), by API and error (ErrorsPerSec)',
      'error',
      (st: ApiRequestStats) => st.errors,
      (at: number) => errorName(at - 1),
    ],
  ] as const)
    new Counter({
      name: `kafka_network_requestmetrics_${name}_total`,
      help,
      labelNames: ['request', label],
      registers,
      collect() {
        this.reset();
        // forEach skips the array's holes: slots never counted make no series.
        for (const [request, st] of requests.entries())
          slots(st).forEach((n, i) => {
            this.inc({ request, [label]: slotLabel(i) }, n);
          });
      },
    });
  for (const time of REQUEST_TIMES) {
    new Gauge({
      name: `kafka_network_requestmetrics_${time}`,
      help: `Request ${time.replace(/ms$/, '')} in ms over the last 1028 timed requests (every one that comes alone, about 250/s of a busy stream), by quantile`,
      labelNames: ['request', 'quantile'],
      registers,
      collect() {
        this.reset();
        for (const [request, st] of requests.entries()) {
          const values = st.quantiles(
            time,
            QUANTILES.map(([q]) => q),
          );
          QUANTILES.forEach(([, quantile], i) => {
            this.set({ request, quantile }, values[i]!);
          });
        }
      },
    });
    new Counter({
      name: `kafka_network_requestmetrics_${time}_count`,
      help: `Requests handled (the count of the kafka_network_requestmetrics_${time} histogram)`,
      labelNames: ['request'],
      registers,
      collect() {
        this.reset();
        for (const [request, st] of requests.entries()) this.inc({ request }, st.count);
      },
    });
  }

  if (s.zookeeper) {
    const zk = s.metrics.zookeeper;
    for (const [field, name, help] of [
      [
        'syncConnects',
        'zookeepersyncconnects',
        'ZooKeeper connections established (ZooKeeperSyncConnectsPerSec)',
      ],
      ['disconnects', 'zookeeperdisconnects', 'ZooKeeper connections lost (ZooKeeperDisconnectsPerSec)'],
      ['expires', 'zookeeperexpires', 'ZooKeeper sessions expired (ZooKeeperExpiresPerSec)'],
    ] as const)
      counter(registers, `kafka_server_sessionexpirelistener_${name}_total`, help, () => zk[field]);
    const latency = zk.requestLatency;
    new Gauge({
      name: 'kafka_server_zookeeperclientmetrics_zookeeperrequestlatencyms',
      help: 'ZooKeeper request latency in ms over the last 1028 requests, by quantile (ZooKeeperRequestLatencyMs)',
      labelNames: ['quantile'],
      registers,
      collect() {
        this.reset();
        const values = latency.quantiles(QUANTILES.map(([q]) => q));
        QUANTILES.forEach(([, quantile], i) => {
          this.set({ quantile }, values[i]!);
        });
      },
    });
    counter(
      registers,
      'kafka_server_zookeeperclientmetrics_zookeeperrequestlatencyms_count',
      'ZooKeeper requests answered (the count of the latency histogram)',
      () => latency.count,
    );
  }

  if (s.quotas) registerQuotaGauges(registers, s.quotas);
  const idle = s.idle;
  if (idle) {
    gauge(
      registers,
      'kafka_server_kafkarequesthandlerpool_requesthandleravgidle_percent',
      'Idle fraction (0-1) of the event loop, which handles every request, over the last minute (RequestHandlerAvgIdlePercent)',
      () => idle.requestHandlerIdle(),
    );
    gauge(
      registers,
      'kafka_network_socketserver_networkprocessoravgidle_percent',
      "Mean idle fraction (0-1) of the network threads over the last minute, the event loop's with one thread (NetworkProcessorAvgIdlePercent)",
      () => idle.networkProcessorIdle(),
    );
  }
  registerReplicaGauges(registers, s);
  registerControllerGauges(registers, s);
  if (s.fetchSessions) registerFetchSessionGauges(registers, s.fetchSessions);
  const groups = s.groups;
  if (groups)
    registerGroupGauges(registers, async () => (await groups.listGroups([], [])).groups.map((g) => g.state));
}

function gauge(registers: Registry[], name: string, help: string, value: () => number): void {
  new Gauge({
    name,
    help,
    registers,
    collect() {
      this.set(value());
    },
  });
}

/** An unlabelled counter whose total is read at scrape time. */
function counter(registers: Registry[], name: string, help: string, total: () => number): void {
  new Counter({
    name,
    help,
    registers,
    collect() {
      this.reset();
      this.inc(total());
    },
  });
}

function registerReplicaGauges(registers: Registry[], s: CollectorSources): void {
  const count = (
    pred: (p: { isLeader: boolean; isr: readonly number[]; replicas: readonly number[] }) => boolean,
  ) => {
    let n = 0;
    for (const p of s.replicas.all()) if (pred(p)) n++;
    return n;
  };
  gauge(registers, 'kafka_server_replicamanager_partitioncount', 'Partitions with a replica here', () =>
    count(() => true),
  );
  gauge(registers, 'kafka_server_replicamanager_leadercount', 'Partitions led here', () =>
    count((p) => p.isLeader),
  );
  gauge(
    registers,
    'kafka_server_replicamanager_underreplicatedpartitions',
    'Partitions led here whose ISR is smaller than their replica set',
    () => count((p) => p.isLeader && p.isr.length < p.replicas.length),
  );
  // Kafka's Partition.isUnderMinIsr / isAtMinIsr, counted on the leader: under, acks=all
  // produces fail with NOT_ENOUGH_REPLICAS; at, one more replica leaving the ISR makes them fail.
  // The topic's min.insync.replicas is resolved once per run of its partitions, not per partition.
  const countAgainstMinIsr = (pred: (isr: number, minIsr: number) => boolean) => () => {
    let n = 0;
    let topic: string | null = null;
    let minIsr = 1;
    for (const p of s.replicas.all()) {
      if (!p.isLeader) continue;
      if (p.topic !== topic) {
        topic = p.topic;
        minIsr = s.minIsrOf(topic);
      }
      if (pred(p.isr.length, minIsr)) n++;
    }
    return n;
  };
  gauge(
    registers,
    'kafka_server_replicamanager_underminisrpartitioncount',
    'Partitions led here whose ISR is smaller than their min.insync.replicas',
    countAgainstMinIsr((isr, min) => isr < min),
  );
  gauge(
    registers,
    'kafka_server_replicamanager_atminisrpartitioncount',
    'Partitions led here whose ISR is exactly their min.insync.replicas',
    countAgainstMinIsr((isr, min) => isr === min),
  );
  for (const [field, name] of [
    ['shrinks', 'isrshrinks'],
    ['expands', 'isrexpands'],
  ] as const)
    counter(
      registers,
      `kafka_server_replicamanager_${name}_total`,
      `ISR ${field} of partitions led here, accepted by the controller (Isr${field === 'shrinks' ? 'Shrinks' : 'Expands'}PerSec)`,
      () => s.replicas.isrChanges[field],
    );
}

function registerControllerGauges(registers: Registry[], s: CollectorSources): void {
  gauge(
    registers,
    'kafka_controller_kafkacontroller_activecontrollercount',
    '1 on the broker that is the active controller',
    () => (s.isActiveController() ? 1 : 0),
  );
  // Kafka reports these on the active controller only (0 elsewhere), so a cluster-wide sum is right.
  const onController = (value: () => number) => () => (s.isActiveController() ? value() : 0);
  gauge(
    registers,
    'kafka_controller_kafkacontroller_offlinepartitionscount',
    'Partitions without a live leader (active controller only)',
    onController(() => {
      let n = 0;
      for (const t of s.image.topics)
        for (const p of t.partitions) if (p.leader < 0 || s.image.broker(p.leader) === undefined) n++;
      return n;
    }),
  );
  gauge(
    registers,
    'kafka_controller_kafkacontroller_globaltopiccount',
    'Topics in the cluster (active controller only)',
    onController(() => s.image.topicCount),
  );
  gauge(
    registers,
    'kafka_controller_kafkacontroller_globalpartitioncount',
    'Partitions in the cluster (active controller only)',
    onController(() => {
      let n = 0;
      for (const t of s.image.topics) n += t.partitions.length;
      return n;
    }),
  );
}

function registerGroupGauges(registers: Registry[], groupStates: () => Promise<readonly string[]>): void {
  const prefix = 'kafka_coordinator_group_groupmetadatamanager_numgroups';
  // One read of the coordinator per scrape, shared by the six gauges.
  let pending: Promise<readonly string[]> | null = null;
  const states = () => {
    pending ??= groupStates().finally(() => {
      pending = null;
    });
    return pending;
  };
  new Gauge({
    name: prefix,
    help: 'Groups coordinated here',
    registers,
    async collect() {
      this.set((await states()).length);
    },
  });
  for (const state of GROUP_STATES) {
    new Gauge({
      name: `${prefix}${state.toLowerCase()}`,
      help: `Groups coordinated here in state ${state}`,
      registers,
      async collect() {
        this.set((await states()).filter((st) => st === state).length);
      },
    });
  }
}

/**
 * Kafka's quota metrics (type=Produce|Fetch|Request, user=U, client-id=C: byte-rate or
 * request-time, and throttle-time), as the JMX exporter's quota rules name them. A rate exists
 * for a user/client-id pair only while a quota applies to it and it was used in the last hour.
 */
function registerQuotaGauges(registers: Registry[], quotas: BrokerQuotas): void {
  const managers = [
    ['Produce', quotas.produce],
    ['Fetch', quotas.fetch],
    ['Request', quotas.request],
  ] as const;
  const labelNames = ['resource', 'user', 'clientId'] as const;
  new Gauge({
    name: 'kafka_server_quota_byte_rate',
    help: 'Bytes per second of a user/client-id under a produce or fetch quota (byte-rate)',
    labelNames,
    registers,
    collect() {
      this.reset();
      const now = Date.now();
      for (const [resource, m] of managers.slice(0, 2))
        for (const r of m.readings(now)) this.set({ resource, user: r.user, clientId: r.clientId }, r.rate);
    },
  });
  new Gauge({
    name: 'kafka_server_quota_request_time',
    help: "Percent of a thread's time used per second by a user/client-id under a request quota (request-time)",
    labelNames,
    registers,
    collect() {
      this.reset();
      for (const r of quotas.request.readings(Date.now()))
        this.set({ resource: 'Request', user: r.user, clientId: r.clientId }, r.rate);
    },
  });
  new Gauge({
    name: 'kafka_server_quota_throttle_time',
    help: 'Mean throttle time in ms given to a user/client-id by a quota over its window (throttle-time)',
    labelNames,
    registers,
    collect() {
      this.reset();
      const now = Date.now();
      for (const [resource, m] of managers)
        for (const r of m.readings(now))
          this.set({ resource, user: r.user, clientId: r.clientId }, r.throttleTimeMs);
    },
  });
}
