// The codec-free version table (generated/api-metadata.ts) that header parsing and the broker use
// must say exactly what the full descriptors say, and importing the frame/header functions must
// not load the codec table (that is what keeps the broker's start-up cheap).

import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { test } from 'node:test';
import { API_METADATA } from '../../../src/protocol/messages/generated/api-metadata.js';
import { GENERATED_APIS } from '../../../src/protocol/messages/generated/index.js';
import { metadataApi } from '../../../src/protocol/messages/generated/metadata.js';
import { apiMetadata } from '../../../src/protocol/messages/header-versions.js';
import { decodeResponse, encodeRequest, encodeResponse } from '../../../src/protocol/messages/index.js';
import { LOADER_FLAGS, moduleUrl } from '../../support/repo.js';

test('API_METADATA matches every generated descriptor', () => {
  assert.equal(API_METADATA.length, GENERATED_APIS.length);
  for (const d of GENERATED_APIS) {
    const m = apiMetadata(d.key);
    assert.ok(m, `key ${d.key}`);
    assert.deepEqual(
      { key: m.key, name: m.name, min: m.minVersion, max: m.maxVersion, flex: m.flexibleMinVersion },
      { key: d.key, name: d.name, min: d.minVersion, max: d.maxVersion, flex: d.flexibleMinVersion },
    );
  }
  assert.equal(apiMetadata(-1), undefined);
  assert.equal(apiMetadata(9999), undefined);
});

test('the public frame functions accept a key or a descriptor alike', () => {
  const body = {
    topics: null,
    allowAutoTopicCreation: true,
    includeClusterAuthorizedOperations: false,
    includeTopicAuthorizedOperations: false,
  };
  assert.deepEqual(
    Buffer.concat(encodeRequest(3, 9, 7, 'c', body)),
    Buffer.concat(encodeRequest(metadataApi, 9, 7, 'c', body)),
  );
  const res = {
    throttleTimeMs: 0,
    brokers: [],
    clusterId: null,
    controllerId: 1,
    topics: [],
    clusterAuthorizedOperations: -2147483648,
  };
  const frame = Buffer.concat(encodeResponse(3, 9, 5, res)).subarray(4);
  assert.equal(decodeResponse(metadataApi, 9, frame).body.controllerId, 1);
  assert.equal(decodeResponse(3, 9, frame).correlationId, 5);
  assert.throws(() => encodeRequest(9999, 0, 1, null, {}), /unknown API key/);
});

test('frame.ts and header.ts load no codec module of an API they are not given', () => {
  // A fresh process with a resolve hook that records every generated module it loads.
  const script = `
    import { register } from 'node:module';
    const seen = [];
    const { port1, port2 } = new MessageChannel();
    port1.on('message', (u) => seen.push(u));
    port1.unref();
    register('data:text/javascript,' + encodeURIComponent(\`
      let port;
      export function initialize(d) { port = d.port; }
      export async function resolve(s, c, next) { const r = await next(s, c); port.postMessage(r.url); return r; }
    \`), { parentURL: import.meta.url, data: { port: port2 }, transferList: [port2] });
    await import(${JSON.stringify(moduleUrl('src/protocol/messages/frame.ts'))});
    await new Promise((r) => setTimeout(r, 50));
    const codecs = seen.filter((u) => u.includes('/generated/') && !/(request-header|api-metadata)\\.[jt]s$/.test(u));
    process.stdout.write(JSON.stringify(codecs));
  `;
  const r = spawnSync(process.execPath, [...LOADER_FLAGS, '--input-type=module', '-e', script], {
    encoding: 'utf8',
    timeout: 60_000,
  });
  assert.equal(r.status, 0, r.stderr);
  assert.deepEqual(JSON.parse(r.stdout.trim().split('\n').at(-1)!), []);
});
