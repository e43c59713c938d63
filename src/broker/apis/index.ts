// Every API this broker implements. ApiVersions advertises exactly this list. The consumer-group
// APIs (FindCoordinator 10, JoinGroup 11, …) and transactions are added here by their issues.

import produce from './00-produce.js';
import fetch from './01-fetch.js';
import listOffsets from './02-list-offsets.js';
import metadata from './03-metadata.js';
import apiVersions from './18-api-versions.js';
import createTopics from './19-create-topics.js';
import deleteTopics from './20-delete-topics.js';
import deleteRecords from './21-delete-records.js';
import initProducerId from './22-init-producer-id.js';
import offsetForLeaderEpoch from './23-offset-for-leader-epoch.js';
import describeConfigs from './32-describe-configs.js';
import alterConfigs from './33-alter-configs.js';
import describeLogDirs from './35-describe-log-dirs.js';
import createPartitions from './37-create-partitions.js';
import incrementalAlterConfigs from './44-incremental-alter-configs.js';
import describeCluster from './60-describe-cluster.js';
import type { AnyApiHandler } from './api.js';

export const ALL_HANDLERS: readonly AnyApiHandler[] = [
  produce,
  fetch,
  listOffsets,
  metadata,
  apiVersions,
  createTopics,
  deleteTopics,
  deleteRecords,
  initProducerId,
  offsetForLeaderEpoch,
  describeConfigs,
  alterConfigs,
  describeLogDirs,
  createPartitions,
  incrementalAlterConfigs,
  describeCluster,
];
