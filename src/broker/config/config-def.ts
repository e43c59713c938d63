// Config definitions shared by broker and topic configs: Kafka's names, types and defaults,
// kept as strings because that is how Kafka stores and describes them (DescribeConfigs
// returns strings, `server.properties` holds strings). Validation mirrors Kafka's
// ConfigDef validators so that clients get the same INVALID_CONFIG answers.

export type ConfigType =
  | 'boolean'
  | 'string'
  | 'int'
  | 'short'
  | 'long'
  | 'double'
  | 'list'
  | 'class'
  | 'password';

/** DescribeConfigs `ConfigType` codes (DescribeConfigsResponse.json, v3+). */
export const CONFIG_TYPE_CODE: Readonly<Record<ConfigType, number>> = {
  boolean: 1,
  string: 2,
  int: 3,
  short: 4,
  long: 5,
  double: 6,
  list: 7,
  class: 8,
  password: 9,
};

/** DescribeConfigs `ConfigSource` codes. */
export const ConfigSource = {
  UNKNOWN: 0,
  TOPIC_CONFIG: 1,
  DYNAMIC_BROKER_CONFIG: 2,
  DYNAMIC_DEFAULT_BROKER_CONFIG: 3,
  STATIC_BROKER_CONFIG: 4,
  DEFAULT_CONFIG: 5,
  DYNAMIC_BROKER_LOGGER_CONFIG: 6,
} as const;

/** Returns an error message, or null when the value is acceptable. */
export type Validator = (value: string) => string | null;

export interface ConfigDef {
  readonly name: string;
  readonly type: ConfigType;
  /** Kafka's default in string form; null = no default (unset). */
  readonly default: string | null;
  readonly validate?: Validator;
  readonly doc: string;
}

export const LONG_MAX = '9223372036854775807';
const INT_MIN = -2147483648;
const INT_MAX = 2147483647;

/** Checks the value against the type, then against the definition's validator. */
export function validateConfigValue(def: ConfigDef, value: string | null): string | null {
  if (value === null) return def.default === null ? null : `${def.name} must not be null`;
  const typeError = checkType(def.type, value);
  if (typeError) return `Invalid value ${value} for configuration ${def.name}: ${typeError}`;
  const err = def.validate?.(value.trim()) ?? null;
  return err ? `Invalid value ${value} for configuration ${def.name}: ${err}` : null;
}

function checkType(type: ConfigType, raw: string): string | null {
  const v = raw.trim();
  switch (type) {
    case 'boolean':
      return /^(true|false)$/i.test(v) ? null : 'Expected value to be either true or false';
    case 'int':
    case 'short': {
      if (!/^[+-]?\d+$/.test(v)) return `Not a number of type ${type.toUpperCase()}`;
      const n = Number(v);
      const [lo, hi] = type === 'short' ? [-32768, 32767] : [INT_MIN, INT_MAX];
      return n < lo || n > hi ? `Not a number of type ${type.toUpperCase()}` : null;
    }
    case 'long': {
      if (!/^[+-]?\d+$/.test(v)) return 'Not a number of type LONG';
      const n = BigInt(v);
      return n < -(2n ** 63n) || n > 2n ** 63n - 1n ? 'Not a number of type LONG' : null;
    }
    case 'double':
      return v !== '' && Number.isFinite(Number(v)) ? null : 'Not a number of type DOUBLE';
    default:
      return null;
  }
}

/** Parses a list value the way Kafka does: comma-separated, trimmed, empty string = []. */
export function parseList(value: string): string[] {
  const t = value.trim();
  return t === '' ? [] : t.split(',').map((s) => s.trim());
}

export const atLeast =
  (min: number): Validator =>
  (v) =>
    Number(v) >= min ? null : `Value must be at least ${min}`;

export const between =
  (min: number, max: number): Validator =>
  (v) =>
    Number(v) >= min && Number(v) <= max ? null : `Value must be no less than ${min} and no more than ${max}`;

export const oneOf =
  (allowed: readonly string[], caseInsensitive = false): Validator =>
  (v) => {
    const ok = caseInsensitive
      ? allowed.some((a) => a.toLowerCase() === v.toLowerCase())
      : allowed.includes(v);
    return ok ? null : `String must be one of: ${allowed.join(', ')}`;
  };

export const listOf =
  (allowed: readonly string[], nonEmpty = false): Validator =>
  (v) => {
    const items = parseList(v);
    if (nonEmpty && items.length === 0) return 'Empty list not allowed';
    const bad = items.find((i) => !allowed.includes(i));
    return bad === undefined ? null : `Invalid value ${bad}; valid values are: ${allowed.join(', ')}`;
  };

/** Parses an integer-valued config string into a number (Long.MAX becomes ~9.22e18). */
export function toNumber(value: string): number {
  return Number(value.trim());
}

export function toBoolean(value: string): boolean {
  return value.trim().toLowerCase() === 'true';
}
