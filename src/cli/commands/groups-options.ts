// The reset scenario of `samsa groups --reset-offsets`: exactly one of Kafka's eight, with its
// value parsed (numbers, date-time, duration, the --from-file CSV) before anything is sent.
import { readFileSync } from 'node:fs';
import { CommandUsageError } from './common.js';
import type { ResetTo } from './groups-reset.js';
import { parseDateTime, parseDuration, parseResetCsv } from './reset-args.js';

const SCENARIOS = [
  'to-earliest',
  'to-latest',
  'to-current',
  'to-offset',
  'shift-by',
  'to-datetime',
  'by-duration',
  'from-file',
] as const;

type ScenarioValues = { [K in (typeof SCENARIOS)[number]]?: string | boolean | undefined };

function offsetValue(text: string, flag: string, signed: boolean): bigint {
  if (!(signed ? /^[-+]?\d+$/ : /^\d+$/).test(text.trim()))
    throw new CommandUsageError(
      `${flag} must be ${signed ? 'a whole number (negative moves back)' : 'an offset (0 or more)'}, got "${text}"`,
    );
  return BigInt(text.trim());
}

export function resetTo(v: ScenarioValues, groups: readonly string[], now: () => number = Date.now): ResetTo {
  const given = SCENARIOS.filter((s) => v[s] !== undefined && v[s] !== false);
  if (given.length !== 1)
    throw new CommandUsageError(
      `--reset-offsets takes exactly one of ${SCENARIOS.map((s) => `--${s}`).join(', ')}`,
    );
  const value = String(v[given[0]!]);
  switch (given[0]!) {
    case 'to-earliest':
      return { kind: 'earliest' };
    case 'to-latest':
      return { kind: 'latest' };
    case 'to-current':
      return { kind: 'current' };
    case 'to-offset':
      return { kind: 'offset', offset: offsetValue(value, '--to-offset', false) };
    case 'shift-by':
      return { kind: 'shift', by: offsetValue(value, '--shift-by', true) };
    case 'to-datetime':
      return { kind: 'timestamp', ms: parseDateTime(value) };
    case 'by-duration':
      return { kind: 'timestamp', ms: now() - parseDuration(value) };
    case 'from-file':
      return { kind: 'file', plan: readResetPlan(value, groups) };
  }
}

export function readResetPlan(file: string, groups: readonly string[]) {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (e) {
    throw new CommandUsageError(`--from-file: cannot read ${file}: ${(e as Error).message}`);
  }
  return parseResetCsv(text, file, groups);
}
