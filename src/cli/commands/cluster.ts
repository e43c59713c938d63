// `samsa cluster`: the cluster id (what `kafka-cluster.sh cluster-id` prints), the controller and
// every broker with its address, rack and endpoints. DescribeCluster names only the endpoint of
// the listener we connected through, so each broker's other endpoints come from its own
// advertised.listeners (or listeners) config; a broker that will not say shows "-".
import type { Admin } from '../../client/admin/admin.js';
import { KafkaResponseError } from '../../client/errors.js';
import { ADMIN_COMMAND_OPTIONS, openAdmin } from './admin-session.js';
import {
  CommandError,
  type CommandIO,
  CommandUsageError,
  parseCommand,
  processIO,
  runCommand,
} from './common.js';
import { toJson } from './groups-print.js';

export const CLUSTER_USAGE = `Usage: samsa cluster [cluster-id] [options]

The cluster id, the controller, and every broker with its address, rack and endpoints.
samsa cluster cluster-id prints only the id, as kafka-cluster.sh cluster-id does.

  --bootstrap-server HOST:PORT  broker to connect to (default 127.0.0.1:9092)
  --command-config FILE         admin client properties (Kafka's names: security.protocol, sasl.*, ssl.*)
  --output text|json            a table (default) or JSON

Examples:
  samsa cluster
  samsa cluster cluster-id --bootstrap-server kafka-1:9092
  samsa cluster --output json --command-config admin.properties
`;

export interface BrokerRow {
  id: number;
  host: string;
  port: number;
  rack: string | null;
  /** LISTENER://host:port of each listener, null when the broker did not say. */
  endpoints: string[] | null;
}

export async function runCluster(argv: readonly string[], io: CommandIO = processIO): Promise<number> {
  return runCommand(io, CLUSTER_USAGE, async () => {
    const { values: v, positionals } = parseCommand({
      args: [...argv],
      allowPositionals: true,
      options: {
        ...ADMIN_COMMAND_OPTIONS,
        output: { type: 'string' },
      },
    });
    if (v.help) {
      io.stdout.write(CLUSTER_USAGE);
      return 0;
    }
    const idOnly = positionals[0] === 'cluster-id';
    if (positionals.length > (idOnly ? 1 : 0))
      throw new CommandUsageError(`unexpected argument "${positionals.at(-1)}" (samsa cluster [cluster-id])`);
    if (v.output !== undefined && v.output !== 'text' && v.output !== 'json')
      throw new CommandUsageError(`--output is text or json, not "${v.output}"`);
    const json = v.output === 'json';
    const { admin } = await openAdmin(v, io);
    try {
      const cluster = await admin.describeCluster();
      if (idOnly) {
        io.stdout.write(
          json ? toJson({ clusterId: cluster.clusterId }) : `Cluster ID: ${cluster.clusterId}\n`,
        );
        return 0;
      }
      const brokers: BrokerRow[] = await Promise.all(
        cluster.brokers.map(async (b) => ({
          id: b.nodeId,
          host: b.host,
          port: b.port,
          rack: b.rack,
          endpoints: await endpointsOf(admin, b.nodeId),
        })),
      );
      if (json)
        io.stdout.write(toJson({ clusterId: cluster.clusterId, controller: cluster.controller, brokers }));
      else io.stdout.write(clusterText(cluster.clusterId, cluster.controller, brokers));
      return 0;
    } catch (e) {
      if (e instanceof KafkaResponseError) throw new CommandError(e.message);
      throw e;
    } finally {
      await admin.close();
    }
  });
}

/** A broker's advertised endpoints (its listeners when none are advertised). */
async function endpointsOf(admin: Admin, id: number): Promise<string[] | null> {
  try {
    const [d] = await admin.describeConfigs([
      { type: 'broker', name: String(id), keys: ['advertised.listeners', 'listeners'] },
    ]);
    const value = (key: string) => d?.entries.find((e) => e.name === key)?.value ?? null;
    const list = value('advertised.listeners') || value('listeners');
    return list === null
      ? null
      : list
          .split(',')
          .map((s) => s.trim())
          .filter((s) => s !== '');
  } catch {
    return null;
  }
}

export function clusterText(
  clusterId: string | null,
  controller: number,
  brokers: readonly BrokerRow[],
): string {
  const byId = brokers.find((b) => b.id === controller);
  const rows = brokers.map((b) => [
    String(b.id),
    `${b.host}:${b.port}`,
    b.rack ?? '-',
    b.endpoints === null ? '-' : b.endpoints.join(','),
  ]);
  const header = ['BROKER', 'HOST:PORT', 'RACK', 'ENDPOINTS'];
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]!.length)));
  const line = (r: readonly string[]) =>
    `${r.map((c, i) => (i === r.length - 1 ? c : c.padEnd(widths[i]!))).join('  ')}\n`;
  return [
    `Cluster ID: ${clusterId ?? '-'}\n`,
    `Controller: ${controller < 0 ? 'none' : byId ? `${controller} (${byId.host}:${byId.port})` : String(controller)}\n`,
    '\n',
    line(header),
    ...rows.map(line),
  ].join('');
}
