// AlterReplicaLogDirs (key 34), v0-2 (Kafka 3.9's range; v2 is flexible): moves partitions to
// another log dir of this broker. Answered as soon as the move started (Kafka: once the future
// replica exists); the copy runs in the background and DescribeLogDirs shows it as a future
// replica with its offset lag until the swap. Per partition, in Kafka's order: topic name too
// long for a `-future` dir name → INVALID_TOPIC_EXCEPTION; a path that is not one of `log.dirs`
// (exactly, absolute) → LOG_DIR_NOT_FOUND; an offline target, an offline partition, or any dir
// offline → KAFKA_STORAGE_ERROR; a partition this broker does not host → REPLICA_NOT_AVAILABLE,
// and the dir is remembered for when the partition is created here.

import { ErrorCode, KafkaError } from '../../protocol/errors.js';
import {
  type AlterReplicaLogDirsRequest,
  type AlterReplicaLogDirsResponse,
  alterReplicaLogDirsApi,
} from '../../protocol/messages/generated/alter-replica-log-dirs.js';
import { defineApi } from './api.js';
import { AclOp, clusterAllowed } from './authorize.js';
import type { BrokerServices } from './services.js';

/** `<topic>-<partition>.<32 hex>-future` must fit a file name (KAFKA-4893). */
const MAX_FILE_NAME = 255;

function alterOne(broker: BrokerServices, path: string, topic: string, partition: number): number {
  const { logs } = broker;
  try {
    if (`${topic}-${partition}.${'0'.repeat(32)}-future`.length > MAX_FILE_NAME)
      throw new KafkaError(ErrorCode.INVALID_TOPIC_EXCEPTION, 'The topic name is too long.');
    if (logs.logDirOf(topic, partition) === undefined && logs.isDirOnline(path))
      logs.setPreferredDir(topic, partition, path);
    logs.moveLog(topic, partition, path).catch((e: unknown) =>
      broker.logger.log('warn', 'log dir move failed', {
        topic,
        partition,
        dir: path,
        error: e instanceof Error ? e.message : String(e),
      }),
    );
    return ErrorCode.NONE;
  } catch (e) {
    if (!(e instanceof KafkaError)) throw e;
    broker.logger.log('warn', 'Unable to alter log dirs', { topic, partition, dir: path, error: e.message });
    return e.code;
  }
}

export default defineApi<AlterReplicaLogDirsRequest, AlterReplicaLogDirsResponse>({
  api: alterReplicaLogDirsApi,
  minVersion: 0,
  maxVersion: 2,
  handle(ctx, req) {
    const byTopic = new Map<string, AlterReplicaLogDirsResponse['results'][number]>();
    const refused = !clusterAllowed(ctx, AclOp.ALTER);
    for (const dir of req.dirs) {
      for (const t of dir.topics) {
        let result = byTopic.get(t.name);
        if (result === undefined) {
          result = { topicName: t.name, partitions: [] };
          byTopic.set(t.name, result);
        }
        for (const p of t.partitions)
          result.partitions.push({
            partitionIndex: p,
            errorCode: refused
              ? ErrorCode.CLUSTER_AUTHORIZATION_FAILED
              : alterOne(ctx.broker, dir.path, t.name, p),
          });
      }
    }
    return { throttleTimeMs: 0, results: [...byTopic.values()] };
  },
});
