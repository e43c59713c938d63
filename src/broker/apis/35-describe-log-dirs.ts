// DescribeLogDirs (key 35), v0-4, as Kafka's ReplicaManager.describeLogDirs: every configured log
// dir, in `log.dirs` order. An online dir lists its topics with the requested partitions (all
// when Topics is null; topics with none of them are left out): size on disk and offset lag (HW − LEO, never negative, for the
// current replica; for a future replica — a move by AlterReplicaLogDirs in progress — the
// current replica's LEO minus what the copy has reached). v4 adds the file system's total and
// usable bytes. An offline dir is reported with KAFKA_STORAGE_ERROR and nothing else.

import { statfs } from 'node:fs/promises';
import { ErrorCode } from '../../protocol/errors.js';
import {
  type DescribeLogDirsRequest,
  type DescribeLogDirsResponse,
  describeLogDirsApi,
} from '../../protocol/messages/generated/describe-log-dirs.js';
import type { PartitionLog } from '../../storage/index.js';
import { defineApi } from './api.js';
import { AclOp, clusterAllowed } from './authorize.js';

type DirResult = DescribeLogDirsResponse['results'][number];
type PartitionResult = DirResult['topics'][number]['partitions'][number];

async function fileSystemBytes(dir: string): Promise<{ totalBytes: bigint; usableBytes: bigint }> {
  try {
    const s = await statfs(dir, { bigint: true });
    return { totalBytes: s.blocks * s.bsize, usableBytes: s.bavail * s.bsize };
  } catch {
    return { totalBytes: -1n, usableBytes: -1n };
  }
}

export default defineApi<DescribeLogDirsRequest, DescribeLogDirsResponse>({
  api: describeLogDirsApi,
  minVersion: 0,
  maxVersion: 4,
  async handle(ctx, req) {
    const { logs } = ctx.broker;
    if (!clusterAllowed(ctx, AclOp.DESCRIBE))
      return { throttleTimeMs: 0, errorCode: ErrorCode.CLUSTER_AUTHORIZATION_FAILED, results: [] };
    const wanted =
      req.topics === null ? null : new Map(req.topics.map((t) => [t.topic, new Set(t.partitions)]));
    const results: DirResult[] = [];
    for (const dir of logs.logDirs) {
      if (!logs.isDirOnline(dir)) {
        results.push({
          errorCode: ErrorCode.KAFKA_STORAGE_ERROR,
          logDir: dir,
          topics: [],
          totalBytes: -1n,
          usableBytes: -1n,
        });
        continue;
      }
      const byTopic = new Map<string, PartitionResult[]>();
      const add = (log: PartitionLog, entry: PartitionResult) => {
        if (wanted !== null && !wanted.get(log.topic)?.has(log.partition)) return;
        const list = byTopic.get(log.topic) ?? [];
        byTopic.set(log.topic, list);
        list.push(entry);
      };
      const { logs: current, futures } = logs.dirContents(dir);
      for (const log of current) {
        const lag = log.highWatermark - log.logEndOffset;
        add(log, {
          partitionIndex: log.partition,
          partitionSize: BigInt(log.size),
          offsetLag: lag > 0n ? lag : 0n,
          isFutureKey: false,
        });
      }
      for (const { log, progress } of futures) {
        add(log, {
          partitionIndex: log.partition,
          partitionSize: BigInt(progress.copiedBytes),
          offsetLag: log.logEndOffset - progress.copiedEndOffset,
          isFutureKey: true,
        });
      }
      results.push({
        errorCode: ErrorCode.NONE,
        logDir: dir,
        topics: [...byTopic].map(([name, partitions]) => ({ name, partitions })),
        ...(await fileSystemBytes(dir)),
      });
    }
    return { throttleTimeMs: 0, errorCode: ErrorCode.NONE, results };
  },
});
