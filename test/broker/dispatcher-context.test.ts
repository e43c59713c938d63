// The dispatcher's request context and outcome, against handlers written for the test (one API
// key, ApiVersions' codecs): a synchronous answer and a pending one give the same response; the
// callbacks a handler registers through `onResponseSent` — taken off the context as a plain
// function, as Fetch does — run once the connection reports the response sent, once only, with
// the metrics recorder; a handler that throws or rejects rejects `handle` (the connection then
// closes that connection only); a body that does not decode closes the connection without
// calling the handler; a handler's context carries the request's header.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { type ApiHandler, defineApi, type RequestContext } from '../../src/broker/apis/api.js';
import { Dispatcher } from '../../src/broker/apis/dispatcher.js';
import { ApiRegistry } from '../../src/broker/apis/registry.js';
import type { BrokerServices } from '../../src/broker/apis/services.js';
import type { ConnectionContext, RequestOutcome } from '../../src/broker/network/connection.js';
import { decodeResponse, encodeRequest } from '../../src/protocol/messages/frame.js';
import {
  type ApiVersionsRequest,
  type ApiVersionsResponse,
  apiVersionsApi,
} from '../../src/protocol/messages/generated/api-versions.js';

const CONN: ConnectionContext = {
  id: 1,
  remoteAddress: '127.0.0.1:5000',
  clientSoftwareName: 'test',
  clientSoftwareVersion: '1',
} as ConnectionContext;

function body(errorCode: number): ApiVersionsResponse {
  return {
    errorCode,
    apiKeys: [{ apiKey: 18, minVersion: 0, maxVersion: 3 }],
    throttleTimeMs: 0,
    supportedFeatures: [],
    finalizedFeaturesEpoch: -1n,
    finalizedFeatures: [],
    zkMigrationReady: false,
  };
}

function dispatcherWith(handle: ApiHandler<ApiVersionsRequest, ApiVersionsResponse>['handle']): Dispatcher {
  const handler = defineApi<ApiVersionsRequest, ApiVersionsResponse>({
    api: apiVersionsApi,
    minVersion: 0,
    maxVersion: 3,
    handle,
  });
  const services = {
    registry: new ApiRegistry([handler]),
    logger: { log() {}, enabled: () => false },
  } as unknown as BrokerServices;
  return new Dispatcher(services);
}

function frame(correlationId: number): Buffer {
  const chunks = encodeRequest(apiVersionsApi, 3, correlationId, 'dispatcher-test', {
    clientSoftwareName: 'test',
    clientSoftwareVersion: '1',
  });
  return Buffer.concat(chunks).subarray(4);
}

function answered(outcome: RequestOutcome): { correlationId: number; errorCode: number } {
  assert.equal(outcome.kind, 'respond');
  if (outcome.kind !== 'respond') throw new Error('unreachable');
  const { correlationId, body } = decodeResponse(
    apiVersionsApi,
    3,
    Buffer.concat(outcome.chunks).subarray(4),
  );
  return { correlationId, errorCode: body.errorCode };
}

test('a synchronous and a pending answer give the same response; the context carries the header', async () => {
  const seen: RequestContext[] = [];
  const sync = dispatcherWith((ctx) => {
    seen.push(ctx);
    return body(0);
  });
  const pending = dispatcherWith(async (ctx) => {
    seen.push(ctx);
    await new Promise((r) => setImmediate(r));
    return body(0);
  });
  const a = await sync.handle(frame(41), CONN);
  const b = await pending.handle(frame(42), CONN);
  assert.deepEqual(answered(a), { correlationId: 41, errorCode: 0 });
  assert.deepEqual(answered(b), { correlationId: 42, errorCode: 0 });
  assert.equal(a.kind === 'respond' ? a.onSent : 'none', undefined, 'nothing to run after the send');
  assert.deepEqual(
    seen.map((c) => [c.header.correlationId, c.header.clientId, c.version, c.conn.id]),
    [
      [41, 'dispatcher-test', 3, 1],
      [42, 'dispatcher-test', 3, 1],
    ],
  );
});

test('callbacks registered through onResponseSent run once the response is sent, once', async () => {
  const ran: string[] = [];
  const d = dispatcherWith(async (ctx) => {
    // Taken off the context and called unbound, as Fetch's pooled reads do.
    const onSent = ctx.onResponseSent;
    assert.ok(onSent);
    onSent(() => ran.push('first'));
    await new Promise((r) => setImmediate(r));
    onSent(() => ran.push('second'));
    return body(0);
  });
  const out = await d.handle(frame(7), CONN);
  assert.deepEqual(answered(out), { correlationId: 7, errorCode: 0 });
  assert.deepEqual(ran, [], 'not before the connection reports the response sent');
  assert.ok(out.kind === 'respond' && out.onSent);
  out.onSent();
  out.onSent();
  assert.deepEqual(ran, ['first', 'second']);
});

test('a handler that throws or rejects rejects handle; a body that does not decode closes', async () => {
  const throwing = dispatcherWith(() => {
    throw new Error('boom');
  });
  let returned: Promise<RequestOutcome> | undefined;
  assert.doesNotThrow(() => {
    returned = throwing.handle(frame(1), CONN);
  }, 'a synchronous throw becomes a rejection');
  await assert.rejects(returned as Promise<RequestOutcome>, /boom/);
  const rejecting = dispatcherWith(async () => {
    throw new Error('later');
  });
  await assert.rejects(rejecting.handle(frame(2), CONN), /later/);

  let called = false;
  const d = dispatcherWith(() => {
    called = true;
    return body(0);
  });
  const truncated = frame(3).subarray(0, frame(3).length - 3);
  const out = await d.handle(truncated, CONN);
  assert.equal(out.kind, 'close');
  assert.match(out.kind === 'close' ? out.reason : '', /malformed ApiVersions v3 request/);
  assert.equal(called, false);
  // The dispatcher still answers the next request.
  assert.deepEqual(answered(await d.handle(frame(4), CONN)), { correlationId: 4, errorCode: 0 });
});
