// A broker as seen from an outbound connection (the client's, or a broker's controller channel
// and replica fetcher): one lazily (re)opened Connection plus the API version ranges the broker
// advertised in ApiVersions. Every request picks the highest version both sides support, so we
// never send a version a broker removed (Kafka 4 dropped many old ones).
// Reconnects wait an exponential backoff with jitter after each failed attempt.
// A response with throttle_time_ms > 0, in a version where Kafka's broker answers before it
// throttles (KIP-219), holds this broker's next requests for that long (the connection's
// `throttle`; a reconnect inherits what is left), as Java's NetworkClient does.

import { ErrorCode } from '../protocol/errors.js';
import { type ApiVersionsResponse, apiVersionsApi } from '../protocol/messages/generated/api-versions.js';
import type { ApiDescriptor } from '../protocol/messages/runtime.js';
import { Reader } from '../protocol/primitives/reader.js';
import { Writer } from '../protocol/primitives/writer.js';
import { backoffMs } from './backoff.js';
import { Connection, type TlsConnectOptions } from './connection.js';
import { ClientClosedError, KafkaResponseError, UnsupportedVersionError } from './errors.js';
import { saslAuthenticate } from './sasl/sasl-client.js';
import type { SaslOptions } from './sasl/sasl-options.js';

/**
 * Share of a SASL session's lifetime (KIP-368) after which the link opens a fresh, newly
 * authenticated connection for new requests instead of re-authenticating in band; the old one
 * closes once its in-flight requests are answered, before the broker would close it.
 */
const REAUTH_AT = 0.85;

/**
 * What a link needs to know, and nothing client-specific: the client passes its resolved
 * options (a superset), a broker builds one for its inter-broker traffic with its own client id.
 */
export interface BrokerLinkOptions {
  /** The client id of every request header. */
  clientId: string;
  /** socket.connection.setup.timeout.ms: time allowed for the TCP handshake, default 10000. */
  connectionTimeoutMs?: number;
  /** request.timeout.ms: default time a request may stay unanswered, default 30000. */
  requestTimeoutMs?: number;
  /** reconnect.backoff.ms / reconnect.backoff.max.ms, defaults 50 / 1000. */
  reconnectBackoffMs?: number;
  reconnectBackoffMaxMs?: number;
  /** Larger response frames close the connection as garbage; default 512 MiB. */
  maxResponseBytes?: number;
  /** Connect with TLS (security.protocol=SSL); absent = plaintext. */
  tls?: TlsConnectOptions;
  /** Authenticate every connection with SASL (security.protocol=SASL_PLAINTEXT / SASL_SSL). */
  sasl?: SaslOptions;
  /** Sent in ApiVersions v3+ (KIP-511); defaults CLIENT_SOFTWARE_NAME / CLIENT_SOFTWARE_VERSION. */
  clientSoftwareName?: string;
  clientSoftwareVersion?: string;
  /** Told of every throttle a broker imposes (KIP-219), after the link has applied it. */
  onThrottle?: (event: ThrottleEvent) => void;
}

/** A broker's throttle_time_ms > 0 in a response: requests to it are held that long. */
export interface ThrottleEvent {
  readonly nodeId: number;
  readonly host: string;
  readonly port: number;
  /** The API of the response that carried it. */
  readonly apiKey: number;
  readonly throttleTimeMs: number;
}

interface ResolvedLinkOptions {
  clientId: string;
  connectionTimeoutMs: number;
  requestTimeoutMs: number;
  reconnectBackoffMs: number;
  reconnectBackoffMaxMs: number;
  maxResponseBytes: number | undefined;
  tls: TlsConnectOptions | undefined;
  sasl: SaslOptions | undefined;
  clientSoftwareName: string;
  clientSoftwareVersion: string;
  onThrottle: ((event: ThrottleEvent) => void) | undefined;
}

export interface RequestOptions {
  /** Lowest version the caller can use (e.g. 3 for Produce: only RecordBatch v2). */
  minVersion?: number;
  /** Highest version the caller can use (defaults to the schema maximum). */
  maxVersion?: number;
  timeoutMs?: number;
  /** False for Produce with acks=0. */
  expectResponse?: boolean;
}

/** Kafka's finalized features (ApiVersions v3+): feature name → level; epoch -1 = none reported. */
export interface FinalizedFeatures {
  readonly epoch: bigint;
  readonly levels: ReadonlyMap<string, number>;
}

export const NO_FINALIZED_FEATURES: FinalizedFeatures = Object.freeze({ epoch: -1n, levels: new Map() });

