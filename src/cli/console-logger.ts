// The CLI's logger: one line per event on stderr, `time LEVEL message key=value ...`.

import type { Logger, LogLevel } from '../broker/logger.js';

const ORDER: Record<LogLevel, number> = { debug: 0, info: 1, warn: 2, error: 3 };

export function consoleLogger(minLevel: LogLevel = 'info'): Logger {
  return {
    log(level, msg, fields) {
      if (ORDER[level] < ORDER[minLevel]) return;
      const extra = fields
        ? Object.entries(fields)
            .map(
              ([k, v]) =>
                ` ${k}=${typeof v === 'string' ? v : JSON.stringify(v, (_k, x) => (typeof x === 'bigint' ? String(x) : x))}`,
            )
            .join('')
        : '';
      process.stderr.write(`${new Date().toISOString()} ${level.toUpperCase()} ${msg}${extra}\n`);
    },
  };
}
