// DescribeLogDirs: each broker's log directories with the size of every replica it hosts and
// its offsetLag (Kafka: max(0, that replica's high watermark − its log end offset); for a
// future replica being moved between dirs, how far the copy is behind the current one). Sent to
// every broker (or the given ones): each answers for its own disks only.
import { errorName } from '../../protocol/errors.js';
import { describeLogDirsApi } from '../../protocol/messages/generated/describe-log-dirs.js';
import { KafkaResponseError } from '../errors.js';
import type { AdminContext } from './context.js';

export interface ReplicaLogDirInfo {
  topic: string;
  partition: number;
  sizeBytes: bigint;
  offsetLag: bigint;
  /** A replica being copied to this dir (AlterReplicaLogDirs), not the current one. */
  isFuture: boolean;
}

export interface LogDirDescription {
  broker: number;
  logDir: string;
  /** Error name, or null when the dir is online. */
  error: string | null;
  /** -1n when the broker does not say (DescribeLogDirs before v4). */
  totalBytes: bigint;
  usableBytes: bigint;
  replicas: ReplicaLogDirInfo[];
}

export async function describeLogDirs(
  ctx: AdminContext,
  brokers?: readonly number[],
): Promise<LogDirDescription[]> {
  if (ctx.metadata.lastRefresh === 0) await ctx.metadata.refresh();
  const ids = brokers ?? ctx.pool.brokers().map((b) => b.nodeId);
  const perBroker = await Promise.all(
    ids.map((id) =>
      ctx.retry(async () => {
        const res = await ctx.link(id).request(describeLogDirsApi, { topics: null });
        if (res.errorCode !== 0)
          throw new KafkaResponseError(res.errorCode, `DescribeLogDirs (broker ${id})`);
        return res.results.map(
          (r): LogDirDescription => ({
            broker: id,
            logDir: r.logDir,
            error: r.errorCode === 0 ? null : errorName(r.errorCode),
            totalBytes: r.totalBytes,
            usableBytes: r.usableBytes,
            replicas: r.topics.flatMap((t) =>
              t.partitions.map((p) => ({
                topic: t.name,
                partition: p.partitionIndex,
                sizeBytes: p.partitionSize,
                offsetLag: p.offsetLag,
                isFuture: p.isFutureKey,
              })),
            ),
          }),
        );
      }),
    ),
  );
  return perBroker.flat();
}
