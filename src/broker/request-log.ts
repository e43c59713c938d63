// Request logging at debug, Kafka's `kafka.request.logger`: one line per completed request with
// the API name and version, correlation id, client id, principal, listener, client address,
// time and response size. Never the request or response body (credentials travel in
// SaslAuthenticate and in some configs). The dispatcher builds a RequestLog only when its
// logger says debug is enabled, so with debug off a request costs one null check.

import { requestHeaderVersion } from '../protocol/messages/header-versions.js';
import type { Logger } from './logger.js';
import type { ConnectionContext, RequestOutcome } from './network/connection.js';

export const REQUEST_LOGGER = 'kafka.request.logger';

/** ApiKey int16 + ApiVersion int16 + CorrelationId int32, then (header v1+) ClientId int16 string. */
const FIXED_HEADER_BYTES = 8;
const CLIENT_ID_OFFSET = FIXED_HEADER_BYTES;

export class RequestLog {
  private constructor(
    private readonly logger: Logger,
    private readonly apiName: (key: number) => string | undefined,
  ) {}

  /** A RequestLog when `logger` says debug lines are written, else null (nothing to do). */
  static ifEnabled(logger: Logger, apiName: (key: number) => string | undefined): RequestLog | null {
    return logger.enabled?.('debug') === true ? new RequestLog(logger, apiName) : null;
  }

  /**
   * Runs `handle` and logs the request once its response has been handed to the kernel (or at
   * once when there is none). The header is read before `handle` runs: the frame may be reused
   * once it has resolved.
   */
  async around(
    frame: Buffer,
    conn: ConnectionContext,
    handle: () => Promise<RequestOutcome>,
  ): Promise<RequestOutcome> {
    const startedAt = performance.now();
    const h = frame.length >= FIXED_HEADER_BYTES ? headerOf(frame) : null;
    const outcome = await handle();
    if (h === null) return outcome;
    const log = (responseBytes: number, closed?: string) => {
      const security = conn.security;
      this.logger.log('debug', 'Completed request', {
        logger: REQUEST_LOGGER,
        api: this.apiName(h.key) ?? `ApiKey(${h.key})`,
        apiVersion: h.version,
        correlationId: h.correlationId,
        clientId: h.clientId,
        principal: security?.principal ?? 'User:ANONYMOUS',
        listener: security?.listenerName ?? 'PLAINTEXT',
        securityProtocol: security?.securityProtocol ?? 'PLAINTEXT',
        clientAddress: conn.remoteAddress,
        clientSoftware: `${conn.clientSoftwareName}/${conn.clientSoftwareVersion}`,
        totalTimeMs: Math.round((performance.now() - startedAt) * 1000) / 1000,
        requestBytes: frame.length,
        responseBytes,
        ...(closed !== undefined ? { closed } : {}),
      });
    };
    if (outcome.kind === 'none') {
      log(0);
      return outcome;
    }
    if (outcome.kind === 'close') {
      log(0, outcome.reason);
      return outcome;
    }
    let bytes = 0;
    for (const c of outcome.chunks) bytes += c.length;
    const onSent = outcome.onSent;
    return {
      ...outcome,
      onSent: () => {
        onSent?.();
        log(bytes);
      },
    };
  }
}

function headerOf(frame: Buffer): {
  key: number;
  version: number;
  correlationId: number;
  clientId: string | null;
} {
  const key = frame.readInt16BE(0);
  const version = frame.readInt16BE(2);
  const correlationId = frame.readInt32BE(4);
  let clientId: string | null = null;
  // Header v0 (ControlledShutdown v0) has no client id.
  if (frame.length >= CLIENT_ID_OFFSET + 2 && requestHeaderVersion(key, version) > 0) {
    const len = frame.readInt16BE(CLIENT_ID_OFFSET);
    const end = CLIENT_ID_OFFSET + 2 + len;
    if (len >= 0 && end <= frame.length) clientId = frame.toString('utf8', CLIENT_ID_OFFSET + 2, end);
  }
  return { key, version, correlationId, clientId };
}
