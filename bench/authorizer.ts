// What ACL authorization costs a request: the handlers' check (`apis/authorize.ts`) with 10,000
// ACLs (5,000 literal, 5,000 prefixed, over several principals) against the same check on a
// broker without an authorizer, in the same process and run, rounds alternating. "Seen names"
// asks about 1,000 topics over and over (the authorizer memoises each (principal, host)'s
// decisions until any ACL changes: a busy broker's case); "new names" asks about a name never
// asked before each time (the decision from the index: the literal map, the `*` entry and a walk
// of the prefix trie, then memoised). Names are built before the clock starts.
//
//   npx tsx bench/authorizer.ts [--rounds N] [--checks N]

import { parseArgs } from 'node:util';
import type { RequestContext } from '../src/broker/apis/api.js';
import { AclOp, allowed, ResType } from '../src/broker/apis/authorize.js';
import type { BrokerServices } from '../src/broker/apis/services.js';
import { MemoryMetadataService } from '../src/broker/metadata/store/memory-store.js';
import type { ConnectionContext } from '../src/broker/network/connection.js';
import { type AclBinding, PatternCode, Permission } from '../src/broker/security/acl-model.js';
import { AclAuthorizer } from '../src/broker/security/authorizer.js';

const { values } = parseArgs({
  options: { rounds: { type: 'string', default: '7' }, checks: { type: 'string', default: '1000000' } },
});
const ROUNDS = Number(values.rounds);
const CHECKS = Number(values.checks);
const ACLS = 10_000;
const TOPICS = 1000;

const conn: ConnectionContext = {
  id: 1,
  remoteAddress: '10.1.2.3:50000',
  security: { listenerName: 'SASL_SSL', securityProtocol: 'SASL_SSL', principal: 'User:app-7' },
  clientSoftwareName: '',
  clientSoftwareVersion: '',
};
const ctxWith = (authorizer?: AclAuthorizer): RequestContext =>
  ({
    conn,
    broker: (authorizer ? { authorizer } : {}) as BrokerServices,
  }) as RequestContext;

async function main(): Promise<void> {
  const authorizer = new AclAuthorizer({
    store: new MemoryMetadataService().connect(),
    superUsers: new Set(['User:admin']),
    allowEveryoneIfNoAclFound: false,
    logger: { log() {} },
  });
  await authorizer.start();
  const bindings: AclBinding[] = [];
  for (let i = 0; i < ACLS / 2; i++)
    bindings.push({
      pattern: {
        resourceType: ResType.TOPIC,
        patternType: PatternCode.LITERAL,
        name: `topic-${i % TOPICS}-${i}`,
      },
      entry: {
        principal: `User:app-${i % 50}`,
        host: '*',
        operation: AclOp.WRITE,
        permission: Permission.ALLOW,
      },
    });
  for (let i = 0; i < ACLS / 2; i++)
    bindings.push({
      pattern: { resourceType: ResType.TOPIC, patternType: PatternCode.PREFIXED, name: `team-${i}-` },
      entry: {
        principal: `User:app-${i % 50}`,
        host: '*',
        operation: AclOp.READ,
        permission: Permission.ALLOW,
      },
    });
  // The principal's own: every `topic-<n>-` topic through one prefix, one DENY to scan past.
  bindings.push({
    pattern: { resourceType: ResType.TOPIC, patternType: PatternCode.PREFIXED, name: 'topic-' },
    entry: { principal: 'User:app-7', host: '*', operation: AclOp.WRITE, permission: Permission.ALLOW },
  });
  bindings.push({
    pattern: { resourceType: ResType.TOPIC, patternType: PatternCode.LITERAL, name: '*' },
    entry: { principal: 'User:banned', host: '*', operation: AclOp.ALL, permission: Permission.DENY },
  });
  await authorizer.create(bindings);
  console.log(`ACLs loaded: ${authorizer.aclCount}`);

  const names = Array.from({ length: TOPICS }, (_, i) => `topic-${i}-x`);
  let round = 0;
  const run = (ctx: RequestContext, cold: boolean): number => {
    let ok = 0;
    // Cold names are made (flat, as names read off the wire are) before the clock starts, new
    // ones every run: only the authorizer's work is timed.
    const asked = cold ? Array.from({ length: CHECKS }, (_, i) => `topic-${i}-cold-${round}`) : names;
    round++;
    for (const n of asked) n.charCodeAt(0);
    const modulo = asked.length;
    const t0 = process.hrtime.bigint();
    for (let i = 0; i < CHECKS; i++) {
      if (allowed(ctx, AclOp.WRITE, ResType.TOPIC, asked[i % modulo]!)) ok++;
    }
    const ns = Number(process.hrtime.bigint() - t0) / CHECKS;
    if (ok !== CHECKS) throw new Error(`only ${ok} of ${CHECKS} checks allowed`);
    return ns;
  };
  const none = ctxWith();
  const acl = ctxWith(authorizer);
  const results = {
    none: [] as number[],
    warm: [] as number[],
    noneCold: [] as number[],
    cold: [] as number[],
  };
  for (let r = 0; r < ROUNDS; r++) {
    results.none.push(run(none, false));
    results.warm.push(run(acl, false));
    results.noneCold.push(run(none, true));
    results.cold.push(run(acl, true));
  }
  const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
  const m = Object.fromEntries(Object.entries(results).map(([k, v]) => [k, median(v)])) as Record<
    keyof typeof results,
    number
  >;
  console.log(`no authorizer:            ${m.none.toFixed(1)} ns per check`);
  console.log(
    `10,000 ACLs, seen names:  ${m.warm.toFixed(1)} ns per check (${(m.warm / m.none).toFixed(1)}x)`,
  );
  console.log(`no authorizer, new names: ${m.noneCold.toFixed(1)} ns per check`);
  console.log(
    `10,000 ACLs, new names:   ${m.cold.toFixed(1)} ns per check (${(m.cold / m.noneCold).toFixed(1)}x)`,
  );
  authorizer.close();
}

await main();
