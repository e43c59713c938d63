// Strict reading of the JSON Kafka keeps in znodes. Whatever is in ZooKeeper may have been written
// by another Kafka version, a tool, or by hand: every field we use is type-checked (Kafka's
// DecodeJson is as strict: an int is an int, a string a string) and every failure is a
// ZkDataError naming the znode and the field. Fields we do not know are ignored, as Kafka does.
// Keys are only ever read as own properties, so `{"constructor": …}`/`__proto__` games find nothing.

export class ZkDataError extends Error {
  override readonly name = 'ZkDataError';
  constructor(
    /** What was being decoded, e.g. `/brokers/ids/1`. */
    readonly what: string,
    detail: string,
    raw?: string,
  ) {
    super(`invalid ${what}: ${detail}${raw === undefined ? '' : `; data: ${preview(raw)}`}`);
  }
}

function preview(raw: string): string {
  const s = JSON.stringify(raw.length > 200 ? `${raw.slice(0, 200)}…` : raw);
  return s;
}

const utf8 = new TextDecoder('utf-8', { fatal: true });

/** The znode's bytes as text; null data is an error (the znode was created empty). */
export function znodeText(data: Buffer | null, what: string): string {
  if (data === null) throw new ZkDataError(what, 'the znode has no data');
  try {
    return utf8.decode(data);
  } catch {
    throw new ZkDataError(what, 'not valid UTF-8');
  }
}

const INT32_MIN = -0x80000000;
const INT32_MAX = 0x7fffffff;

function describe(v: unknown): string {
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'an array';
  if (typeof v === 'object') return 'an object';
  if (typeof v === 'string') return `the string ${preview(v)}`;
  return `${typeof v} ${String(v)}`;
}

/** Typed, own-property access to one JSON object, with errors naming the field's path. */
export class JsonObjectReader {
  constructor(
    private readonly obj: Readonly<Record<string, unknown>>,
    readonly what: string,
    private readonly raw: string,
    private readonly prefix = '',
  ) {}

  /** Parses `data` (UTF-8 JSON) that must be a JSON object. */
  static parse(data: Buffer | null, what: string): JsonObjectReader {
    const text = znodeText(data, what);
    let v: unknown;
    try {
      v = JSON.parse(text);
    } catch (e) {
      throw new ZkDataError(what, `not JSON (${(e as Error).message})`, text);
    }
    if (typeof v !== 'object' || v === null || Array.isArray(v))
      throw new ZkDataError(what, `expected a JSON object, got ${describe(v)}`, text);
    return new JsonObjectReader(v as Record<string, unknown>, what, text);
  }

  fail(field: string, detail: string): never {
    throw new ZkDataError(this.what, `"${this.prefix}${field}" ${detail}`, this.raw);
  }

  has(key: string): boolean {
    return Object.hasOwn(this.obj, key);
  }

  /** The value, or undefined when absent (never inherited). */
  get(key: string): unknown {
    return Object.hasOwn(this.obj, key) ? this.obj[key] : undefined;
  }

  keys(): string[] {
    return Object.keys(this.obj);
  }

  private required(key: string): unknown {
    if (!this.has(key)) this.fail(key, 'is missing');
    return this.obj[key];
  }

  int32(key: string): number {
    return this.asInt32(key, this.required(key));
  }

  optionalInt32(key: string): number | undefined {
    const v = this.get(key);
    return v === undefined ? undefined : this.asInt32(key, v);
  }

  asInt32(field: string, v: unknown): number {
    if (typeof v !== 'number' || !Number.isInteger(v) || v < INT32_MIN || v > INT32_MAX)
      this.fail(field, `must be a 32-bit integer, got ${describe(v)}`);
    return v;
  }

  string(key: string): string {
    const v = this.required(key);
    if (typeof v !== 'string') this.fail(key, `must be a string, got ${describe(v)}`);
    return v;
  }

  optionalString(key: string): string | undefined {
    const v = this.get(key);
    if (v === undefined) return undefined;
    if (typeof v !== 'string') this.fail(key, `must be a string, got ${describe(v)}`);
    return v;
  }

  /** Absent or null → null. */
  nullableString(key: string): string | null {
    const v = this.get(key);
    if (v === undefined || v === null) return null;
    if (typeof v !== 'string') this.fail(key, `must be a string or null, got ${describe(v)}`);
    return v;
  }

  int32Array(key: string): number[] {
    return this.asInt32Array(key, this.required(key));
  }

  asInt32Array(field: string, v: unknown): number[] {
    if (!Array.isArray(v)) this.fail(field, `must be an array of integers, got ${describe(v)}`);
    return v.map((x, i) => this.asInt32(`${field}[${i}]`, x));
  }

  array(key: string): unknown[] {
    const v = this.required(key);
    if (!Array.isArray(v)) this.fail(key, `must be an array, got ${describe(v)}`);
    return v;
  }

  object(key: string): JsonObjectReader {
    return this.asObject(key, this.required(key));
  }

  optionalObject(key: string): JsonObjectReader | undefined {
    const v = this.get(key);
    return v === undefined ? undefined : this.asObject(key, v);
  }

  asObject(field: string, v: unknown): JsonObjectReader {
    if (typeof v !== 'object' || v === null || Array.isArray(v))
      this.fail(field, `must be an object, got ${describe(v)}`);
    return new JsonObjectReader(v as Record<string, unknown>, this.what, this.raw, `${this.prefix}${field}.`);
  }

  /** An integer given as a decimal string (Kafka writes timestamps and producer ids that way). */
  decimalString(key: string): bigint {
    const s = this.string(key);
    if (!/^[+-]?\d{1,19}$/.test(s)) this.fail(key, `must be a decimal integer string, got ${preview(s)}`);
    const n = BigInt(s);
    if (n < -(2n ** 63n) || n >= 2n ** 63n) this.fail(key, `is out of the 64-bit range: ${s}`);
    return n;
  }
}

/** UTF-8 JSON bytes, as Kafka's Json.encodeAsBytes. */
export function jsonBytes(value: unknown): Buffer {
  return Buffer.from(JSON.stringify(value), 'utf8');
}
