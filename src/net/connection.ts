// One TCP connection to one broker: size-prefixed framing, request pipelining and correlation.
//
// Requests are written as soon as they are submitted; Kafka answers the requests of one
// connection in the order it received them, so responses are matched against the oldest
// in-flight request (like Java's NetworkClient) and a correlation-id mismatch is fatal for the
// connection. This layer knows nothing about API schemas: callers build a frame for a given
// correlation id and parse the response body; the correlation id is the first int32 of every
// response header version, so the transport can read it without knowing the API.
//
// A request that times out closes the connection: its response may still arrive later, and with
// ordered responses there is no way to skip it safely (Java does the same).
//
// Client-side throttling (KIP-219): after `throttle(until)` new requests are held, in order, and
// written when that time comes (a request's timeout starts when it is written), so a client over
// its quota sends nothing to a broker that has muted the connection anyway.
//
// Reading (plaintext): libuv reads straight into a buffer the connection picks for each read
// (`net.connect`'s `onread`): a reused scratch buffer between frames, and once a large frame's
// size is known, the frame's own buffer at the point it has reached. A Fetch response of 1 MiB
// then arrives in a few large reads with no chunk objects and no reassembly copy, instead of
// 16+ chunks of 64 KiB copied together at the end. TLS sockets deliver chunks ('data'), which
// go through the same frame assembly.
import net from 'node:net';
import tls from 'node:tls';
import { ClientClosedError, ConnectionError, RequestTimeoutError } from './errors.js';

/** TLS settings of an outbound connection (node:tls names); absent = plaintext. */
export type TlsConnectOptions = Pick<
  tls.ConnectionOptions,
  | 'ca'
  | 'cert'
  | 'key'
  | 'pfx'
  | 'passphrase'
  | 'rejectUnauthorized'
  | 'servername'
  | 'checkServerIdentity'
  | 'minVersion'
  | 'maxVersion'
  | 'ciphers'
>;

export interface ConnectionOptions {
  host: string;
  port: number;
  /** Time allowed for the TCP handshake. */
  connectTimeoutMs: number;
  /** Default time a request may stay unanswered. */
  requestTimeoutMs: number;
  /** Frames larger than this are treated as a protocol violation (protects against garbage). */
  maxResponseBytes?: number;
  /** Connect with TLS (the handshake counts against `connectTimeoutMs`). */
  tls?: TlsConnectOptions;
}

export interface FrameRequest<T> {
  /** Builds the whole frame (size prefix included) for the given correlation id. */
  build(correlationId: number): Buffer[];
  /** Parses a response frame: `frame` starts at the correlation id (size prefix removed). */
  parse(frame: Buffer): T;
  /** False for Produce with acks=0: the broker sends nothing back. */
  expectResponse: boolean;
  timeoutMs?: number;
}

/** A request submitted while the connection is throttled: written when the throttle ends. */
interface Held {
  req: FrameRequest<unknown>;
  resolve(value: unknown): void;
  reject(err: Error): void;
}

interface InFlight {
  correlationId: number;
  deadline: number;
  parse(frame: Buffer): unknown;
  resolve(value: unknown): void;
  reject(err: Error): void;
}

const DEFAULT_MAX_RESPONSE = 512 * 1024 * 1024;
/** Reads between frames land here (reused: complete small frames are copied out of it). */
const SCRATCH_BYTES = 64 * 1024;
/** A frame with at least this much still to come is read into its own buffer directly. */
const DIRECT_READ_MIN = 16 * 1024;

export class Connection {
  readonly host: string;
  readonly port: number;
  #opts: ConnectionOptions;
  #socket: net.Socket | null = null;
  #connecting: Promise<void> | null = null;
  #nextCorrelation = 1;
  // FIFO of requests awaiting a response; `#head` avoids O(n) shifts under heavy pipelining.
  #queue: InFlight[] = [];
  #head = 0;
  #timer: NodeJS.Timeout | null = null;
  /** When `#timer` fires: a request with an earlier deadline re-arms it. */
  #timerAt = 0;
  /** The reused read buffer (plaintext sockets only). */
  #scratch: Buffer | null = null;
  /** The frame being assembled (size prefix excluded), `#frameFill` bytes of it received. */
  #frame: Buffer | null = null;
  #frameFill = 0;
  /** The size prefix, while fewer than 4 of its bytes have arrived. */
  readonly #sizeBytes = Buffer.alloc(4);
  #sizeFill = 0;
  #closed = false;
  #onClose: ((err: Error | null) => void) | null = null;
  /** The socket corked until the next tick, if any. */
  #corked: net.Socket | null = null;
  /** KIP-219: no request is written before this time (ms since the epoch). */
  #throttledUntil = 0;
  #held: Held[] = [];
  #throttleTimer: NodeJS.Timeout | null = null;

