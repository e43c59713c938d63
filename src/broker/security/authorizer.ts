// The ACL authorizer (`authorizer.class.name` = Kafka's AclAuthorizer or StandardAuthorizer),
// with Kafka's decision rules: super users may do anything; a resource no ACL applies to is
// allowed only with `allow.everyone.if.no.acl.found`; otherwise a matching DENY wins over any
// ALLOW, and without a matching ALLOW the answer is no. An ACL applies to a resource through its
// literal name, the `*` literal, or any PREFIXED pattern the name starts with; to a principal
// when it names it or `User:*`; to a client when its host is the client's address or `*`.
//
// ACLs live in the metadata store (ZooKeeper's `/kafka-acl` layout in a cluster) and are
// mirrored here (acl-cache.ts): loaded at start, refreshed per resource on every change
// notification, reloaded whole after a session expiry. Writes are read-merge-conditional-write
// loops on the resource's version, so concurrent CreateAcls on two brokers both land.
//
// Decisions are memoised (docs/design.md, "ACLs"): per connection a view of its (principal,
// host) — shared by every connection of that pair — holding, per resource type, the operations
// already decided for each name as two bit sets in one small integer. A check seen before is a
// WeakMap lookup, an array index and a Map lookup; any ACL change (the cache's `version`) or a
// new principal on the connection (re-authentication) makes the view stale, and it is rebuilt.

import type { Logger } from '../logger.js';
import { type MetadataStore, MetadataStoreError } from '../metadata/store/metadata-store.js';
import type { AclEntryRecord, AclResourceRecord, VersionedAcls } from '../metadata/store/records.js';
import type { ConnectionContext, ConnectionSecurity } from '../network/connection.js';
import { AclCache } from './acl-cache.js';
import {
  type AclBinding,
  type AclBindingFilter,
  type AclEntry,
  AclOp,
  entryMatches,
  operationApplies,
  operationCode,
  operationName,
  PatternCode,
  Permission,
  patternKey,
  patternMatches,
  permissionCode,
  permissionName,
  type ResourcePattern,
  ResType,
  resourceTypeCode,
  resourceTypeName,
  SUPPORTED_OPERATIONS,
  WILDCARD_HOST,
  WILDCARD_PRINCIPAL,
  WILDCARD_RESOURCE,
} from './acl-model.js';

export interface AuthorizerOptions {
  readonly store: MetadataStore;
  /** `super.users` as principals (`User:admin`). */
  readonly superUsers: ReadonlySet<string>;
  /** `allow.everyone.if.no.acl.found`. */
  readonly allowEveryoneIfNoAclFound: boolean;
  readonly logger: Logger;
}

const ANONYMOUS = 'User:ANONYMOUS';
/** Operation codes that fit the decision bit sets (bit `op` decided, bit `op + 15` allowed). */
const MAX_MEMO_OP = 14;
const ALLOWED_SHIFT = 15;
/** Resource type codes with memoised decisions (UNKNOWN..USER). */
const MEMO_TYPES = 8;
/** Names memoised per (principal, host) and type before that map starts over. */
const MAX_MEMO_NAMES = 10_000;
/** (principal, host) pairs memoised before the whole memo starts over. */
const MAX_MEMO_PRINCIPALS = 10_000;

/** What one (principal, host) was told since the cache's `version` was `version`. */
interface Decisions {
  readonly principal: string;
  readonly host: string;
  readonly superUser: boolean;
  /** Per resource type code: name → decided bits | allowed bits << ALLOWED_SHIFT. */
  readonly byType: Map<string, number>[];
}

/** A connection's pointer to its pair's decisions, valid for one security context and version. */
interface ConnView {
  readonly security: ConnectionSecurity | undefined;
  readonly version: number;
  readonly decisions: Decisions;
}

/** Conditional-write attempts per resource before giving up (each loss means someone else won). */
const MAX_WRITE_ATTEMPTS = 50;

/** The principal of a connection (an absent security context is an anonymous plaintext peer). */
export function principalOf(conn: ConnectionContext): string {
  return conn.security?.principal ?? ANONYMOUS;
}

/**
 * The client's IP as Kafka compares it with ACL hosts: `remoteAddress` is `<ip>:<port>` (IPv6
 * unbracketed); an IPv4 client of a dual-stack socket loses its `::ffff:` mapping.
 */
