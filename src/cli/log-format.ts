// The two line formats of `samsa start`'s log (`--log-format`, `log.format`): one event per line,
// whatever the fields hold (newlines in messages, stacks and values are escaped, never printed).
//   text: `2026-12-02T10:00:00.000Z INFO message key=value key2="a value with spaces"`
//   json: `{"ts":"2026-12-02T10:00:00.000Z","level":"info","logger":"samsa","msg":"message","key":"value"}`
// Errors become their message (text) or `{ "message", "name", "stack" }` (JSON); bigints their
// decimal string.

import type { LogLevel } from '../broker/logger.js';

export type LogFormat = 'text' | 'json';
export const LOG_FORMATS: readonly LogFormat[] = ['text', 'json'];

/** Default component name of the JSON `logger` field. */
const DEFAULT_LOGGER = 'samsa';

/** The fields of a JSON line that an event's own fields may not replace. */
const RESERVED = new Set(['ts', 'level', 'logger', 'msg']);

function jsonValue(_key: string, v: unknown): unknown {
  if (typeof v === 'bigint') return String(v);
  if (v instanceof Error) return { name: v.name, message: v.message, ...(v.stack ? { stack: v.stack } : {}) };
  return v;
}

export function formatJsonLine(
  time: Date,
  level: LogLevel,
  msg: string,
  fields: Readonly<Record<string, unknown>> | undefined,
): string {
  const out: Record<string, unknown> = {
    ts: time.toISOString(),
    level,
    logger: typeof fields?.logger === 'string' ? fields.logger : DEFAULT_LOGGER,
    msg,
  };
  if (fields)
    for (const [k, v] of Object.entries(fields)) {
      if (v === undefined || k === 'logger') continue;
      out[RESERVED.has(k) ? `field.${k}` : k] = v;
    }
  let line: string;
  try {
    line = JSON.stringify(out, jsonValue);
  } catch (e) {
    // A circular value: keep the event, say what was lost.
    line = JSON.stringify({ ts: out.ts, level, logger: out.logger, msg, fieldsError: String(e) });
  }
  return `${line}\n`; // JSON.stringify escapes every control character: one line
}

/** A value as `key=value` text: bare when it has no space, quote, `=` or control character. */
function textValue(v: unknown): string {
  let s: string;
  if (typeof v === 'string') s = v;
  else if (v instanceof Error) s = v.stack ?? v.message;
  else if (typeof v === 'bigint' || typeof v === 'number' || typeof v === 'boolean') s = String(v);
  else {
    try {
      s = JSON.stringify(v, jsonValue) ?? String(v);
    } catch {
      s = String(v);
    }
    // Compact JSON (control characters already escaped) stays bare unless a string in it has a space.
    return /\s/.test(s) ? JSON.stringify(s) : s;
  }
  return s === '' || /[\s"=\\\p{Cc}]/u.test(s) ? JSON.stringify(s) : s;
}

const SHORT_ESCAPES: Readonly<Record<string, string>> = { '\n': '\\n', '\r': '\\r', '\t': '\\t' };

function escapeControl(c: string): string {
  return SHORT_ESCAPES[c] ?? `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`;
}

export function formatTextLine(
  time: Date,
  level: LogLevel,
  msg: string,
  fields: Readonly<Record<string, unknown>> | undefined,
): string {
  let extra = '';
  if (fields)
    for (const [k, v] of Object.entries(fields)) if (v !== undefined) extra += ` ${k}=${textValue(v)}`;
  // The message is free text: only its line breaks and control characters are escaped.
  const m = msg.replace(/\p{Cc}/gu, escapeControl);
  return `${time.toISOString()} ${level.toUpperCase()} ${m}${extra}\n`;
}
