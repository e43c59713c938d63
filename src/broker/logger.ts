// Structured logging hook. Library code never prints; the CLI passes a logger that writes
// lines to stderr (`src/cli/console-logger.ts`: text or JSON, one line per event), tests pass
// nothing (silent) or a collector. Fields are structured values (strings, numbers, bigints,
// booleans, arrays, plain objects, Errors); a string field `logger` names the component (as
// Kafka's log4j logger names: `kafka.request.logger`).

export type LogLevel = 'debug' | 'info' | 'warn' | 'error';

export const LOG_LEVELS: readonly LogLevel[] = ['debug', 'info', 'warn', 'error'];

export interface Logger {
  log(level: LogLevel, msg: string, fields?: Readonly<Record<string, unknown>>): void;
  /**
   * Whether a `level` event would be written: callers check it before building an expensive
   * event (the per-request debug log). Absent = every level is written.
   */
  enabled?(level: LogLevel): boolean;
}

export const silentLogger: Logger = { log() {}, enabled: () => false };

/** `logger.enabled(level)`, true for a logger that does not say. */
export function logEnabled(logger: Logger, level: LogLevel): boolean {
  return logger.enabled === undefined || logger.enabled(level);
}