export function hostOf(conn: ConnectionContext): string {
  const a = conn.remoteAddress;
  const colon = a.lastIndexOf(':');
  const ip = colon > 0 ? a.slice(0, colon) : a;
  return ip.startsWith('::ffff:') ? ip.slice(7) : ip;
}

function toRecord(p: ResourcePattern): AclResourceRecord {
  return {
    resourceType: resourceTypeName(p.resourceType),
    patternType: p.patternType === PatternCode.LITERAL ? 'LITERAL' : 'PREFIXED',
    name: p.name,
  };
}

function entryToRecord(e: AclEntry): AclEntryRecord {
  return {
    principal: e.principal,
    permissionType: permissionName(e.permission),
    operation: operationName(e.operation),
    host: e.host,
  };
}

const sameEntry = (a: AclEntry, b: AclEntry): boolean =>
  a.principal === b.principal &&
  a.host === b.host &&
  a.operation === b.operation &&
  a.permission === b.permission;

export class AclAuthorizer {
  readonly #options: AuthorizerOptions;
  readonly #cache = new AclCache();
  #unwatch: (() => void) | null = null;
  readonly #views = new WeakMap<ConnectionContext, ConnView>();
  readonly #decisions = new Map<string, Decisions>();
  #decisionsVersion = -1;

  constructor(options: AuthorizerOptions) {
    this.#options = options;
  }

