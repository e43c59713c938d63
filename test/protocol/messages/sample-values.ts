// Sample values built from a schema for a given version, and the value a reader must return for
// them. Written independently of the generator's emitters (own defaults, own rules).

import type {
  FieldSpec,
  MessageSpec,
  StructSpec,
  TypeRef,
  VersionRange,
} from '../../../tools/gen-protocol/schema.js';

export type Obj = Record<string, unknown>;
export type Variant = 'minimal' | 'rich' | 'random';

/** Small deterministic PRNG (mulberry32) so every failure is reproducible. */
export class Rng {
  private s: number;
  constructor(seed: number) {
    this.s = seed >>> 0;
  }
  next(): number {
    this.s = (this.s + 0x6d2b79f5) >>> 0;
    let t = this.s;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return (t ^ (t >>> 14)) >>> 0;
  }
  int(n: number): number {
    return this.next() % n;
  }
  bool(): boolean {
    return (this.next() & 1) === 1;
  }
  bytes(n: number): Buffer {
    const b = Buffer.allocUnsafe(n);
    for (let i = 0; i < n; i++) b[i] = this.next() & 0xff;
    return b;
  }
}

const inR = (r: VersionRange, v: number): boolean => v >= r.lo && v <= r.hi;

export const ZERO_UUID_TEXT = 'AAAAAAAAAAAAAAAAAAAAAA';
const UNICODE = ['héllo', '✓ ok', '𝄞 clef', 'Ωmega-ñ', '日本語のトピック'];

function isNullableSomewhere(f: FieldSpec): boolean {
  return f.nullableVersions.lo <= f.nullableVersions.hi || f.default === 'null';
}

/** The value a field takes when the version lacks it (or a tagged field is absent). */
export function defaultOf(f: FieldSpec): unknown {
  const d = f.default;
  if (d === 'null' && isNullableSomewhere(f)) return null;
  const t = f.type;
  if (t.kind === 'array') return [];
  if (t.kind === 'struct') return defaultStruct(t.struct);
  switch (t.name) {
    case 'int64':
      return d === undefined ? 0n : BigInt(d);
    case 'bool':
      return d === 'true';
    case 'string':
      return d ?? '';
    case 'uuid':
      return ZERO_UUID_TEXT;
    case 'bytes':
      return Buffer.alloc(0);
    case 'records':
      return isNullableSomewhere(f) ? null : Buffer.alloc(0);
    default:
      return d === undefined ? 0 : Number(d);
  }
}

export function defaultStruct(s: StructSpec): Obj {
  const o: Obj = {};
  for (const f of s.fields) o[f.prop] = defaultOf(f);
  return o;
}

function primitive(name: string, variant: Variant, rng: Rng): unknown {
  const rich = variant === 'rich' || (variant === 'random' && rng.bool());
  switch (name) {
    case 'int8':
      return variant === 'minimal' ? 0 : rich ? (rng.bool() ? -128 : 127) : rng.int(256) - 128;
    case 'int16':
      return variant === 'minimal' ? 0 : rich ? (rng.bool() ? -32768 : 32767) : rng.int(65536) - 32768;
    case 'uint16':
      return variant === 'minimal' ? 0 : rich ? 65535 : rng.int(65536);
    case 'int32':
      return variant === 'minimal' ? 0 : rich ? (rng.bool() ? -2147483648 : 2147483647) : rng.next() | 0;
    case 'uint32':
      return variant === 'minimal' ? 0 : rich ? 4294967295 : rng.next();
    case 'int64':
      if (variant === 'minimal') return 0n;
      if (rich) return rng.bool() ? -(2n ** 63n) : 2n ** 63n - 1n;
      return BigInt.asIntN(64, (BigInt(rng.next()) << 32n) | BigInt(rng.next()));
    case 'float64':
      return variant === 'minimal' ? 0 : rich ? -1.5e300 : rng.next() / 7;
    case 'bool':
      return variant === 'minimal' ? false : rich ? true : rng.bool();
    case 'uuid':
      return variant === 'minimal' ? ZERO_UUID_TEXT : rng.bytes(16).toString('base64url');
    case 'string': {
      if (variant === 'minimal') return '';
      // Long strings need a multi-byte compact length prefix.
      if (rng.int(4) === 0) return `${'long-'.repeat(40)}é`;
      return UNICODE[rng.int(UNICODE.length)]!;
    }
    case 'bytes':
    case 'records': {
      if (variant === 'minimal') return Buffer.alloc(0);
      // Sometimes large enough to take the writer's zero-copy path.
      return rng.bytes(rng.int(5) === 0 ? 1500 + rng.int(100) : rng.int(40));
    }
  }
  throw new Error(`unknown primitive ${name}`);
}

