// Public entry point of the `samsa` package: the whole client (`samsa/client`) and the broker
// (`samsa/broker`). The broker's config error is `BrokerConfigError` here, since `ConfigError`
// is the client's (invalid client options).
// Subpaths: `samsa/client` (client only: loads no broker or storage code), `samsa/broker`,
// `samsa/testkit` (`startTestBroker` for tests).

export {
  type BrokerConfig,
  BrokerConfigError,
  type BrokerConfigInput,
  type BrokerHandle,
  type Logger,
  type LogLevel,
  loadBrokerConfig,
  type StartBrokerOptions,
  startBroker,
} from './broker/index.js';
export * from './client/index.js';