export const CLIENT_SOFTWARE_NAME = 'samsa';
export const CLIENT_SOFTWARE_VERSION = '0.1.0';
/** ApiVersions version tried first; a broker that lacks it answers v0 with its own maximum. */
const APIVERSIONS_FIRST = 3;

// Frames are encoded from the API descriptor alone, with the header rules of
// protocol/messages/apis.ts, instead of through messages/index.js: that module's API table
// imports every generated codec (broker-internal APIs included, ~1 MB of code), which cost a
// client process ~30 MB of RSS for code it never runs.
const API_KEY_CONTROLLED_SHUTDOWN = 7;

function requestHeaderVersion(api: ApiDescriptor<unknown, unknown>, version: number): number {
  if (api.key === API_KEY_CONTROLLED_SHUTDOWN && version === 0) return 0;
  return version >= api.flexibleMinVersion ? 2 : 1;
}

function responseHeaderVersion(api: ApiDescriptor<unknown, unknown>, version: number): number {
  if (api.key === apiVersionsApi.key) return 0; // KIP-511: always v0
  return version >= api.flexibleMinVersion ? 1 : 0;
}

/** A size-prefixed request frame (header + body) as chunks; record data is not copied. */
export function encodeClientRequest<Req>(
  api: ApiDescriptor<Req, unknown>,
  version: number,
  correlationId: number,
  clientId: string | null,
  body: Req,
): Buffer[] {
  const w = new Writer();
  const size = w.beginSize();
  const hv = requestHeaderVersion(api as ApiDescriptor<unknown, unknown>, version);
  w.int16(api.key);
  w.int16(version);
  w.int32(correlationId);
  if (hv >= 1) w.nullableString(clientId);
  if (hv >= 2) w.int8(0); // no tagged fields
  api.writeRequest(w, version, body);
  w.endSize(size);
  return w.finish();
}

/** Skips a response header (correlation id already checked by the connection). */
function skipResponseHeader(r: Reader, headerVersion: number): void {
  r.int32();
  if (headerVersion >= 1) r.skipTaggedFields();
}

function resolveLinkOptions(o: BrokerLinkOptions): ResolvedLinkOptions {
  const reconnectBackoffMs = o.reconnectBackoffMs ?? 50;
  return {
    clientId: o.clientId,
    connectionTimeoutMs: o.connectionTimeoutMs ?? 10000,
    requestTimeoutMs: o.requestTimeoutMs ?? 30000,
    reconnectBackoffMs,
    reconnectBackoffMaxMs: Math.max(reconnectBackoffMs, o.reconnectBackoffMaxMs ?? 1000),
    maxResponseBytes: o.maxResponseBytes,
    tls: o.tls,
    sasl: o.sasl,
    clientSoftwareName: o.clientSoftwareName ?? CLIENT_SOFTWARE_NAME,
    clientSoftwareVersion: o.clientSoftwareVersion ?? CLIENT_SOFTWARE_VERSION,
    onThrottle: o.onThrottle,
  };
}

/**
 * The first version of each API whose throttle_time_ms the client must honour itself (Kafka's
 * `shouldClientThrottle`): older versions were delayed by the broker instead. APIs absent here
 * (e.g. DescribeClientQuotas, DescribeCluster) are never throttled client-side. Pairs: `key:version`.
 */
const CLIENT_THROTTLE_FROM: ReadonlyMap<number, number> = new Map(
  (
    '0:6 1:8 2:3 3:6 8:4 9:4 10:2 11:3 12:2 13:2 14:2 15:2 16:2 18:2 19:3 20:2 21:1 22:1 24:1 25:1 ' +
    '26:1 28:1 29:1 30:1 31:1 32:2 33:1 34:1 35:1 37:1 38:1 39:1 40:1 41:1 42:1 43:0 44:0 45:0 46:0 ' +
    '47:0 50:0 51:0 62:0 63:0 64:0 75:0'
  )
    .split(' ')
    .map((pair) => pair.split(':').map(Number) as [number, number]),
);

/** Does a response of this API version carry a throttle the client applies (KIP-219)? */
export function clientThrottles(apiKey: number, version: number): boolean {
  const from = CLIENT_THROTTLE_FROM.get(apiKey);
  return from !== undefined && version >= from;
}

