// The ACL model and the authorizer's decisions, against an in-memory store: operation
// implications, DENY over ALLOW, prefixed and wildcard patterns, principal and host wildcards,
// super users, allow.everyone.if.no.acl.found, filters, authorizeByResourceType, and the
// authorizer following the store's change notifications.

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { MemoryMetadataService } from '../../../src/broker/metadata/store/memory-store.js';
import type { ConnectionContext } from '../../../src/broker/network/connection.js';
import {
  type AclBinding,
  type AclBindingFilter,
  AclOp,
  CLUSTER_NAME,
  invalidBindingReason,
  PatternCode,
  Permission,
  ResType,
} from '../../../src/broker/security/acl-model.js';
import { AclAuthorizer, hostOf } from '../../../src/broker/security/authorizer.js';
import { authorizerSettings } from '../../../src/broker/security/authorizer-config.js';
import { scaled } from '../../support/timeouts.js';

function conn(principal: string, ip = '10.0.0.1'): ConnectionContext {
  return {
    id: 1,
    remoteAddress: `${ip}:40000`,
    security: { listenerName: 'SASL_PLAINTEXT', securityProtocol: 'SASL_PLAINTEXT', principal },
    clientSoftwareName: '',
    clientSoftwareVersion: '',
  };
}

function acl(
  resourceType: number,
  name: string,
  principal: string,
  operation: number,
  permission: number = Permission.ALLOW,
  patternType: number = PatternCode.LITERAL,
  host = '*',
): AclBinding {
  return { pattern: { resourceType, patternType, name }, entry: { principal, host, operation, permission } };
}

const ANY_FILTER: AclBindingFilter = {
  resourceType: ResType.ANY,
  name: null,
  patternType: PatternCode.ANY,
  principal: null,
  host: null,
  operation: AclOp.ANY,
  permission: Permission.ANY,
};

async function authorizer(
  bindings: AclBinding[],
  options: { superUsers?: string[]; allowEveryone?: boolean } = {},
): Promise<AclAuthorizer> {
  const store = new MemoryMetadataService().connect();
  const a = new AclAuthorizer({
    store,
    superUsers: new Set(options.superUsers ?? []),
    allowEveryoneIfNoAclFound: options.allowEveryone ?? false,
    logger: { log() {} },
  });
  await a.start();
  const errors = await a.create(bindings);
  assert.deepEqual(
    errors,
    bindings.map(() => null),
  );
  return a;
}

const alice = conn('User:alice');
const bob = conn('User:bob');

test('READ, WRITE, DELETE and ALTER imply DESCRIBE; ALTER_CONFIGS implies DESCRIBE_CONFIGS; ALL implies everything', async () => {
  for (const op of [AclOp.READ, AclOp.WRITE, AclOp.DELETE, AclOp.ALTER]) {
    const a = await authorizer([acl(ResType.TOPIC, 't', 'User:alice', op)]);
    assert.ok(a.authorize(alice, AclOp.DESCRIBE, ResType.TOPIC, 't'), `op ${op} implies DESCRIBE`);
    assert.ok(a.authorize(alice, op, ResType.TOPIC, 't'));
    assert.ok(!a.authorize(alice, AclOp.CREATE, ResType.TOPIC, 't'));
  }
  const c = await authorizer([acl(ResType.TOPIC, 't', 'User:alice', AclOp.ALTER_CONFIGS)]);
  assert.ok(c.authorize(alice, AclOp.DESCRIBE_CONFIGS, ResType.TOPIC, 't'));
  assert.ok(!c.authorize(alice, AclOp.DESCRIBE, ResType.TOPIC, 't'));
  const d = await authorizer([acl(ResType.TOPIC, 't', 'User:alice', AclOp.DESCRIBE)]);
  assert.ok(!d.authorize(alice, AclOp.READ, ResType.TOPIC, 't'), 'DESCRIBE does not imply READ');
  const all = await authorizer([acl(ResType.CLUSTER, CLUSTER_NAME, 'User:alice', AclOp.ALL)]);
  for (const op of [AclOp.CREATE, AclOp.ALTER, AclOp.CLUSTER_ACTION, AclOp.IDEMPOTENT_WRITE])
    assert.ok(all.authorize(alice, op, ResType.CLUSTER, CLUSTER_NAME));
});

