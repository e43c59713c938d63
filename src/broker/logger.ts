// Structured logging hook. Library code never prints; the CLI passes a logger that writes
// lines to stderr, tests pass nothing (silent) or a collector.

export type LogLevel = 'debug' | 'info' | 'warn' | 'error';

export interface Logger {
  log(level: LogLevel, msg: string, fields?: Readonly<Record<string, unknown>>): void;
}

export const silentLogger: Logger = { log() {} };
