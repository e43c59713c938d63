// Small HTTP helpers of the console: JSON answers, bounded JSON bodies, API errors with a status.
import type { IncomingMessage, ServerResponse } from 'node:http';
import { KafkaClientError, KafkaResponseError } from '../client/index.js';

/** Request bodies are a form's worth of JSON (a produced message included). */
export const MAX_BODY_BYTES = 1024 * 1024;

/** An error the API answers with its own status (400 bad input, 403 read-only, 404, 409). */
export class ApiError extends Error {
  override name = 'ApiError';
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

export function sendJson(res: ServerResponse, status: number, body: unknown): void {
  const text = JSON.stringify(body);
  res.writeHead(status, {
    'Content-Type': 'application/json; charset=utf-8',
    'Cache-Control': 'no-store',
  });
  res.end(text);
}

/**
 * Kafka's errors keep their name (UNKNOWN_TOPIC_OR_PARTITION → 404, TOPIC_ALREADY_EXISTS → 409,
 * TOPIC_AUTHORIZATION_FAILED and the other ACL refusals → 403).
 */
export function sendError(res: ServerResponse, e: unknown): void {
  if (e instanceof ApiError) sendJson(res, e.status, { error: e.message });
  else if (e instanceof KafkaResponseError) {
    const status =
      e.code === 'UNKNOWN_TOPIC_OR_PARTITION' || e.code === 'GROUP_ID_NOT_FOUND'
        ? 404
        : e.code === 'TOPIC_ALREADY_EXISTS' || e.code === 'NON_EMPTY_GROUP'
          ? 409
          : e.code.startsWith('INVALID_') || e.code === 'POLICY_VIOLATION'
            ? 400
            : e.code.endsWith('_AUTHORIZATION_FAILED')
              ? 403
              : 502;
    sendJson(res, status, { error: e.message, code: e.code });
  } else if (e instanceof KafkaClientError) sendJson(res, 502, { error: e.message, code: e.code });
  else sendJson(res, 500, { error: e instanceof Error ? e.message : String(e) });
}

/** The JSON body of a write; anything but `application/json` is refused (cross-site forms can't send it). */
export async function readJsonBody(
  req: IncomingMessage,
  limit = MAX_BODY_BYTES,
): Promise<Record<string, unknown>> {
  const type = (req.headers['content-type'] ?? '').split(';', 1)[0]!.trim().toLowerCase();
  if (type !== 'application/json')
    throw new ApiError(415, 'writes take a JSON body (Content-Type: application/json)');
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    size += (chunk as Buffer).length;
    if (size > limit) throw new ApiError(413, `request body over ${limit} bytes`);
    chunks.push(chunk as Buffer);
  }
  const text = Buffer.concat(chunks).toString('utf8');
  let body: unknown;
  try {
    body = text === '' ? {} : JSON.parse(text);
  } catch {
    throw new ApiError(400, 'the body is not valid JSON');
  }
  if (body === null || typeof body !== 'object' || Array.isArray(body))
    throw new ApiError(400, 'the body must be a JSON object');
  return body as Record<string, unknown>;
}

/** Offsets travel as JSON numbers (exact below 2^53, far past any real log). */
export const num = (b: bigint): number => Number(b);

export function intParam(v: unknown, name: string, min = 0): number {
  const n = typeof v === 'string' && v.trim() !== '' ? Number(v) : v;
  if (typeof n !== 'number' || !Number.isInteger(n) || n < min)
    throw new ApiError(400, `${name} must be an integer ≥ ${min}`);
  return n;
}
