// Socket reads into buffers of our choosing, for the sockets a server accepts.
//
// Node reads a socket into a fresh 64 KiB allocation per read (and copies it into a smaller one
// when the read was short); at 1 KiB produce rates that is thousands of external allocations a
// second, which drive V8 into full garbage collections, plus a copy of every byte into the
// request frame. `new net.Socket({ onread: { buffer, callback } })` makes libuv read into a buffer
// the callback chooses instead (a function `buffer` is asked again after every read), but
// net.Server has no such option for the sockets it accepts. This installs the same thing on an
// accepted socket, through the fields the constructor option sets (found by their symbol
// descriptions) and the handle's `useUserBuffer`, exactly as Node's own `initSocketHandle` does.
// Node's read path then calls `callback(n, buffer)` and asks `buffer()` for the next read;
// pause()/resume() stop and restart reading as documented for `onread`.
//
// Only where it is safe: a plain TCP socket (not TLS, whose handle decrypts into its own
// buffers) with nothing read yet into its stream buffer, on a Node whose socket carries the
// three fields. Otherwise the caller keeps `'data'` events.

import type { Socket } from 'node:net';

interface UserBufferHandle {
  useUserBuffer(buf: Uint8Array): void;
}

/** The symbols of `net.Socket`'s onread fields, or null on a Node that lacks them. */
function onreadFields(socket: Socket): { buffer: symbol; callback: symbol; generator: symbol } | null {
  let buffer: symbol | undefined;
  let callback: symbol | undefined;
  let generator: symbol | undefined;
  for (const s of Object.getOwnPropertySymbols(socket)) {
    if (s.description === 'kBuffer') buffer = s;
    else if (s.description === 'kBufferCb') callback = s;
    else if (s.description === 'kBufferGen') generator = s;
  }
  if (buffer === undefined || callback === undefined || generator === undefined) return null;
  return { buffer, callback, generator };
}

/**
 * Makes `socket` read into `next()` (asked before every read) and report each read as
 * `onRead(bytes, buffer)`; `onRead` returning false pauses the socket. No `'data'` events
 * follow. Returns false, changing nothing, where this cannot be done safely.
 */
export function readIntoOwnBuffers(
  socket: Socket,
  next: () => Buffer,
  onRead: (bytes: number, buffer: Buffer) => boolean,
): boolean {
  if ('encrypted' in socket || socket.readableLength > 0 || socket.destroyed) return false;
  const handle = (socket as unknown as { _handle?: Partial<UserBufferHandle> | null })._handle;
  if (handle == null || typeof handle.useUserBuffer !== 'function') return false;
  const fields = onreadFields(socket);
  if (fields === null) return false;
  const self = socket as unknown as Record<symbol, unknown>;
  if (self[fields.buffer] !== null && self[fields.buffer] !== undefined) return false;
  const first = next();
  self[fields.generator] = next;
  self[fields.callback] = onRead;
  self[fields.buffer] = first;
  handle.useUserBuffer(first);
  return true;
}
