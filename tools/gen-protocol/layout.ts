// Per-version wire layouts. Two versions of a struct share one generated function exactly when
// their layout signatures are equal: same present fields in the same order, same types, same
// nullability, same encoding (classic/compact) and the same tagged fields.

import {
  type FieldSpec,
  inRange,
  type MessageSpec,
  type StructSpec,
  type TypeRef,
  versionsOf,
} from './schema.js';

export function isFlexible(m: MessageSpec, v: number): boolean {
  return inRange(m.flexibleVersions, v);
}

/** Whether strings/bytes/arrays of this field use the compact forms in version `v`. */
export function fieldCompact(m: MessageSpec, f: FieldSpec, v: number): boolean {
  return f.flexibleVersions !== null ? inRange(f.flexibleVersions, v) : isFlexible(m, v);
}

export function isPresent(f: FieldSpec, v: number): boolean {
  return inRange(f.versions, v);
}

export function isTagged(f: FieldSpec, v: number): boolean {
  return f.tag !== null && inRange(f.taggedVersions, v);
}

export function isNullable(f: FieldSpec, v: number): boolean {
  return inRange(f.nullableVersions, v);
}

/** Nullable in at least one version: the TypeScript type then includes `| null`. */
export function nullableAnywhere(f: FieldSpec): boolean {
  return f.nullableVersions.lo <= f.nullableVersions.hi || f.default === 'null';
}

export class Layouts {
  private readonly sigCache = new Map<string, string>();
  /** struct tsName → signature → first version with that signature. */
  private readonly firstVersion = new Map<string, Map<string, number>>();

  constructor(readonly msg: MessageSpec) {
    for (const v of versionsOf(msg)) this.visit(msg.root, v);
  }

  private visit(s: StructSpec, v: number): void {
    const sig = this.signature(s, v);
    let byStruct = this.firstVersion.get(s.tsName);
    if (byStruct === undefined) {
      byStruct = new Map();
      this.firstVersion.set(s.tsName, byStruct);
    }
    if (byStruct.has(sig)) return;
    byStruct.set(sig, v);
    for (const f of s.fields) {
      if (!isPresent(f, v)) continue;
      const t = f.type.kind === 'array' ? f.type.elem : f.type;
      if (t.kind === 'struct') this.visit(t.struct, v);
    }
  }

  isFlexibleVersion(v: number): boolean {
    return isFlexible(this.msg, v);
  }

  signature(s: StructSpec, v: number): string {
    const key = `${s.tsName}@${v}`;
    const cached = this.sigCache.get(key);
    if (cached !== undefined) return cached;
    const parts: string[] = [isFlexible(this.msg, v) ? 'flex' : 'classic'];
    for (const f of s.fields) {
      if (!isPresent(f, v)) continue;
      let p = `${f.prop}:${this.typeSig(f.type, v)}`;
      if (isNullable(f, v)) p += '?';
      if (fieldCompact(this.msg, f, v)) p += 'c';
      if (isTagged(f, v)) p += `#${f.tag}`;
      parts.push(p);
    }
    const sig = parts.join(',');
    this.sigCache.set(key, sig);
    return sig;
  }

  private typeSig(t: TypeRef, v: number): string {
    if (t.kind === 'primitive') return t.name;
    if (t.kind === 'array') return `[${this.typeSig(t.elem, v)}]`;
    return `{${this.signature(t.struct, v)}}`;
  }

  /** Suffix of the generated function reading/writing `s` in version `v`, e.g. `V4`. */
  suffix(s: StructSpec, v: number): string {
    const first = this.firstVersion.get(s.tsName)?.get(this.signature(s, v));
    if (first === undefined) throw new Error(`no layout for ${s.tsName} v${v}`);
    return `V${first}`;
  }

  /** Versions for which a function of `s` is generated (first version of each distinct layout). */
  layoutVersions(s: StructSpec): number[] {
    return [...(this.firstVersion.get(s.tsName)?.values() ?? [])];
  }

  /** The root struct's layouts: [first version, every version sharing that layout]. */
  rootDispatch(): [number, number[]][] {
    const groups = new Map<number, number[]>();
    for (const v of versionsOf(this.msg)) {
      const first = Number(this.suffix(this.msg.root, v).slice(1));
      let g = groups.get(first);
      if (g === undefined) {
        g = [];
        groups.set(first, g);
      }
      g.push(v);
    }
    return [...groups.entries()];
  }
}