test('DENY beats ALLOW; a DENY of READ does not deny DESCRIBE; DENY ALL denies everything', async () => {
  const a = await authorizer([
    acl(ResType.TOPIC, 't', 'User:alice', AclOp.READ),
    acl(ResType.TOPIC, '*', 'User:alice', AclOp.READ, Permission.DENY),
  ]);
  assert.ok(!a.authorize(alice, AclOp.READ, ResType.TOPIC, 't'));
  assert.ok(a.authorize(alice, AclOp.DESCRIBE, ResType.TOPIC, 't'));
  const b = await authorizer([
    acl(ResType.TOPIC, 't', 'User:*', AclOp.ALL),
    acl(ResType.TOPIC, 't', 'User:bob', AclOp.ALL, Permission.DENY),
  ]);
  assert.ok(b.authorize(alice, AclOp.WRITE, ResType.TOPIC, 't'));
  assert.ok(!b.authorize(bob, AclOp.DESCRIBE, ResType.TOPIC, 't'));
});

test('prefixed and wildcard patterns, principal and host matching', async () => {
  const a = await authorizer([
    acl(ResType.TOPIC, 'orders-', 'User:alice', AclOp.WRITE, Permission.ALLOW, PatternCode.PREFIXED),
    acl(ResType.TOPIC, 'orders-secret', 'User:alice', AclOp.WRITE, Permission.DENY, PatternCode.PREFIXED),
    acl(ResType.GROUP, '*', 'User:*', AclOp.READ),
    acl(ResType.TOPIC, 'local', 'User:bob', AclOp.READ, Permission.ALLOW, PatternCode.LITERAL, '10.0.0.9'),
  ]);
  assert.ok(a.authorize(alice, AclOp.WRITE, ResType.TOPIC, 'orders-eu'));
  assert.ok(a.authorize(alice, AclOp.WRITE, ResType.TOPIC, 'orders-'));
  assert.ok(!a.authorize(alice, AclOp.WRITE, ResType.TOPIC, 'orders'), 'a prefix longer than the name');
  assert.ok(!a.authorize(alice, AclOp.WRITE, ResType.TOPIC, 'orders-secret-1'));
  assert.ok(!a.authorize(bob, AclOp.WRITE, ResType.TOPIC, 'orders-eu'));
  assert.ok(a.authorize(bob, AclOp.READ, ResType.GROUP, 'any-group'));
  assert.ok(!a.authorize(bob, AclOp.DELETE, ResType.GROUP, 'any-group'));
  assert.ok(a.authorize(conn('User:bob', '10.0.0.9'), AclOp.READ, ResType.TOPIC, 'local'));
  assert.ok(!a.authorize(conn('User:bob', '10.0.0.8'), AclOp.READ, ResType.TOPIC, 'local'));
  assert.ok(a.authorize(conn('User:bob', '::ffff:10.0.0.9'), AclOp.READ, ResType.TOPIC, 'local'));
  assert.equal(hostOf(conn('User:x', '::1')), '::1');
  // A literal ACL whose name is a prefix of the resource's does not apply.
  const lit = await authorizer([acl(ResType.TOPIC, 'ab', 'User:alice', AclOp.READ)]);
  assert.ok(!lit.authorize(alice, AclOp.READ, ResType.TOPIC, 'abc'));
});

