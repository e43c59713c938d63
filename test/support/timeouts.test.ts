// The test helpers' timeouts and the testkit's start limits: scaled by SAMSA_TEST_TIMEOUT_SCALE,
// and a wait that expires says "timed out" (the raw client used to report its response timeout as
// "connection closed").
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { createServer, type Server, type Socket } from 'node:net';
import { test } from 'node:test';
import { apiVersionsApi } from '../../src/protocol/messages/generated/api-versions.js';
import { RawClient } from '../broker/support/raw-client.js';
import { LOADER_FLAGS, moduleUrl } from './repo.js';
import { TIMEOUT_SCALE } from './timeouts.js';

const TIMEOUTS = moduleUrl('test/support/timeouts.ts');
const TESTKIT_SCALE = moduleUrl('src/testkit/timeout-scale.ts');

/** `scaled(1000)` of the test helpers and `scaledLimit(1000)` of the testkit, with the knob at `env`. */
function scaleIn(env: string | undefined): { status: number | null; out: string } {
  const code = `Promise.all([import(${JSON.stringify(TIMEOUTS)}), import(${JSON.stringify(TESTKIT_SCALE)})]).then(([t, k]) => console.log(t.scaled(1000), k.scaledLimit(1000)), (e) => { console.error(e.message); process.exit(3); })`;
  const r = spawnSync(process.execPath, [...LOADER_FLAGS, '-e', code], {
    env: { ...process.env, SAMSA_TEST_TIMEOUT_SCALE: env ?? '' },
    encoding: 'utf8',
  });
  return { status: r.status, out: `${r.stdout}${r.stderr}`.trim() };
}

test('scaled() and the testkit start limits multiply by SAMSA_TEST_TIMEOUT_SCALE, 1 when unset; a bad value is refused', () => {
  assert.deepEqual(scaleIn(undefined), { status: 0, out: '1000 1000' });
  assert.deepEqual(scaleIn('2.5'), { status: 0, out: '2500 2500' });
  const bad = scaleIn('fast');
  assert.equal(bad.status, 3);
  assert.match(bad.out, /SAMSA_TEST_TIMEOUT_SCALE must be a positive number/);
});

async function silentServer(): Promise<{ server: Server; port: number; sockets: Socket[] }> {
  const sockets: Socket[] = [];
  const server = createServer((s) => {
    sockets.push(s);
    s.on('error', () => {});
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const addr = server.address();
  return { server, port: typeof addr === 'object' && addr !== null ? addr.port : 0, sockets };
}

test('the raw client: an unanswered request "timed out", a dropped connection "closed"', async () => {
  const { server, port, sockets } = await silentServer();
  try {
    const c = await RawClient.connect(port);
    const body = { clientSoftwareName: 't', clientSoftwareVersion: '1' };
    const ms = Math.round(200 * TIMEOUT_SCALE);
    await assert.rejects(c.request(apiVersionsApi, 3, body, 200), {
      message: `timed out after ${ms} ms waiting for the ApiVersions v3 response`,
    });
    const pending = c.request(apiVersionsApi, 3, body, 60_000);
    for (const s of sockets) s.destroy();
    await assert.rejects(pending, /connection closed while waiting for ApiVersions v3/);
    c.close();
  } finally {
    server.close();
  }
});
