// Emits one specialised write function per distinct layout of each struct: straight-line writes
// in wire order, then the tagged-field section (tags ascending, a field only when it differs
// from its default, each value encoded into a child Writer so its size can prefix it).

import { fieldCompact, isNullable, isPresent, isTagged, type Layouts, nullableAnywhere } from './layout.js';
import type { FieldSpec, PrimitiveName, StructSpec, TypeRef } from './schema.js';
import { differsFromDefault } from './types.js';

const FIXED_WRITE: Partial<Record<PrimitiveName, string>> = {
  int8: 'int8',
  int16: 'int16',
  int32: 'int32',
  int64: 'int64',
  uint16: 'uint16',
  uint32: 'uint32',
  float64: 'float64',
  bool: 'bool',
  uuid: 'uuid',
};

export function writeFnName(s: StructSpec, suffix: string): string {
  return `write${s.tsName}${suffix}`;
}

interface Ctx {
  L: Layouts;
  v: number;
  /** Writer variable name (`w`, or `t` inside a tagged value). */
  w: string;
  /** `Message.Field`, for error messages. */
  where: string;
}

/** Statement writing one non-array value `x`; `maybeNull`: its TypeScript type includes null. */
function writeValue(
  c: Ctx,
  t: TypeRef,
  x: string,
  nullable: boolean,
  maybeNull: boolean,
  compact: boolean,
): string {
  const { w } = c;
  const nn = maybeNull && !nullable ? `notNull(${x}, '${c.where}')` : x;
  if (t.kind === 'struct') {
    const fn = writeFnName(t.struct, c.L.suffix(t.struct, c.v));
    if (nullable) return `if (${x} === null) ${w}.int8(-1); else { ${w}.int8(1); ${fn}(${w}, ${x}); }`;
    return `${fn}(${w}, ${nn});`;
  }
  if (t.kind === 'array') throw new Error('nested arrays are not supported');
  const fixed = FIXED_WRITE[t.name];
  if (fixed !== undefined) return `${w}.${fixed}(${x});`;
  const base = t.name === 'string' ? 'String' : 'Bytes';
  if (compact) return nullable ? `${w}.compactNullable${base}(${x});` : `${w}.compact${base}(${nn});`;
  return nullable ? `${w}.nullable${base}(${x});` : `${w}.${base.toLowerCase()}(${nn});`;
}

function writeField(c: Ctx, f: FieldSpec, x: string, indent: string): string[] {
  const compact = fieldCompact(c.L.msg, f, c.v);
  const nullable = isNullable(f, c.v);
  const maybeNull = nullableAnywhere(f);
  const t = f.type;
  if (t.kind !== 'array') return [indent + writeValue(c, t, x, nullable, maybeNull, compact)];
  const lengthFn = compact ? 'compactArrayLength' : 'arrayLength';
  const elem = writeValue(c, t.elem, 'a[i]!', false, false, compact);
  const out = [`${indent}{`];
  if (maybeNull && nullable) {
    out.push(`${indent}  const a = ${x};`);
    out.push(`${indent}  if (a === null) ${c.w}.${lengthFn}(-1);`);
    out.push(`${indent}  else {`);
    out.push(`${indent}    ${c.w}.${lengthFn}(a.length);`);
    out.push(`${indent}    for (let i = 0; i < a.length; i++) ${elem}`);
    out.push(`${indent}  }`);
  } else {
    out.push(`${indent}  const a = ${maybeNull ? `notNull(${x}, '${c.where}')` : x};`);
    out.push(`${indent}  ${c.w}.${lengthFn}(a.length);`);
    out.push(`${indent}  for (let i = 0; i < a.length; i++) ${elem}`);
  }
  out.push(`${indent}}`);
  return out;
}

export function emitWriteStruct(L: Layouts, s: StructSpec, v: number): string {
  const out: string[] = [];
  out.push(`function ${writeFnName(s, `V${v}`)}(w: Writer, m: ${s.tsName}): void {`);
  const tagged: FieldSpec[] = [];
  for (const f of s.fields) {
    if (!isPresent(f, v)) continue;
    if (isTagged(f, v)) {
      tagged.push(f);
      continue;
    }
    out.push(...writeField({ L, v, w: 'w', where: `${s.tsName}.${f.prop}` }, f, `m.${f.prop}`, '  '));
  }
  if (L.isFlexibleVersion(v)) {
    if (tagged.length === 0) {
      out.push('  w.int8(0); // no tagged fields');
    } else {
      tagged.sort((a, b) => a.tag! - b.tag!);
      out.push('  let tagCount = 0;');
      for (const f of tagged) out.push(`  if (${differsFromDefault(f, `m.${f.prop}`)}) tagCount++;`);
      out.push('  w.uvarint(tagCount);');
      for (const f of tagged) {
        out.push(`  if (${differsFromDefault(f, `m.${f.prop}`)}) {`);
        out.push('    const t = new Writer(64);');
        out.push(...writeField({ L, v, w: 't', where: `${s.tsName}.${f.prop}` }, f, `m.${f.prop}`, '    '));
        out.push(`    w.taggedField(${f.tag}, t);`);
        out.push('  }');
      }
    }
  }
  out.push('}');
  return out.join('\n');
}
