// Emits one specialised read function per distinct layout of each struct: straight-line reads
// into locals, then one object literal with every field in schema order (a single hidden class
// per struct), defaults for fields the version lacks, tagged fields decoded or skipped.

import { fieldCompact, isNullable, isPresent, isTagged, type Layouts } from './layout.js';
import type { FieldSpec, PrimitiveName, StructSpec, TypeRef } from './schema.js';
import { defaultExpr, fieldTsType, minWireSize, tsType } from './types.js';

const FIXED_READ: Partial<Record<PrimitiveName, string>> = {
  int8: 'r.int8()',
  int16: 'r.int16()',
  int32: 'r.int32()',
  int64: 'r.int64()',
  uint16: 'r.uint16()',
  uint32: 'r.uint32()',
  float64: 'r.float64()',
  bool: 'r.bool()',
  uuid: 'r.uuid()',
};

export function readFnName(s: StructSpec, suffix: string): string {
  return `read${s.tsName}${suffix}`;
}

/** Expression reading one non-array value. */
function valueExpr(L: Layouts, t: TypeRef, v: number, nullable: boolean, compact: boolean): string {
  if (t.kind === 'struct') {
    const call = `${readFnName(t.struct, L.suffix(t.struct, v))}(r)`;
    // Nullable structs carry a presence byte: -1 = null, 1 = present (KIP-893).
    return nullable ? `(r.int8() < 0 ? null : ${call})` : call;
  }
  if (t.kind === 'array') throw new Error('nested arrays are not supported');
  const fixed = FIXED_READ[t.name];
  if (fixed !== undefined) return fixed;
  const base = t.name === 'string' ? 'String' : 'Bytes';
  if (compact) return nullable ? `r.compactNullable${base}()` : `r.compact${base}()`;
  return nullable ? `r.nullable${base}()` : `r.${base.toLowerCase()}()`;
}

/** Statements assigning field `f` (version `v`) to local `target`, declared by the caller. */
function readInto(L: Layouts, f: FieldSpec, v: number, target: string, indent: string): string[] {
  const compact = fieldCompact(L.msg, f, v);
  const nullable = isNullable(f, v);
  const t = f.type;
  if (t.kind !== 'array') return [`${indent}${target} = ${valueExpr(L, t, v, nullable, compact)};`];
  const min = minWireSize(L.msg, t.elem, v, compact);
  const elem = valueExpr(L, t.elem, v, false, compact);
  const onNull = nullable
    ? `${target} = null;`
    : `throw new DecodeError('NULL_NOT_ALLOWED', '${L.msg.name}: ${f.name} is null', r.pos);`;
  // Arrays are sized up front (the count was checked against the bytes left): pushing from empty
  // would give every small array (replica lists, partitions) a 17-slot backing store.
  return [
    `${indent}{`,
    `${indent}  const n = r.${compact ? 'compactArrayLength' : 'arrayLength'}(${min});`,
    `${indent}  if (n < 0) ${onNull}`,
    `${indent}  else {`,
    `${indent}    const a: ${tsType(t.elem)}[] = new Array(n);`,
    `${indent}    for (let i = 0; i < n; i++) a[i] = ${elem};`,
    `${indent}    ${target} = a;`,
    `${indent}  }`,
    `${indent}}`,
  ];
}

export function emitReadStruct(L: Layouts, s: StructSpec, v: number): string {
  const out: string[] = [];
  const fn = readFnName(s, `V${v}`);
  out.push(`function ${fn}(r: Reader): ${s.tsName} {`);
  const props: string[] = [];
  const tagged: FieldSpec[] = [];
  for (const f of s.fields) {
    const local = `f_${f.prop}`;
    if (!isPresent(f, v)) {
      props.push(`${f.prop}: ${defaultExpr(f)}`);
      continue;
    }
    props.push(`${f.prop}: ${local}`);
    if (isTagged(f, v)) {
      tagged.push(f);
      out.push(`  let ${local}: ${fieldTsType(f)} = ${defaultExpr(f)};`);
      continue;
    }
    if (f.type.kind === 'array') {
      out.push(`  let ${local}: ${fieldTsType(f)};`);
      out.push(...readInto(L, f, v, local, '  '));
    } else {
      out.push(...readInto(L, f, v, `const ${local}`, '  '));
    }
  }
  if (L.isFlexibleVersion(v)) {
    if (tagged.length === 0) {
      out.push('  r.skipTaggedFields();');
    } else {
      tagged.sort((a, b) => a.tag! - b.tag!);
      out.push('  const tagCount = r.uvarint();');
      out.push('  for (let t = 0; t < tagCount; t++) {');
      out.push('    const tag = r.uvarint();');
      out.push('    const size = r.uvarint();');
      out.push('    switch (tag) {');
      for (const f of tagged) {
        out.push(`      case ${f.tag}: {`);
        out.push('        const saved = r.beginTag(size);');
        out.push(...readInto(L, f, v, `f_${f.prop}`, '        '));
        out.push('        r.endTag(saved);');
        out.push('        break;');
        out.push('      }');
      }
      out.push('      default:');
      out.push('        r.skip(size);');
      out.push('    }');
      out.push('  }');
    }
  }
  const literal = props.join(', ');
  if (literal.length <= 90) out.push(`  return { ${literal} };`);
  else out.push('  return {', ...props.map((p) => `    ${p},`), '  };');
  out.push('}');
  return out.join('\n');
}
