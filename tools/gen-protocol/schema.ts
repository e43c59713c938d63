// Loading Kafka's JSON message schemas (JSON with `//` comments) into a resolved model: version
// ranges parsed, struct references resolved (inline `fields` and `commonStructs`), field names
// mapped to the lowerCamelCase properties the generated code uses. Versions Kafka added later
// widen the range, with the fields they added inserted (`later-versions.ts`).

import { readFileSync } from 'node:fs';
import { LATER_FIELDS, LATER_VERSIONS, type LaterField } from './later-versions.js';

/** Inclusive version range; empty when lo > hi. `hi` is Infinity for open ranges ("3+"). */
export interface VersionRange {
  readonly lo: number;
  readonly hi: number;
}

export const NO_VERSIONS: VersionRange = { lo: 1, hi: 0 };

export function parseRange(text: string | undefined, fallback: VersionRange = NO_VERSIONS): VersionRange {
  if (text === undefined) return fallback;
  const t = text.trim();
  if (t === 'none') return NO_VERSIONS;
  if (t.endsWith('+')) return { lo: Number(t.slice(0, -1)), hi: Number.POSITIVE_INFINITY };
  const dash = t.indexOf('-');
  if (dash > 0) return { lo: Number(t.slice(0, dash)), hi: Number(t.slice(dash + 1)) };
  const n = Number(t);
  if (!Number.isInteger(n)) throw new Error(`bad version range ${JSON.stringify(text)}`);
  return { lo: n, hi: n };
}

export function inRange(r: VersionRange, v: number): boolean {
  return v >= r.lo && v <= r.hi;
}

export type PrimitiveName =
  | 'int8'
  | 'int16'
  | 'int32'
  | 'int64'
  | 'uint16'
  | 'uint32'
  | 'float64'
  | 'bool'
  | 'uuid'
  | 'string'
  | 'bytes'
  | 'records';

const PRIMITIVES = new Set<string>([
  'int8',
  'int16',
  'int32',
  'int64',
  'uint16',
  'uint32',
  'float64',
  'bool',
  'uuid',
  'string',
  'bytes',
  'records',
]);

export type TypeRef =
  | { readonly kind: 'primitive'; readonly name: PrimitiveName }
  | { readonly kind: 'struct'; readonly struct: StructSpec }
  | { readonly kind: 'array'; readonly elem: TypeRef };

export interface FieldSpec {
  readonly name: string;
  /** Property name in generated code (lowerCamelCase). */
  readonly prop: string;
  readonly type: TypeRef;
  readonly versions: VersionRange;
  readonly nullableVersions: VersionRange;
  readonly taggedVersions: VersionRange;
  readonly tag: number | null;
  /** Raw schema default (string or number), if any. */
  readonly default: string | undefined;
  /** Field-level override of the message's flexible versions (RequestHeader.ClientId). */
  readonly flexibleVersions: VersionRange | null;
  readonly about: string | undefined;
}

export interface StructSpec {
  /** Schema name, e.g. `FetchPartition` (the message name for the root struct). */
  readonly name: string;
  /** TypeScript interface name, e.g. `FetchRequestFetchPartition`. */
  readonly tsName: string;
  readonly fields: FieldSpec[];
}

export interface MessageSpec {
  readonly name: string;
  readonly kind: 'request' | 'response' | 'header' | 'data';
  readonly apiKey: number | null;
  readonly validVersions: VersionRange;
  readonly flexibleVersions: VersionRange;
  readonly root: StructSpec;
  /** Every struct of the message in definition order, root first. */
  readonly structs: StructSpec[];
}

interface RawField {
  name: string;
  type: string;
  versions?: string;
  nullableVersions?: string;
  taggedVersions?: string;
  tag?: number;
  default?: string | number | boolean;
  flexibleVersions?: string;
  about?: string;
  fields?: RawField[];
}

interface RawMessage {
  name: string;
  type: string;
  apiKey?: number;
  validVersions: string;
  flexibleVersions?: string;
  fields: RawField[];
  commonStructs?: { name: string; versions?: string; fields: RawField[] }[];
}

/** Removes `//` comments outside string literals, then parses. */
export function parseJsonWithComments(text: string): unknown {
  let out = '';
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i]!;
    if (inString) {
      out += c;
      if (c === '\\') out += text[++i] ?? '';
      else if (c === '"') inString = false;
    } else if (c === '"') {
      inString = true;
      out += c;
    } else if (c === '/' && text[i + 1] === '/') {
      while (i < text.length && text[i] !== '\n') i++;
      out += '\n';
    } else {
      out += c;
    }
  }
  return JSON.parse(out);
}

export function camel(name: string): string {
  return name.charAt(0).toLowerCase() + name.slice(1);
}

