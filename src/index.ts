// Public entry point of the `samsa` package.
export {
  type BrokerHandle,
  type StartBrokerOptions,
  startBroker,
} from './broker/broker.js';
export { type BrokerConfig, type BrokerConfigInput, ConfigError, loadBrokerConfig } from './broker/config/broker-config.js';
export type { Logger, LogLevel } from './broker/logger.js';
export {
  Admin,
  Producer,
  KafkaClientError,
  type ClientOptions,
  type ProducerOptions,
  type ProducerRecord,
  type RecordMetadata,
} from './client/index.js';
export { Consumer, type ConsumerOptions, type ConsumerRecord, type RebalanceListener } from './client/index.js';
