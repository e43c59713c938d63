export { DEFAULT_GROUP_CONFIG, type GroupConfig, groupConfigFromProps } from './group-config.js';
export { GroupCoordinator, type GroupCoordinatorOptions, type TopicPartitions } from './group-coordinator.js';
export type { GroupRecord } from './group-records.js';
export { groupRecordSerde } from './group-serde.js';
export * from './group-types.js';