function sampleOf(m: MessageSpec, t: TypeRef, v: number, variant: Variant, rng: Rng): unknown {
  if (t.kind === 'primitive') return primitive(t.name, variant, rng);
  if (t.kind === 'struct') return buildStruct(m, t.struct, v, variant, rng);
  if (variant === 'minimal') return [];
  const n = variant === 'rich' ? 2 : rng.int(4);
  const out: unknown[] = [];
  for (let i = 0; i < n; i++) out.push(sampleOf(m, t.elem, v, variant, rng));
  return out;
}

/**
 * A value for struct `s` to be written at version `v`. Fields the version lacks get arbitrary
 * non-default values too (a writer must drop them); nullable fields are null in `minimal`.
 */
export function buildStruct(m: MessageSpec, s: StructSpec, v: number, variant: Variant, rng: Rng): Obj {
  const o: Obj = {};
  for (const f of s.fields) {
    const present = inR(f.versions, v);
    const tagged = present && f.tag !== null && inR(f.taggedVersions, v);
    const nullable = present && inR(f.nullableVersions, v);
    let value: unknown;
    if (variant === 'minimal') {
      value = tagged ? defaultOf(f) : nullable ? null : sampleOf(m, f.type, v, 'minimal', rng);
    } else if (variant === 'random' && nullable && rng.int(3) === 0) {
      value = null;
    } else if (variant === 'random' && rng.int(4) === 0) {
      value = present ? defaultOf(f) : sampleOf(m, f.type, v, 'rich', rng);
    } else {
      value = sampleOf(m, f.type, v, variant, rng);
    }
    // A null default is only writable where the field is nullable.
    if (value === null && !nullable) value = sampleOf(m, f.type, v, 'minimal', rng);
    o[f.prop] = value;
  }
  return o;
}

/** What reading back `value` (written at version `v`) must produce. */
export function expected(s: StructSpec, v: number, value: Obj): Obj {
  const o: Obj = {};
  for (const f of s.fields) {
    const x = value[f.prop];
    if (!inR(f.versions, v)) {
      o[f.prop] = defaultOf(f);
      continue;
    }
    const t = f.type;
    if (x === null) o[f.prop] = null;
    else if (t.kind === 'struct') o[f.prop] = expected(t.struct, v, x as Obj);
    else if (t.kind === 'array' && t.elem.kind === 'struct') {
      const st = t.elem.struct;
      o[f.prop] = (x as Obj[]).map((e) => expected(st, v, e));
    } else o[f.prop] = x;
  }
  return o;
}

/** Asserts that `value` (and every nested struct) has exactly the schema's fields in schema order. */
export function fieldOrderProblems(s: StructSpec, value: Obj, path = s.name): string[] {
  const want = s.fields.map((f) => f.prop).join(',');
  const got = Object.keys(value).join(',');
  const problems = want === got ? [] : [`${path}: keys ${got} != ${want}`];
  for (const f of s.fields) {
    const x = value[f.prop];
    if (x === null) continue;
    const t = f.type;
    if (t.kind === 'struct') problems.push(...fieldOrderProblems(t.struct, x as Obj, `${path}.${f.prop}`));
    if (t.kind === 'array' && t.elem.kind === 'struct') {
      const st = t.elem.struct;
      for (const e of x as Obj[]) problems.push(...fieldOrderProblems(st, e, `${path}.${f.prop}[]`));
    }
  }
  return problems;
}
