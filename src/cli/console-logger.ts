// The CLI's logger: one line per event on stderr, text (`time LEVEL message key=value ...`) or
// JSON (`--log-format json`, for log shippers); see log-format.ts.

import type { Logger, LogLevel } from '../broker/logger.js';
import { formatJsonLine, formatTextLine, type LogFormat } from './log-format.js';

const ORDER: Record<LogLevel, number> = { debug: 0, info: 1, warn: 2, error: 3 };

export function consoleLogger(
  minLevel: LogLevel = 'info',
  format: LogFormat = 'text',
  write: (line: string) => void = (line) => process.stderr.write(line),
): Logger {
  const min = ORDER[minLevel];
  const line = format === 'json' ? formatJsonLine : formatTextLine;
  return {
    log(level, msg, fields) {
      if (ORDER[level] < min) return;
      write(line(new Date(), level, msg, fields));
    },
    enabled: (level) => ORDER[level] >= min,
  };
}