test('super users and allow.everyone.if.no.acl.found', async () => {
  const a = await authorizer([acl(ResType.TOPIC, 'guarded', 'User:bob', AclOp.READ)], {
    superUsers: ['User:admin'],
    allowEveryone: true,
  });
  assert.ok(a.authorize(conn('User:admin'), AclOp.ALTER, ResType.CLUSTER, CLUSTER_NAME));
  assert.ok(a.authorize(alice, AclOp.WRITE, ResType.TOPIC, 'open'), 'no ACL for the resource: allowed');
  assert.ok(!a.authorize(alice, AclOp.READ, ResType.TOPIC, 'guarded'), 'ACLs exist, none for alice');
  const strict = await authorizer([]);
  assert.ok(!strict.authorize(alice, AclOp.READ, ResType.TOPIC, 'open'), 'default: denied');
  assert.deepEqual(authorizerSettings(new Map([['authorizer.class.name', '']])), null);
  const s = authorizerSettings(
    new Map([
      ['authorizer.class.name', 'org.apache.kafka.metadata.authorizer.StandardAuthorizer'],
      ['super.users', 'User:admin; User:ops'],
      ['allow.everyone.if.no.acl.found', 'TRUE'],
    ]),
  );
  assert.deepEqual([...(s?.superUsers ?? [])], ['User:admin', 'User:ops']);
  assert.equal(s?.allowEveryoneIfNoAclFound, true);
  assert.throws(
    () => authorizerSettings(new Map([['authorizer.class.name', 'com.example.MyAuthorizer']])),
    /com\.example\.MyAuthorizer is not supported/,
  );
});

test('authorized operations, authorizeByResourceType, describe and delete filters', async () => {
  const a = await authorizer([
    acl(ResType.TOPIC, 't', 'User:alice', AclOp.READ),
    acl(ResType.TOPIC, 'w-', 'User:alice', AclOp.WRITE, Permission.ALLOW, PatternCode.PREFIXED),
    acl(ResType.TOPIC, 'w-x', 'User:bob', AclOp.WRITE),
    acl(ResType.TOPIC, 'w-', 'User:bob', AclOp.WRITE, Permission.DENY, PatternCode.PREFIXED),
  ]);
  assert.equal(a.authorizedOperations(alice, ResType.TOPIC, 't'), (1 << AclOp.READ) | (1 << AclOp.DESCRIBE));
  assert.ok(a.authorizeByResourceType(alice, AclOp.WRITE, ResType.TOPIC));
  assert.ok(
    !a.authorizeByResourceType(bob, AclOp.WRITE, ResType.TOPIC),
    'its only ALLOW is under a DENY prefix',
  );
  assert.equal(a.describe(ANY_FILTER).length, 4);
  assert.equal(a.describe({ ...ANY_FILTER, principal: 'User:bob' }).length, 2);
  const match = a.describe({ ...ANY_FILTER, patternType: PatternCode.MATCH, name: 'w-x' });
  assert.equal(match.length, 3, 'MATCH: the literal and both prefixes that apply to w-x');
  const [deleted] = await a.delete([{ ...ANY_FILTER, permission: Permission.DENY }]);
  assert.ok(deleted && 'deleted' in deleted && deleted.deleted.length === 1);
  assert.ok(a.authorize(bob, AclOp.WRITE, ResType.TOPIC, 'w-x'));
  assert.equal(a.aclCount, 3);
});

test("invalid bindings are refused with Kafka's reasons", () => {
  const ok = acl(ResType.TOPIC, 't', 'User:a', AclOp.READ);
  assert.equal(invalidBindingReason(ok), null);
  assert.match(
    invalidBindingReason({ ...ok, pattern: { ...ok.pattern, resourceType: ResType.ANY } })!,
    /resourceType/,
  );
  assert.match(
    invalidBindingReason({ ...ok, pattern: { ...ok.pattern, patternType: PatternCode.MATCH } })!,
    /patternType MATCH/,
  );
  assert.match(invalidBindingReason({ ...ok, entry: { ...ok.entry, operation: AclOp.ANY } })!, /operation/);
  assert.match(
    invalidBindingReason({ ...ok, entry: { ...ok.entry, permission: Permission.ANY } })!,
    /permissionType/,
  );
  assert.match(invalidBindingReason({ ...ok, pattern: { ...ok.pattern, name: '' } })!, /empty/);
  assert.match(invalidBindingReason(acl(ResType.CLUSTER, 'c', 'User:a', AclOp.ALTER))!, /kafka-cluster/);
  assert.match(invalidBindingReason({ ...ok, entry: { ...ok.entry, principal: 'alice' } })!, /principal/);
});