  constructor(opts: ConnectionOptions) {
    this.#opts = opts;
    this.host = opts.host;
    this.port = opts.port;
  }

  get connected(): boolean {
    return this.#socket !== null && !this.#closed && this.#connecting === null;
  }

  /** Requests awaiting a response, plus those held by a throttle. */
  get inFlight(): number {
    return this.#queue.length - this.#head + this.#held.length;
  }

  /** Until when new requests are held (ms since the epoch; in the past = not throttled). */
  get throttledUntil(): number {
    return this.#throttledUntil;
  }

  /**
   * Holds every request submitted from now until `until` (ms since the epoch), as Kafka's clients
   * do after a response with throttle_time_ms > 0 (KIP-219); a later time extends the throttle.
   */
  throttle(until: number): void {
    if (this.#closed || until <= this.#throttledUntil) return;
    this.#throttledUntil = until;
    if (this.#throttleTimer !== null) clearTimeout(this.#throttleTimer);
    this.#throttleTimer = setTimeout(this.#releaseHeld, Math.max(1, until - Date.now()));
    this.#throttleTimer.unref(); // the socket keeps the process up while requests are held
  }

  readonly #releaseHeld = (): void => {
    this.#throttleTimer = null;
    const wait = this.#throttledUntil - Date.now();
    if (wait > 0) {
      this.#throttleTimer = setTimeout(this.#releaseHeld, wait);
      this.#throttleTimer.unref();
      return;
    }
    const held = this.#held;
    this.#held = [];
    for (const h of held) this.#dispatch(h.req).then(h.resolve, h.reject);
  };

  /** Called once when the connection ends, with the error that ended it (null on close()). */
  onClose(fn: (err: Error | null) => void): void {
    this.#onClose = fn;
  }

  connect(): Promise<void> {
    if (this.#closed) return Promise.reject(new ClientClosedError('connection closed'));
    if (this.#connecting) return this.#connecting;
    if (this.#socket) return Promise.resolve();
    this.#connecting = new Promise<void>((resolve, reject) => {
      const socket = this.#opts.tls
        ? this.#connectTls(this.#opts.tls)
        : net.connect({
            host: this.host,
            port: this.port,
            noDelay: true,
            onread: { buffer: this.#nextReadTarget, callback: this.#onRead },
          });
      const timer = setTimeout(() => {
        socket.destroy();
        fail(new ConnectionError(`connect to ${this.host}:${this.port} timed out`));
      }, this.#opts.connectTimeoutMs);
      const fail = (err: Error): void => {
        clearTimeout(timer);
        this.#connecting = null;
        this.#closed = true;
        reject(err instanceof ConnectionError ? err : new ConnectionError(this.#describe(err), err));
      };
      socket.once('error', fail);
      socket.once(this.#opts.tls ? 'secureConnect' : 'connect', () => {
        clearTimeout(timer);
        socket.off('error', fail);
        this.#socket = socket;
        this.#connecting = null;
        if (this.#opts.tls)
          socket.on('data', (chunk: Buffer) => this.#consume(chunk, 0, chunk.length, false));
        socket.on('error', (err) => this.#fail(new ConnectionError(this.#describe(err), err)));
        socket.on('close', () =>
          this.#fail(new ConnectionError(`connection to ${this.host}:${this.port} closed`)),
        );
        resolve();
      });
    });
    return this.#connecting;
  }

  send<T>(req: FrameRequest<T>): Promise<T> {
    if (this.#closed || this.#socket === null) {
      return Promise.reject(new ConnectionError(`not connected to ${this.host}:${this.port}`));
    }
    // Held requests go first, in order, even once the time has come (the timer releases them).
    if (this.#held.length > 0 || Date.now() < this.#throttledUntil) {
      return new Promise<T>((resolve, reject) => {
        this.#held.push({ req, resolve: resolve as (v: unknown) => void, reject });
      });
    }
    return this.#dispatch(req);
  }

  #dispatch<T>(req: FrameRequest<T>): Promise<T> {
    const socket = this.#socket;
    if (this.#closed || socket === null) {
      return Promise.reject(new ConnectionError(`not connected to ${this.host}:${this.port}`));
    }
    const correlationId = this.#nextCorrelation;
    this.#nextCorrelation = correlationId === 0x7fffffff ? 1 : correlationId + 1;
    const frame = req.build(correlationId);
    if (!req.expectResponse) {
      this.#write(socket, frame);
      return Promise.resolve(undefined as T);
    }
    return new Promise<T>((resolve, reject) => {
      const deadline = Date.now() + (req.timeoutMs ?? this.#opts.requestTimeoutMs);
      this.#queue.push({
        correlationId,
        deadline,
        parse: req.parse,
        resolve: resolve as (v: unknown) => void,
        reject,
      });
      // A short request behind a long one (a Fetch long poll) times out at its own deadline.
      if (this.#timer === null || deadline < this.#timerAt) this.#arm(deadline);
      this.#write(socket, frame);
    });
  }

  /** Closes the connection; requests still in flight fail with ClientClosedError. */
  close(): void {
    if (this.#closed) return;
    this.#fail(new ClientClosedError('connection closed'), true);
  }

  /**
   * Queues a frame's chunks on a corked socket that is uncorked on the next tick: every request
   * submitted in the same turn of the event loop (e.g. the Produce requests of one sender drain)
   * leaves in a single writev, which also wakes the broker once instead of once per request.
   */
  #write(socket: net.Socket, frame: Buffer[]): void {
    if (this.#corked !== socket) {
      this.#corked = socket;
      socket.cork();
      process.nextTick(this.#uncork);
    }
    for (let i = 0; i < frame.length; i++) socket.write(frame[i]!);
  }

  /** Writes out now what was queued in this tick (instead of at the next tick). */
  flushWrites(): void {
    this.#uncork();
  }

  readonly #uncork = (): void => {
    const socket = this.#corked;
    this.#corked = null;
    socket?.uncork();
  };

  #connectTls(options: TlsConnectOptions): tls.TLSSocket {
    // SNI carries a host name, never an address (RFC 6066); verification still checks either.
    const servername = options.servername ?? (net.isIP(this.host) === 0 ? this.host : undefined);
    const socket = tls.connect({
      ...options,
      host: this.host,
      port: this.port,
      ...(servername ? { servername } : {}),
    });
    socket.setNoDelay(true);
    return socket;
  }

  #describe(err: Error): string {
    return `connection to ${this.host}:${this.port} failed: ${err.message}`;
  }

  #arm(deadline: number): void {
    if (this.#timer !== null) clearTimeout(this.#timer);
    this.#timerAt = deadline;
    this.#timer = setTimeout(() => this.#checkTimeouts(), Math.max(1, deadline - Date.now()));
    this.#timer.unref();
  }

  #checkTimeouts(): void {
    this.#timer = null;
    const now = Date.now();
    let next = Number.POSITIVE_INFINITY;
    for (let i = this.#head; i < this.#queue.length; i++) {
      const d = this.#queue[i]!.deadline;
      if (d <= now) {
        this.#fail(new RequestTimeoutError(`request to ${this.host}:${this.port} timed out`));
        return;
      }
      if (d < next) next = d;
    }
    if (next !== Number.POSITIVE_INFINITY) this.#arm(next);
  }

  /** Where libuv's next read goes (asked before every read of a plaintext socket). */
  readonly #nextReadTarget = (): Buffer => {
    const frame = this.#frame;
    if (frame !== null && frame.length - this.#frameFill >= DIRECT_READ_MIN)
      return frame.subarray(this.#frameFill);
    this.#scratch ??= Buffer.allocUnsafeSlow(SCRATCH_BYTES);
    return this.#scratch;
  };

  /** `n` bytes were read into the buffer `#nextReadTarget` returned; true = keep reading. */
  readonly #onRead = (n: number, buf: Uint8Array): boolean => {
    if (this.#closed) return false; // stop reading: a closed connection delivers nothing more
    if (buf !== this.#scratch) {
      // Straight into the frame being assembled.
      this.#frameFill += n;
      if (this.#frameFill === this.#frame!.length) this.#frameDone();
    } else this.#consume(this.#scratch, 0, n, true);
    return true;
  };

  /**
   * Assembles frames from `src[off, end)`. `reused`: `src` is the scratch buffer, so frames that
   * lie wholly in it are copied out; otherwise (TLS chunks) they are delivered as views of it.
   */
  #consume(src: Buffer, off: number, end: number, reused: boolean): void {
    while (off < end && !this.#closed) {
      const frame = this.#frame;
      if (frame !== null) {
        const take = Math.min(end - off, frame.length - this.#frameFill);
        frame.set(src.subarray(off, off + take), this.#frameFill);
        this.#frameFill += take;
        off += take;
        if (this.#frameFill === frame.length) this.#frameDone();
        continue;
      }
      let size: number;
      if (this.#sizeFill === 0 && end - off >= 4) {
        size = src.readInt32BE(off);
        off += 4;
      } else {
        while (this.#sizeFill < 4 && off < end) this.#sizeBytes[this.#sizeFill++] = src[off++]!;
        if (this.#sizeFill < 4) return;
        this.#sizeFill = 0;
        size = this.#sizeBytes.readInt32BE(0);
      }
      const max = this.#opts.maxResponseBytes ?? DEFAULT_MAX_RESPONSE;
      if (size < 4 || size > max) {
        this.#fail(new ConnectionError(`invalid response frame size ${size} from ${this.host}:${this.port}`));
        return;
      }
      if (end - off >= size) {
        // The whole frame is here: a view of a chunk, or a copy out of the reused scratch.
        const view = src.subarray(off, off + size);
        off += size;
        this.#deliver(reused ? Buffer.from(view) : view);
        continue;
      }
      this.#frame = Buffer.allocUnsafe(size);
      this.#frameFill = 0;
    }
  }

  #frameDone(): void {
    const frame = this.#frame!;
    this.#frame = null;
    this.#frameFill = 0;
    this.#deliver(frame);
  }

  #deliver(frame: Buffer): void {
    const entry = this.#queue[this.#head];
    const correlationId = frame.readInt32BE(0);
    if (entry === undefined || entry.correlationId !== correlationId) {
      this.#fail(
        new ConnectionError(
          `correlation id mismatch from ${this.host}:${this.port}: got ${correlationId}, expected ${entry?.correlationId ?? 'none'}`,
        ),
      );
      return;
    }
    this.#queue[this.#head++] = undefined as unknown as InFlight;
    if (this.#head > 1024 && this.#head * 2 > this.#queue.length) {
      this.#queue = this.#queue.slice(this.#head);
      this.#head = 0;
    }
    let value: unknown;
    try {
      value = entry.parse(frame);
    } catch (err) {
      // A body we cannot parse means we cannot trust the rest of the stream either.
      entry.reject(err as Error);
      this.#fail(
        new ConnectionError(`unparsable response from ${this.host}:${this.port}: ${(err as Error).message}`),
      );
      return;
    }
    entry.resolve(value);
  }

  #fail(err: Error, requested = false): void {
    if (this.#closed && this.#socket === null) return;
    this.#closed = true;
    if (this.#timer) clearTimeout(this.#timer);
    this.#timer = null;
    if (this.#throttleTimer) clearTimeout(this.#throttleTimer);
    this.#throttleTimer = null;
    const socket = this.#socket;
    this.#socket = null;
    if (socket) {
      socket.removeAllListeners('data');
      socket.removeAllListeners('close');
      socket.on('error', () => {});
      // An orderly end waits for the broker to close its side, which it may do only after
      // answering what it holds (a Fetch long poll: up to fetch.max.wait.ms), and the open socket
      // keeps the process alive that long. Answers nobody will read are not worth that wait.
      if (requested && this.#queue.length === this.#head) socket.end();
      else socket.destroy();
    }
    const pending = this.#queue.slice(this.#head);
    const held = this.#held;
    this.#held = [];
    this.#queue = [];
    this.#head = 0;
    this.#frame = null;
    this.#frameFill = 0;
    this.#sizeFill = 0;
    // The request that timed out gets the timeout error; the others lost their connection.
    for (let i = 0; i < pending.length; i++) {
      const p = pending[i]!;
      if (err instanceof RequestTimeoutError && p.deadline > Date.now()) {
        p.reject(
          new ConnectionError(`connection to ${this.host}:${this.port} closed after a request timeout`),
        );
      } else p.reject(err);
    }
    for (const h of held)
      h.reject(
        err instanceof RequestTimeoutError
          ? new ConnectionError(`connection to ${this.host}:${this.port} closed after a request timeout`)
          : err,
      );
    this.#onClose?.(requested ? null : err);
  }
}