export class BrokerLink {
  readonly nodeId: number;
  readonly host: string;
  readonly port: number;
  #opts: ResolvedLinkOptions;
  #conn: Connection | null = null;
  #ready: Promise<Connection> | null = null;
  #versions = new Map<number, { min: number; max: number }>();
  #features: FinalizedFeatures = NO_FINALIZED_FEATURES;
  #failures = 0;
  #nextAttemptAt = 0;
  #closed = false;
  /** When the current connection should be replaced (SASL session lifetime); Infinity = never. */
  #renewAt = Number.POSITIVE_INFINITY;
  /** The broker's last throttle ends then (ms since the epoch); outlives a reconnect. */
  #throttledUntil = 0;

  constructor(nodeId: number, host: string, port: number, opts: BrokerLinkOptions) {
    this.nodeId = nodeId;
    this.host = host;
    this.port = port;
    this.#opts = resolveLinkOptions(opts);
  }

  get connected(): boolean {
    return this.#conn?.connected === true;
  }

  /** close() was called: every request fails with ClientClosedError. */
  get closed(): boolean {
    return this.#closed;
  }

  get inFlight(): number {
    return this.#conn?.inFlight ?? 0;
  }

  /** Until when the broker throttles this client (ms since the epoch; past = not throttled). */
  get throttledUntil(): number {
    return this.#throttledUntil;
  }

  /** The finalized features of the broker's last ApiVersions answer (KIP-584). */
  get finalizedFeatures(): FinalizedFeatures {
    return this.#features;
  }

  /** Broker's [min, max] for an API key, once connected; undefined if it does not offer it. */
  brokerRange(key: number): { min: number; max: number } | undefined {
    return this.#versions.get(key);
  }

  /** Highest version of `api` in [caller min, caller max] ∩ broker range. */
  versionFor(api: ApiDescriptor<unknown, unknown>, o?: RequestOptions): number {
    const b = this.#versions.get(api.key);
    const min = Math.max(api.minVersion, o?.minVersion ?? 0, b?.min ?? Number.POSITIVE_INFINITY);
    const max = Math.min(api.maxVersion, o?.maxVersion ?? api.maxVersion, b?.max ?? -1);
    if (b === undefined || min > max) {
      throw new UnsupportedVersionError(
        `broker ${this.nodeId} (${this.host}:${this.port}) supports no usable version of ${api.name}` +
          (b
            ? ` (broker ${b.min}-${b.max}, client ${Math.max(api.minVersion, o?.minVersion ?? 0)}-${Math.min(api.maxVersion, o?.maxVersion ?? api.maxVersion)})`
            : ''),
      );
    }
    return max;
  }

  /** Connects and negotiates versions if needed (after the reconnect backoff). */
  ready(): Promise<Connection> {
    if (this.#closed) return Promise.reject(new ClientClosedError());
    const c = this.#conn;
    if (c?.connected && Date.now() >= this.#renewAt) this.#retire(c);
    else if (c?.connected) return Promise.resolve(c);
    if (this.#ready === null) {
      this.#ready = this.#open().finally(() => {
        this.#ready = null;
      });
    }
    return this.#ready;
  }

  async request<Req, Res>(
    api: ApiDescriptor<Req, Res>,
    body: Req | ((version: number) => Req),
    o?: RequestOptions,
  ): Promise<Res> {
    const conn = await this.ready();
    return this.requestOn(conn, api, body, o);
  }

  /** Sends on an already-open connection (synchronous write; used by the producer hot path). */
  requestOn<Req, Res>(
    conn: Connection,
    api: ApiDescriptor<Req, Res>,
    body: Req | ((version: number) => Req),
    o?: RequestOptions,
  ): Promise<Res> {
    const version = this.versionFor(api as ApiDescriptor<unknown, unknown>, o);
    const msg = typeof body === 'function' ? (body as (v: number) => Req)(version) : body;
    const clientId = this.#opts.clientId;
    const hv = responseHeaderVersion(api as ApiDescriptor<unknown, unknown>, version);
    const throttles = clientThrottles(api.key, version);
    return conn.send<Res>({
      build: (corr) => encodeClientRequest(api, version, corr, clientId, msg),
      parse: (frame) => {
        const r = new Reader(frame);
        skipResponseHeader(r, hv);
        const res = api.readResponse(r, version);
        // Applied here, before anyone sees the response, so nothing can slip out in between.
        if (throttles) {
          const ms = (res as { throttleTimeMs?: unknown }).throttleTimeMs;
          if (typeof ms === 'number' && ms > 0) this.#throttle(conn, api.key, ms);
        }
        return res;
      },
      expectResponse: o?.expectResponse ?? true,
      timeoutMs: o?.timeoutMs,
    });
  }

  /** The open connection if there is one (no connect attempt). */
  currentConnection(): Connection | null {
    const c = this.#conn;
    if (c?.connected && Date.now() >= this.#renewAt) {
      this.#retire(c);
      return null;
    }
    return c?.connected ? c : null;
  }

