// docs/grafana/samsa-dashboard.json works on what a broker exposes: it parses, every panel has a
// query, and every metric name in its PromQL expressions and variable queries is a family (or a
// family's sample) on a real broker's /metrics.

import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { type BrokerHandle, startBroker } from '../../src/broker/broker.js';
import { MemoryMetadataService } from '../../src/broker/metadata/store/memory-store.js';
import { parsePrometheusText } from '../support/prometheus-text.js';
import { scaled } from '../support/timeouts.js';
import { REPO_ROOT } from './doc-blocks.js';

const DASHBOARD = join(REPO_ROOT, 'docs', 'grafana', 'samsa-dashboard.json');

interface Panel {
  type: string;
  title: string;
  targets?: { expr: string }[];
}

const PROMQL_WORDS = new Set([
  'by',
  'without',
  'on',
  'ignoring',
  'group_left',
  'group_right',
  'bool',
  'and',
  'or',
  'unless',
  'offset',
  'inf',
  'nan',
]);

/** Metric names a PromQL expression (or a Grafana `label_values(metric, label)`) selects. */
export function metricNames(expr: string): string[] {
  const stripped = expr
    .replace(/"(?:[^"\\]|\\.)*"/g, '""') // string literals
    .replace(/\{[^}]*\}/g, '') // label matchers
    .replace(/\[[^\]]*\]/g, '') // ranges
    .replace(/\b(by|without|on|ignoring|group_left|group_right)\s*\([^)]*\)/g, '') // label lists
    .replace(/\$\w+/g, ''); // Grafana variables
  const label = /^label_values\(\s*([a-zA-Z_:][\w:]*)\s*,/.exec(expr.trim());
  if (label) return [label[1]!];
  const names: string[] = [];
  for (const m of stripped.matchAll(/[\w:.]+/g)) {
    const after = stripped.slice(m.index + m[0].length).trimStart();
    if (after.startsWith('(')) continue; // a function or aggregation
    if (PROMQL_WORDS.has(m[0].toLowerCase())) continue;
    if (/^[\d.]/.test(m[0])) continue; // numbers and durations
    names.push(m[0]);
  }
  return names;
}

// A cluster's broker, as the dashboard is for: its metadata store has ZooKeeper's connection
// semantics (an in-memory one), so the ZooKeeper session families are there too.
let broker: BrokerHandle;
let dataDir: string;
before(async () => {
  dataDir = await mkdtemp(join(tmpdir(), 'samsa-dashboard-'));
  broker = await startBroker({
    host: '127.0.0.1',
    port: 0,
    dataDir,
    overrides: { 'http.listener': '127.0.0.1:0' },
    metadataStore: new MemoryMetadataService().connect(),
  });
});
after(async () => {
  await broker?.close();
  await rm(dataDir, { recursive: true, force: true });
});

test('the PromQL scanner finds metric names and nothing else', () => {
  assert.deepEqual(
    metricNames(
      'sum by (topic) (rate(kafka_server_brokertopicmetrics_messagesin_total{instance=~"$instance",topic=~"a b"}[$__rate_interval]))',
    ),
    ['kafka_server_brokertopicmetrics_messagesin_total'],
  );
  assert.deepEqual(metricNames('max(a{quantile="0.99"}) / on(instance) b offset 5m'), ['a', 'b']);
  assert.deepEqual(metricNames('label_values(kafka_consumergroup_lag, consumergroup)'), [
    'kafka_consumergroup_lag',
  ]);
});

test('every metric the dashboard queries is exposed by the broker', async () => {
  const dashboard = JSON.parse(readFileSync(DASHBOARD, 'utf8')) as {
    panels: Panel[];
    templating: { list: { type: string; query: string | { query: string } }[] };
  };
  const exprs: string[] = [];
  for (const p of dashboard.panels) {
    if (p.type === 'row') continue;
    assert.ok((p.targets ?? []).length > 0, `panel "${p.title}" has a query`);
    for (const t of p.targets ?? []) exprs.push(t.expr);
  }
  for (const v of dashboard.templating.list)
    if (v.type === 'query') exprs.push(typeof v.query === 'string' ? v.query : v.query.query);

  const res = await fetch(`http://127.0.0.1:${broker.http!.port}/metrics`, {
    signal: AbortSignal.timeout(scaled(20_000)),
  });
  const exposition = parsePrometheusText(await res.text());
  const exposed = new Set(exposition.types.keys());
  for (const s of exposition.samples) exposed.add(s.name);

  const used = new Set(exprs.flatMap(metricNames));
  assert.ok(used.size >= 20, `the dashboard queries ${used.size} metrics`);
  const missing = [...used].filter((n) => !exposed.has(n));
  assert.deepEqual(missing, [], 'metrics the dashboard queries but the broker does not expose');
  for (const required of [
    'kafka_server_brokertopicmetrics_messagesin_total',
    'kafka_server_brokertopicmetrics_bytesin_total',
    'kafka_server_brokertopicmetrics_bytesout_total',
    'kafka_server_brokertopicmetrics_replicationbytesin_total',
    'kafka_server_brokertopicmetrics_failedproducerequests_total',
    'kafka_server_sessionexpirelistener_zookeeperexpires_total',
    'kafka_network_requestmetrics_requests_total',
    'kafka_network_requestmetrics_totaltimems',
    'kafka_server_replicamanager_underreplicatedpartitions',
    'kafka_server_replicamanager_underminisrpartitioncount',
    'kafka_controller_kafkacontroller_offlinepartitionscount',
    'kafka_controller_kafkacontroller_activecontrollercount',
    'kafka_server_replicamanager_isrshrinks_total',
    'kafka_server_replicamanager_isrexpands_total',
    'kafka_server_replicamanager_partitioncount',
    'kafka_server_replicamanager_leadercount',
    'kafka_consumergroup_lag',
    'kafka_consumergroup_lag_seconds',
    'kafka_log_log_size',
  ])
    assert.ok(used.has(required), `the dashboard shows ${required}`);
});