  /** Loads every ACL and follows the store's change notifications. */
  async start(): Promise<void> {
    this.#unwatch = this.#options.store.watch({
      aclsChanged: (resource) => this.#refresh(resource),
      sessionExpired: () => {
        this.#reloadAll().catch((e: unknown) =>
          this.#options.logger.log('error', 'cannot reload ACLs after a session expiry', {
            error: String(e),
          }),
        );
      },
    });
    await this.#reloadAll();
  }

  close(): void {
    this.#unwatch?.();
    this.#unwatch = null;
  }

  get aclCount(): number {
    return this.#cache.count;
  }

  // -- Decisions (synchronous: they run on the request path) ---------------------------------

  authorize(conn: ConnectionContext, op: number, resourceType: number, name: string): boolean {
    let view = this.#views.get(conn);
    if (view === undefined || view.version !== this.#cache.version || view.security !== conn.security)
      view = this.#viewOf(conn);
    const d = view.decisions;
    if (d.superUser) return true;
    const names = d.byType[resourceType];
    if (names === undefined || op < 0 || op > MAX_MEMO_OP)
      return this.authorizePrincipal(d.principal, d.host, op, resourceType, name);
    const bits = names.get(name);
    if (bits !== undefined && (bits & (1 << op)) !== 0) return (bits & (1 << (op + ALLOWED_SHIFT))) !== 0;
    const ok = this.authorizePrincipal(d.principal, d.host, op, resourceType, name);
    if (bits === undefined && names.size >= MAX_MEMO_NAMES) names.clear();
    names.set(name, (bits ?? 0) | (1 << op) | (ok ? 1 << (op + ALLOWED_SHIFT) : 0));
    return ok;
  }

  /** The connection's view, (re)made for the current ACLs and its current principal. */
  #viewOf(conn: ConnectionContext): ConnView {
    const version = this.#cache.version;
    if (this.#decisionsVersion !== version || this.#decisions.size >= MAX_MEMO_PRINCIPALS) {
      this.#decisions.clear();
      this.#decisionsVersion = version;
    }
    const principal = principalOf(conn);
    const host = hostOf(conn);
    const key = `${principal}\n${host}`;
    let decisions = this.#decisions.get(key);
    if (decisions === undefined) {
      decisions = {
        principal,
        host,
        superUser: this.#options.superUsers.has(principal),
        byType: Array.from({ length: MEMO_TYPES }, () => new Map<string, number>()),
      };
      this.#decisions.set(key, decisions);
    }
    const view: ConnView = { security: conn.security, version, decisions };
    this.#views.set(conn, view);
    return view;
  }

  authorizePrincipal(
    principal: string,
    host: string,
    op: number,
    resourceType: number,
    name: string,
  ): boolean {
    if (this.#options.superUsers.has(principal)) return true;
    const entries = this.#cache.matching(resourceType, name);
    if (entries.length === 0) return this.#options.allowEveryoneIfNoAclFound;
    let allowed = false;
    for (const e of entries) {
      if (e.principal !== principal && e.principal !== WILDCARD_PRINCIPAL) continue;
      if (e.host !== WILDCARD_HOST && e.host !== host) continue;
      if (!operationApplies(e.operation, e.permission, op)) continue;
      if (e.permission === Permission.DENY) return false;
      allowed = true;
    }
    return allowed;
  }

  /** The names among `names` the connection may `op` (Kafka's filterByAuthorized). */
  filter(conn: ConnectionContext, op: number, resourceType: number, names: Iterable<string>): Set<string> {
    const out = new Set<string>();
    for (const n of names) if (this.authorize(conn, op, resourceType, n)) out.add(n);
    return out;
  }

  /** Kafka's authorized-operations bit field: bit `code` set for every allowed supported operation. */
  authorizedOperations(conn: ConnectionContext, resourceType: number, name: string): number {
    let bits = 0;
    for (const op of SUPPORTED_OPERATIONS.get(resourceType) ?? [])
      if (this.authorize(conn, op, resourceType, name)) bits |= 1 << op;
    return bits;
  }

  /**
   * Whether the connection may `op` on *some* resource of the type (Kafka's default
   * authorizeByResourceType): an ALLOW pattern not covered by a DENY literal or prefix; a DENY
   * on `*` denies all.
   */
  authorizeByResourceType(conn: ConnectionContext, op: number, resourceType: number): boolean {
    if (this.authorize(conn, op, resourceType, 'hardcode')) return true;
    const principal = principalOf(conn);
    const host = hostOf(conn);
    const denyLiteral = new Set<string>();
    const denyPrefixed = new Set<string>();
    const allow: ResourcePattern[] = [];
    for (const [pattern, entries] of this.#cache.resources(resourceType)) {
      for (const e of entries) {
        if (e.host !== host && e.host !== WILDCARD_HOST) continue;
        if (e.principal !== principal && e.principal !== WILDCARD_PRINCIPAL) continue;
        if (e.operation !== op && e.operation !== AclOp.ALL) continue;
        const literal = pattern.patternType === PatternCode.LITERAL;
        if (e.permission === Permission.DENY) {
          if (literal && pattern.name === WILDCARD_RESOURCE) return false;
          (literal ? denyLiteral : denyPrefixed).add(pattern.name);
        } else if (e.permission === Permission.ALLOW) allow.push(pattern);
      }
    }
    if (allow.some((p) => p.patternType === PatternCode.LITERAL && p.name === WILDCARD_RESOURCE)) return true;
    return allow.some((p) => {
      if (p.patternType === PatternCode.LITERAL && denyLiteral.has(p.name)) return false;
      for (let i = 1; i <= p.name.length; i++) if (denyPrefixed.has(p.name.slice(0, i))) return false;
      return true;
    });
  }

  // -- ACL administration (CreateAcls, DescribeAcls, DeleteAcls) -------------------------------

  describe(filter: AclBindingFilter): AclBinding[] {
    const out: AclBinding[] = [];
    for (const b of this.#cache.bindings())
      if (patternMatches(filter, b.pattern) && entryMatches(filter, b.entry)) out.push(b);
    return out;
  }

  /** Adds valid bindings; resolves one error (or null) per binding, in order. */
  async create(bindings: readonly AclBinding[]): Promise<(Error | null)[]> {
    const results: (Error | null)[] = bindings.map(() => null);
    const byPattern = new Map<string, number[]>();
    bindings.forEach((b, i) => {
      const key = patternKey(b.pattern);
      byPattern.set(key, [...(byPattern.get(key) ?? []), i]);
    });
    await Promise.all(
      [...byPattern.values()].map(async (indexes) => {
        const pattern = bindings[indexes[0]!]!.pattern;
        try {
          await this.#update(pattern, (current) => {
            const next = [...current];
            for (const i of indexes) {
              const e = bindings[i]!.entry;
              if (!next.some((x) => sameEntry(x, e))) next.push(e);
            }
            return next;
          });
        } catch (e) {
          for (const i of indexes) results[i] = e instanceof Error ? e : new Error(String(e));
        }
      }),
    );
    return results;
  }

  /** Removes every binding matching any filter; per filter, the bindings it removed (or an error). */
  async delete(
    filters: readonly AclBindingFilter[],
  ): Promise<({ deleted: AclBinding[] } | { error: Error })[]> {
    const patterns = new Map<string, ResourcePattern>();
    for (const [pattern] of this.#cache.resources())
      if (filters.some((f) => patternMatches(f, pattern))) patterns.set(patternKey(pattern), pattern);
    const deleted: AclBinding[] = [];
    let failure: Error | null = null;
    await Promise.all(
      [...patterns.values()].map(async (pattern) => {
        const applicable = filters.filter((f) => patternMatches(f, pattern));
        let removed: AclEntry[] = [];
        try {
          await this.#update(pattern, (current) => {
            removed = current.filter((e) => applicable.some((f) => entryMatches(f, e)));
            return current.filter((e) => !removed.includes(e));
          });
          for (const entry of removed) deleted.push({ pattern, entry });
        } catch (e) {
          failure ??= e instanceof Error ? e : new Error(String(e));
        }
      }),
    );
    return filters.map((f) =>
      failure !== null
        ? { error: failure }
        : { deleted: deleted.filter((b) => patternMatches(f, b.pattern) && entryMatches(f, b.entry)) },
    );
  }

  /** Read, change, write at the version read; again when another writer got in between. */
  async #update(
    pattern: ResourcePattern,
    change: (current: readonly AclEntry[]) => AclEntry[],
  ): Promise<void> {
    const store = this.#options.store;
    const resource = toRecord(pattern);
    for (let attempt = 1; ; attempt++) {
      const stored = await store.acls(resource);
      const current = this.#entriesOf(stored);
      const next = change(current);
      const unchanged = next.length === current.length && next.every((e, i) => sameEntry(e, current[i]!));
      try {
        if (!unchanged) await store.writeAcls(resource, next.map(entryToRecord), stored.version);
        // Effective on this broker as soon as the request is answered; the notification repeats it.
        this.#cache.set(pattern, next);
        return;
      } catch (e) {
        if (!(e instanceof MetadataStoreError) || e.code !== 'BAD_VERSION' || attempt >= MAX_WRITE_ATTEMPTS)
          throw e;
      }
    }
  }

  // -- Mirroring the store ----------------------------------------------------------------------

  #patternOf(r: AclResourceRecord): ResourcePattern | null {
    const resourceType = resourceTypeCode(r.resourceType);
    if (resourceType <= ResType.ANY) return null;
    const patternType = r.patternType === 'LITERAL' ? PatternCode.LITERAL : PatternCode.PREFIXED;
    return { resourceType, patternType, name: r.name };
  }

  #entriesOf(v: VersionedAcls): AclEntry[] {
    const out: AclEntry[] = [];
    for (const a of v.acls) {
      const operation = operationCode(a.operation);
      const permission = permissionCode(a.permissionType);
      if (operation <= AclOp.ANY || permission <= Permission.ANY) {
        this.#options.logger.log('warn', 'ignoring an ACL the authorizer cannot read', {
          resource: `${v.resource.resourceType}:${v.resource.patternType}:${v.resource.name}`,
          operation: a.operation,
          permissionType: a.permissionType,
        });
        continue;
      }
      out.push(Object.freeze({ principal: a.principal, host: a.host, operation, permission }));
    }
    return out;
  }

  #apply(v: VersionedAcls): void {
    const pattern = this.#patternOf(v.resource);
    if (pattern !== null) this.#cache.set(pattern, this.#entriesOf(v));
  }

  #refresh(resource: AclResourceRecord): void {
    this.#options.store.acls(resource).then(
      (v) => this.#apply(v),
      (e: unknown) =>
        this.#options.logger.log('warn', 'cannot re-read ACLs after a change notification', {
          resource: `${resource.resourceType}:${resource.patternType}:${resource.name}`,
          error: String(e),
        }),
    );
  }

  async #reloadAll(): Promise<void> {
    const all = await this.#options.store.allAcls();
    this.#cache.clear();
    for (const v of all) this.#apply(v);
  }
}