/** Inserts the fields of later versions (LATER_FIELDS) into the struct Kafka's schema has them in. */
function addLaterFields(raw: RawMessage): void {
  for (const later of LATER_FIELDS.get(raw.name) ?? []) {
    const fields = structFields(raw, later);
    if (fields.some((f) => f.name === later.field.name))
      throw new Error(`${raw.name}: ${later.field.name} is in the schema already; drop it from LATER_FIELDS`);
    const at = fields.findIndex((f) => f.name === later.after);
    if (at < 0) throw new Error(`${raw.name}.${later.struct}: no field ${later.after}`);
    fields.splice(at + 1, 0, { ...later.field });
  }
}

function structFields(raw: RawMessage, later: LaterField): RawField[] {
  if (later.struct === raw.name) return raw.fields;
  const common = raw.commonStructs?.find((c) => c.name === later.struct);
  if (common !== undefined) return common.fields;
  const find = (fields: RawField[]): RawField[] | undefined => {
    for (const f of fields) {
      if (f.fields === undefined) continue;
      if (f.type.replace(/^\[\]/, '') === later.struct) return f.fields;
      const inner = find(f.fields);
      if (inner !== undefined) return inner;
    }
    return undefined;
  };
  const found = find(raw.fields);
  if (found === undefined) throw new Error(`${raw.name}: no struct ${later.struct}`);
  return found;
}

export function loadMessage(path: string): MessageSpec {
  const raw = parseJsonWithComments(readFileSync(path, 'utf8')) as RawMessage;
  addLaterFields(raw);
  const kind = raw.type as MessageSpec['kind'];
  const structs: StructSpec[] = [];
  const byName = new Map<string, StructSpec>();
  const root: StructSpec = { name: raw.name, tsName: raw.name, fields: [] };
  structs.push(root);

  // Common structs are declared up front so fields anywhere can reference them.
  const pendingCommon: [StructSpec, RawField[]][] = [];
  for (const cs of raw.commonStructs ?? []) {
    const s: StructSpec = { name: cs.name, tsName: raw.name + cs.name, fields: [] };
    byName.set(cs.name, s);
    pendingCommon.push([s, cs.fields]);
  }

  const resolveType = (f: RawField): TypeRef => {
    const t = f.type.trim();
    if (t.startsWith('[]')) {
      const inner = t.slice(2);
      if (PRIMITIVES.has(inner))
        return { kind: 'array', elem: { kind: 'primitive', name: inner as PrimitiveName } };
      return { kind: 'array', elem: { kind: 'struct', struct: structFor(inner, f) } };
    }
    if (PRIMITIVES.has(t)) return { kind: 'primitive', name: t as PrimitiveName };
    return { kind: 'struct', struct: structFor(t, f) };
  };

  const structFor = (name: string, f: RawField): StructSpec => {
    if (f.fields !== undefined) {
      if (byName.has(name)) throw new Error(`${raw.name}: struct ${name} defined twice`);
      const s: StructSpec = { name, tsName: raw.name + name, fields: [] };
      byName.set(name, s);
      structs.push(s);
      for (const sub of f.fields) s.fields.push(toField(sub));
      return s;
    }
    const s = byName.get(name);
    if (s === undefined) throw new Error(`${raw.name}: unknown struct ${name}`);
    return s;
  };

  const toField = (f: RawField): FieldSpec => {
    const taggedVersions = parseRange(f.taggedVersions);
    return {
      name: f.name,
      prop: camel(f.name),
      type: resolveType(f),
      // A tagged-only field may omit `versions`.
      versions: parseRange(f.versions, taggedVersions),
      nullableVersions: parseRange(f.nullableVersions),
      taggedVersions,
      tag: f.tag ?? null,
      default: f.default === undefined ? undefined : String(f.default),
      flexibleVersions: f.flexibleVersions === undefined ? null : parseRange(f.flexibleVersions),
      about: f.about,
    };
  };

  for (const f of raw.fields) root.fields.push(toField(f));
  for (const [s, fields] of pendingCommon) {
    structs.push(s);
    for (const f of fields) s.fields.push(toField(f));
  }
  const valid = parseRange(raw.validVersions);
  const later = LATER_VERSIONS.get(raw.name);
  return {
    name: raw.name,
    kind,
    apiKey: raw.apiKey ?? null,
    validVersions: later !== undefined && later > valid.hi ? { lo: valid.lo, hi: later } : valid,
    flexibleVersions: parseRange(raw.flexibleVersions ?? 'none'),
    root,
    structs,
  };
}

/** Every version in the message's valid range, ascending. */
export function versionsOf(m: MessageSpec): number[] {
  const out: number[] = [];
  for (let v = m.validVersions.lo; v <= m.validVersions.hi; v++) out.push(v);
  return out;
}
