// Turns a request frame into an outcome for the connection: reads the fixed header prefix,
// finds the handler, checks the version, decodes, handles, encodes. Failure modes follow Kafka's
// SocketServer: an unknown API key, an unsupported version (except ApiVersions) or a body that
// does not decode closes the connection; ApiVersions with an unknown version gets the KIP-511
// answer (v0 body, UNSUPPORTED_VERSION, our key-18 range).

import { ErrorCode } from '../../protocol/errors.js';
import { decodeRequestHeader, encodeResponse } from '../../protocol/messages/frame.js';
import { apiVersionsApi } from '../../protocol/messages/generated/api-versions.js';
import { DecodeError } from '../../protocol/primitives/errors.js';
import type { ConnectionContext, RequestHandler, RequestOutcome } from '../network/connection.js';
import { apiVersionsResponse } from './18-api-versions.js';
import { CloseConnection, NO_RESPONSE, type RequestContext } from './api.js';
import type { BrokerServices } from './services.js';

const API_VERSIONS_KEY = 18;
/** ApiKey int16 + ApiVersion int16 + CorrelationId int32. */
const FIXED_HEADER_BYTES = 8;

const close = (reason: string): RequestOutcome => ({ kind: 'close', reason });

/** Runs every callback, the first time only. */
function once(callbacks: readonly (() => void)[]): () => void {
  let done = false;
  return () => {
    if (done) return;
    done = true;
    for (const cb of callbacks) cb();
  };
}

export class Dispatcher implements RequestHandler {
  constructor(private readonly services: BrokerServices) {}

  canPipeline(frame: Buffer): boolean {
    if (frame.length < 2) return false;
    return this.services.registry.get(frame.readInt16BE(0))?.pipelinable === true;
  }

  releasesFrame(frame: Buffer): boolean {
    if (frame.length < 2) return false;
    return this.services.registry.get(frame.readInt16BE(0))?.releasesRequest === true;
  }

  async handle(frame: Buffer, conn: ConnectionContext): Promise<RequestOutcome> {
    if (frame.length < FIXED_HEADER_BYTES) return close(`truncated request header (${frame.length} bytes)`);
    const key = frame.readInt16BE(0);
    const version = frame.readInt16BE(2);
    const correlationId = frame.readInt32BE(4);
    const handler = this.services.registry.get(key);
    if (!handler) return close(`unknown API key ${key}`);
    if (version < handler.minVersion || version > handler.maxVersion) {
      if (key !== API_VERSIONS_KEY) return close(`unsupported version ${version} of API key ${key}`);
      const body = apiVersionsResponse(ErrorCode.UNSUPPORTED_VERSION, [
        { apiKey: API_VERSIONS_KEY, minVersion: handler.minVersion, maxVersion: handler.maxVersion },
      ]);
      return { kind: 'respond', chunks: encodeResponse(apiVersionsApi, 0, correlationId, body) };
    }
    let ctx: RequestContext;
    let request: unknown;
    const sent: (() => void)[] = [];
    try {
      const { header, reader } = decodeRequestHeader(frame);
      request = handler.api.readRequest(reader, version);
      ctx = { header, version, conn, broker: this.services, onResponseSent: (cb) => sent.push(cb) };
    } catch (e) {
      if (e instanceof DecodeError)
        return close(`malformed ${handler.api.name} v${version} request: ${e.message}`);
      throw e;
    }
    const result = await handler.handle(ctx, request);
    const onSent = sent.length === 0 ? undefined : once(sent);
    if (result === NO_RESPONSE || result instanceof CloseConnection) {
      onSent?.();
      return result === NO_RESPONSE ? { kind: 'none' } : close(result.reason);
    }
    const chunks = encodeResponse(handler.api, version, correlationId, result);
    return onSent ? { kind: 'respond', chunks, onSent } : { kind: 'respond', chunks };
  }
}
