// Mapping of schema types to TypeScript types, default values, "differs from default" tests and
// minimum wire sizes (used to reject impossible array counts before allocating).

import { fieldCompact, isFlexible, isPresent, isTagged, nullableAnywhere } from './layout.js';
import type { FieldSpec, MessageSpec, StructSpec, TypeRef } from './schema.js';

export function tsType(t: TypeRef): string {
  switch (t.kind) {
    case 'array': {
      const inner = tsType(t.elem);
      return `${inner}[]`;
    }
    case 'struct':
      return t.struct.tsName;
    case 'primitive':
      switch (t.name) {
        case 'int64':
          return 'bigint';
        case 'bool':
          return 'boolean';
        case 'string':
        case 'uuid':
          return 'string';
        case 'bytes':
        case 'records':
          return 'Buffer';
        default:
          return 'number';
      }
  }
}

export function fieldTsType(f: FieldSpec): string {
  const base = tsType(f.type);
  return nullableAnywhere(f) ? `${base} | null` : base;
}

export function defaultFnName(s: StructSpec): string {
  return `default${s.tsName}`;
}

export function isDefaultFnName(s: StructSpec): string {
  return `isDefault${s.tsName}`;
}

/** Expression for the field's default value (a fresh object/array where mutable). */
export function defaultExpr(f: FieldSpec): string {
  const d = f.default;
  if (d === 'null' && nullableAnywhere(f)) return 'null';
  const t = f.type;
  if (t.kind === 'array') return '[]';
  if (t.kind === 'struct') return `${defaultFnName(t.struct)}()`;
  switch (t.name) {
    case 'int64':
      return d === undefined || d === '' ? '0n' : `${BigInt(d)}n`;
    case 'bool':
      return d === 'true' ? 'true' : 'false';
    case 'string':
      return d === undefined ? "''" : JSON.stringify(d);
    case 'uuid':
      return 'ZERO_UUID';
    case 'bytes':
      return 'EMPTY_BYTES';
    case 'records':
      return nullableAnywhere(f) ? 'null' : 'EMPTY_BYTES';
    default: {
      if (d === undefined || d === '') return '0';
      const n = Number(d);
      if (!Number.isFinite(n)) throw new Error(`bad default ${d} for ${f.name}`);
      return String(n);
    }
  }
}

/** Boolean expression: `x` is not the field's default (a tagged field is then written). */
export function differsFromDefault(f: FieldSpec, x: string): string {
  const def = defaultExpr(f);
  if (def === 'null') return `${x} !== null`;
  const t = f.type;
  const nullable = nullableAnywhere(f);
  const orNull = (test: string): string => (nullable ? `(${x} === null || ${test})` : test);
  if (t.kind === 'array') return orNull(`${x}.length !== 0`);
  if (t.kind === 'struct') return orNull(`!${isDefaultFnName(t.struct)}(${x})`);
  if (t.name === 'bytes' || t.name === 'records') return orNull(`${x}.length !== 0`);
  return `${x} !== ${def}`;
}

/** Structs that need `default*`/`isDefault*` helpers: every struct used as a non-array field. */
export function structsNeedingDefaults(m: MessageSpec): StructSpec[] {
  const out = new Set<StructSpec>();
  for (const s of m.structs) {
    for (const f of s.fields) if (f.type.kind === 'struct') out.add(f.type.struct);
  }
  return [...out];
}

const FIXED_SIZE: Record<string, number> = {
  int8: 1,
  bool: 1,
  int16: 2,
  uint16: 2,
  int32: 4,
  uint32: 4,
  int64: 8,
  float64: 8,
  uuid: 16,
};

/** Fewest bytes a value of type `t` can occupy in version `v` (`compact`: compact encodings). */
export function minWireSize(m: MessageSpec, t: TypeRef, v: number, compact: boolean): number {
  if (t.kind === 'array') return compact ? 1 : 4;
  if (t.kind === 'struct') return minStructSize(m, t.struct, v);
  const fixed = FIXED_SIZE[t.name];
  if (fixed !== undefined) return fixed;
  if (compact) return 1;
  return t.name === 'string' ? 2 : 4;
}

export function minStructSize(m: MessageSpec, s: StructSpec, v: number): number {
  let n = isFlexible(m, v) ? 1 : 0;
  for (const f of s.fields) {
    if (!isPresent(f, v) || isTagged(f, v)) continue;
    n +=
      f.type.kind === 'struct' && f.nullableVersions.lo <= v && v <= f.nullableVersions.hi
        ? 1
        : minWireSize(m, f.type, v, fieldCompact(m, f, v));
  }
  return n;
}
