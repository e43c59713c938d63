// DescribeLogDirs (key 35), v0-4: per configured log dir, the partitions it holds (all, or the
// requested ones) with their size on disk; offset lag is 0 (no future replicas). v4 adds the
// file system's total and usable bytes.

import { statfs } from 'node:fs/promises';
import { dirname, resolve } from 'node:path';
import { ErrorCode } from '../../protocol/errors.js';
import {
  type DescribeLogDirsRequest,
  type DescribeLogDirsResponse,
  describeLogDirsApi,
} from '../../protocol/messages/generated/describe-log-dirs.js';
import { defineApi } from './api.js';

export default defineApi<DescribeLogDirsRequest, DescribeLogDirsResponse>({
  api: describeLogDirsApi,
  minVersion: 0,
  maxVersion: 4,
  async handle(ctx, req) {
    const { broker } = ctx;
    const wanted =
      req.topics === null ? null : new Map(req.topics.map((t) => [t.topic, new Set(t.partitions)]));
    const results: DescribeLogDirsResponse['results'] = [];
    for (const dir of broker.config.logDirs) {
      const abs = resolve(dir);
      const byTopic = new Map<
        string,
        DescribeLogDirsResponse['results'][number]['topics'][number]['partitions']
      >();
      for (const p of broker.replicas.all()) {
        if (resolve(dirname(p.log.dir)) !== abs) continue;
        if (wanted !== null && !wanted.get(p.topic)?.has(p.index)) continue;
        const list = byTopic.get(p.topic) ?? [];
        list.push({
          partitionIndex: p.index,
          partitionSize: BigInt(p.log.size),
          offsetLag: 0n,
          isFutureKey: false,
        });
        byTopic.set(p.topic, list);
      }
      let totalBytes = -1n;
      let usableBytes = -1n;
      try {
        const s = await statfs(abs, { bigint: true });
        totalBytes = s.blocks * s.bsize;
        usableBytes = s.bavail * s.bsize;
      } catch {
        // Unknown sizes are reported as -1, as Kafka does.
      }
      results.push({
        errorCode: ErrorCode.NONE,
        logDir: abs,
        topics: [...byTopic].map(([name, partitions]) => ({ name, partitions })),
        totalBytes,
        usableBytes,
      });
    }
    return { throttleTimeMs: 0, errorCode: ErrorCode.NONE, results };
  },
});
