// The in-memory index of every ACL, built for the request path. Per resource type: LITERAL
// patterns in a map by name (the `*` wildcard is one of them), PREFIXED patterns in a character
// trie, so collecting what applies to a name costs one map lookup plus one walk along the name,
// whatever the number of ACLs. Nothing is memoised here: the authorizer memoises its decisions
// per (principal, host) and drops them when `version` moves (every change of any ACL).

import {
  type AclBinding,
  type AclEntry,
  PatternCode,
  type ResourcePattern,
  WILDCARD_RESOURCE,
} from './acl-model.js';

interface TrieNode {
  readonly children: Map<number, TrieNode>;
  entries: readonly AclEntry[];
}

const newNode = (): TrieNode => ({ children: new Map(), entries: [] });

const NONE: readonly AclEntry[] = Object.freeze([]);

class TypeIndex {
  readonly literal = new Map<string, readonly AclEntry[]>();
  readonly prefixed = new Map<string, readonly AclEntry[]>();
  readonly trie: TrieNode = newNode();

  set(patternType: number, name: string, entries: readonly AclEntry[]): void {
    if (patternType === PatternCode.LITERAL) {
      if (entries.length === 0) this.literal.delete(name);
      else this.literal.set(name, entries);
      return;
    }
    if (entries.length === 0) this.prefixed.delete(name);
    else this.prefixed.set(name, entries);
    let node = this.trie;
    for (let i = 0; i < name.length; i++) {
      const c = name.charCodeAt(i);
      let next = node.children.get(c);
      if (next === undefined) {
        if (entries.length === 0) return; // nothing was stored there
        next = newNode();
        node.children.set(c, next);
      }
      node = next;
    }
    node.entries = entries;
  }

  matching(name: string): readonly AclEntry[] {
    // Most names have one source of entries (or none): that list itself, without a copy.
    let one: readonly AclEntry[] = NONE;
    let found: AclEntry[] | null = null;
    const exact = this.literal.get(name);
    if (exact !== undefined) one = exact;
    if (name !== WILDCARD_RESOURCE) {
      const wildcard = this.literal.get(WILDCARD_RESOURCE);
      if (wildcard !== undefined) {
        if (one.length === 0) one = wildcard;
        else found = [...one, ...wildcard];
      }
    }
    let node: TrieNode | undefined = this.trie;
    for (let i = 0; node !== undefined; i++) {
      const entries = node.entries;
      if (entries.length > 0) {
        if (found !== null) found.push(...entries);
        else if (one.length === 0) one = entries;
        else found = [...one, ...entries];
      }
      if (i === name.length) break;
      node = node.children.get(name.charCodeAt(i));
    }
    return found ?? one;
  }
}

export class AclCache {
  readonly #types = new Map<number, TypeIndex>();
  #count = 0;
  #version = 0;

  /** Moves on every change: answers derived from the cache before it are stale. */
  get version(): number {
    return this.#version;
  }

  /** Replaces the entries of one resource pattern (empty: it has none any more). */
  set(pattern: ResourcePattern, entries: readonly AclEntry[]): void {
    let index = this.#types.get(pattern.resourceType);
    if (index === undefined) {
      index = new TypeIndex();
      this.#types.set(pattern.resourceType, index);
    }
    const map = pattern.patternType === PatternCode.LITERAL ? index.literal : index.prefixed;
    this.#count += entries.length - (map.get(pattern.name)?.length ?? 0);
    this.#version++;
    index.set(pattern.patternType, pattern.name, entries);
  }

  /** Every entry that applies to the resource: its literal name, `*`, and every prefix of it. */
  matching(resourceType: number, name: string): readonly AclEntry[] {
    return this.#types.get(resourceType)?.matching(name) ?? NONE;
  }

  entriesOf(pattern: ResourcePattern): readonly AclEntry[] {
    const index = this.#types.get(pattern.resourceType);
    const map = pattern.patternType === PatternCode.LITERAL ? index?.literal : index?.prefixed;
    return map?.get(pattern.name) ?? NONE;
  }

  /** Every (pattern, entries) of one type, or of all types. */
  *resources(resourceType?: number): Iterable<[ResourcePattern, readonly AclEntry[]]> {
    for (const [type, index] of this.#types) {
      if (resourceType !== undefined && type !== resourceType) continue;
      for (const [name, entries] of index.literal)
        yield [{ resourceType: type, patternType: PatternCode.LITERAL, name }, entries];
      for (const [name, entries] of index.prefixed)
        yield [{ resourceType: type, patternType: PatternCode.PREFIXED, name }, entries];
    }
  }

  *bindings(): Iterable<AclBinding> {
    for (const [pattern, entries] of this.resources()) for (const entry of entries) yield { pattern, entry };
  }

  clear(): void {
    this.#types.clear();
    this.#count = 0;
    this.#version++;
  }

  get count(): number {
    return this.#count;
  }
}
