// The web console (issue 18): an HTTP JSON API over the client's Admin, Consumer and Producer, a
// small preact + htm UI served from the package, live updates by server-sent events. Depends on
// `src/client` only, so it works against any Kafka-compatible cluster.

export {
  CONSOLE_KEYS,
  ConsoleConfigError,
  type ConsoleOptions,
  type ConsoleSettings,
  type ConsoleUser,
  consoleSettingsFrom,
  parseSaslMechanisms,
  readUsersFile,
  SASL_LOGIN_MECHANISMS,
  type SaslLoginOptions,
} from './options.js';
export { type ConsoleHandle, type ConsoleServer, createConsole, serveConsole } from './server.js';
