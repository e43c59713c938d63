// Public surface of the broker (`samsa/broker`): start one in-process and configure it.
// The package root (`samsa`) re-exports this together with the client; `samsa/client` loads
// none of it.

export { type BrokerHandle, type StartBrokerOptions, startBroker } from './broker.js';
export {
  type BrokerConfig,
  type BrokerConfigInput,
  ConfigError,
  /** The same class as `ConfigError`, named as the package root exports it. */
  ConfigError as BrokerConfigError,
  loadBrokerConfig,
} from './config/broker-config.js';
export type { Logger, LogLevel } from './logger.js';