test('a second authorizer on the same store follows the change notifications', async () => {
  const service = new MemoryMetadataService();
  const make = async () => {
    const a = new AclAuthorizer({
      store: service.connect(),
      superUsers: new Set(),
      allowEveryoneIfNoAclFound: false,
      logger: { log() {} },
    });
    await a.start();
    return a;
  };
  const one = await make();
  const two = await make();
  await one.create([acl(ResType.TOPIC, 't', 'User:alice', AclOp.READ)]);
  const deadline = Date.now() + scaled(10_000);
  while (!two.authorize(alice, AclOp.READ, ResType.TOPIC, 't')) {
    assert.ok(Date.now() < deadline, 'timed out waiting for the second authorizer');
    await new Promise((r) => setTimeout(r, 10));
  }
  // Concurrent creations on one resource from both: neither is lost (conditional writes).
  await Promise.all([
    one.create([acl(ResType.TOPIC, 'shared', 'User:a1', AclOp.READ)]),
    two.create([acl(ResType.TOPIC, 'shared', 'User:a2', AclOp.READ)]),
    one.create([acl(ResType.TOPIC, 'shared', 'User:a3', AclOp.READ)]),
  ]);
  const stored = await service
    .connect()
    .acls({ resourceType: 'Topic', patternType: 'LITERAL', name: 'shared' });
  assert.deepEqual(stored.acls.map((e) => e.principal).sort(), ['User:a1', 'User:a2', 'User:a3']);
});

test('memoised decisions follow ACL changes, re-authentication and each (principal, host)', async () => {
  const a = await authorizer([acl(ResType.TOPIC, 't', 'User:alice', AclOp.READ)]);
  const c = conn('User:alice');
  const other = conn('User:alice', '10.0.0.2');
  // Asked twice (the second answer from the memo), and per operation within one name.
  for (let i = 0; i < 2; i++) {
    assert.equal(a.authorize(c, AclOp.READ, ResType.TOPIC, 't'), true);
    assert.equal(a.authorize(c, AclOp.DESCRIBE, ResType.TOPIC, 't'), true);
    assert.equal(a.authorize(c, AclOp.WRITE, ResType.TOPIC, 't'), false);
    assert.equal(a.authorize(c, AclOp.READ, ResType.GROUP, 't'), false);
  }
  // A DENY for one host only: the other connection of the same principal keeps its answer.
  await a.create([
    acl(ResType.TOPIC, 't', 'User:alice', AclOp.READ, Permission.DENY, PatternCode.LITERAL, '10.0.0.1'),
  ]);
  assert.equal(a.authorize(c, AclOp.READ, ResType.TOPIC, 't'), false);
  assert.equal(a.authorize(other, AclOp.READ, ResType.TOPIC, 't'), true);
  await a.create([acl(ResType.TOPIC, 't', 'User:alice', AclOp.WRITE)]);
  assert.equal(a.authorize(c, AclOp.WRITE, ResType.TOPIC, 't'), true);
  await a.delete([{ ...ANY_FILTER, permission: Permission.DENY }]);
  assert.equal(a.authorize(c, AclOp.READ, ResType.TOPIC, 't'), true);
  // The connection re-authenticates as someone else (its security context is replaced).
  c.security = { ...c.security!, principal: 'User:bob' };
  assert.equal(a.authorize(c, AclOp.READ, ResType.TOPIC, 't'), false);
  c.security = { ...c.security, principal: 'User:alice' };
  assert.equal(a.authorize(c, AclOp.READ, ResType.TOPIC, 't'), true);
  // Thousands of names: the memo starts over rather than grow without bound, answers unchanged.
  for (let i = 0; i < 25_000; i++) assert.equal(a.authorize(c, AclOp.READ, ResType.TOPIC, `n-${i}`), false);
  assert.equal(a.authorize(c, AclOp.READ, ResType.TOPIC, 't'), true);
  a.close();
});