  #throttle(conn: Connection, apiKey: number, throttleTimeMs: number): void {
    const until = Date.now() + throttleTimeMs;
    if (until > this.#throttledUntil) this.#throttledUntil = until;
    conn.throttle(until);
    const notify = this.#opts.onThrottle;
    if (notify === undefined) return;
    try {
      notify({ nodeId: this.nodeId, host: this.host, port: this.port, apiKey, throttleTimeMs });
    } catch {
      // A listener's failure must not fail the response that carried the throttle.
    }
  }

  close(): void {
    this.#closed = true;
    this.#conn?.close();
    this.#conn = null;
  }

  /** Takes `c` out of use and closes it once it has no request in flight. */
  #retire(c: Connection): void {
    if (this.#conn === c) this.#conn = null;
    const closeWhenIdle = (): void => {
      if (!c.connected || c.inFlight === 0) c.close();
      else setTimeout(closeWhenIdle, 20).unref();
    };
    closeWhenIdle();
  }

  async #open(): Promise<Connection> {
    const wait = this.#nextAttemptAt - Date.now();
    if (wait > 0) await new Promise((r) => setTimeout(r, wait));
    if (this.#closed) throw new ClientClosedError();
    const conn = new Connection({
      host: this.host,
      port: this.port,
      connectTimeoutMs: this.#opts.connectionTimeoutMs,
      requestTimeoutMs: this.#opts.requestTimeoutMs,
      maxResponseBytes: this.#opts.maxResponseBytes,
      ...(this.#opts.tls ? { tls: this.#opts.tls } : {}),
    });
    try {
      await conn.connect();
      await this.#negotiate(conn, APIVERSIONS_FIRST);
      const sasl = this.#opts.sasl ? await saslAuthenticate(this, conn, this.#opts.sasl) : null;
      const lifetime = sasl?.sessionLifetimeMs ?? 0;
      this.#renewAt = lifetime > 0 ? Date.now() + lifetime * REAUTH_AT : Number.POSITIVE_INFINITY;
    } catch (err) {
      conn.close();
      this.#failures++;
      this.#nextAttemptAt =
        Date.now() +
        backoffMs(this.#opts.reconnectBackoffMs, this.#opts.reconnectBackoffMaxMs, this.#failures - 1);
      throw err;
    }
    if (this.#closed) {
      conn.close();
      throw new ClientClosedError();
    }
    this.#failures = 0;
    this.#nextAttemptAt = 0;
    if (this.#throttledUntil > Date.now()) conn.throttle(this.#throttledUntil);
    this.#conn = conn;
    conn.onClose(() => {
      if (this.#conn === conn) this.#conn = null;
    });
    return conn;
  }

  async #negotiate(conn: Connection, version: number, attempt = 0): Promise<void> {
    const clientId = this.#opts.clientId;
    const res = await conn.send<ApiVersionsResponse>({
      build: (corr) =>
        encodeClientRequest(apiVersionsApi, version, corr, clientId, {
          clientSoftwareName: this.#opts.clientSoftwareName,
          clientSoftwareVersion: this.#opts.clientSoftwareVersion,
        }),
      parse: (frame) => {
        const r = new Reader(frame);
        skipResponseHeader(r, 0); // ApiVersions responses always use header v0 (KIP-511)
        // A broker that does not know our version answers with a v0 body (KIP-511).
        const code = r.pos + 2 <= frame.length ? frame.readInt16BE(r.pos) : 0;
        return apiVersionsApi.readResponse(r, code === ErrorCode.UNSUPPORTED_VERSION ? 0 : version);
      },
      expectResponse: true,
    });
    if (res.errorCode === ErrorCode.UNSUPPORTED_VERSION && attempt === 0) {
      const mine = res.apiKeys.find((k) => k.apiKey === apiVersionsApi.key);
      const next = Math.min(mine?.maxVersion ?? 0, apiVersionsApi.maxVersion);
      if (next < version) return this.#negotiate(conn, next, 1);
    }
    if (res.errorCode !== 0)
      throw new KafkaResponseError(res.errorCode, `ApiVersions from ${this.host}:${this.port}`);
    this.#versions.clear();
    for (const k of res.apiKeys) this.#versions.set(k.apiKey, { min: k.minVersion, max: k.maxVersion });
    this.#features = {
      epoch: res.finalizedFeaturesEpoch,
      levels: new Map(res.finalizedFeatures.map((f) => [f.name, f.maxVersionLevel])),
    };
  }
}
