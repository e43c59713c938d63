// Shared by the SASL tests: the JAAS line, the users' passwords, and a bare socket that speaks
// the SASL exchange by hand (v0 raw tokens, requests before authentication).

import { connect, type Socket } from 'node:net';
import { encodeClientRequest } from '../../../src/net/index.js';
import { type MetadataResponse, metadataApi } from '../../../src/protocol/messages/generated/metadata.js';
import {
  type SaslAuthenticateResponse,
  saslAuthenticateApi,
} from '../../../src/protocol/messages/generated/sasl-authenticate.js';
import {
  type SaslHandshakeResponse,
  saslHandshakeApi,
} from '../../../src/protocol/messages/generated/sasl-handshake.js';
import { Reader } from '../../../src/protocol/primitives/reader.js';
import { scaled } from '../../support/timeouts.js';

export const PASSWORDS = { alice: 'alice-Secret-7f3a', bob: 'bob-Secret-91c2', admin: 'admin-Secret-55d0' };

export function plainJaas(): string {
  return (
    'org.apache.kafka.common.security.plain.PlainLoginModule required ' +
    `username="admin" password="${PASSWORDS.admin}" ` +
    Object.entries(PASSWORDS)
      .map(([u, p]) => `user_${u}="${p}"`)
      .join(' ') +
    ';'
  );
}

export function metadataRequest() {
  return {
    topics: [],
    allowAutoTopicCreation: false,
    includeTopicAuthorizedOperations: false,
    includeClusterAuthorizedOperations: false,
  };
}

export interface BareConnection {
  /** A request frame with header v1 and an empty body (enough for the gate to judge it). */
  header(key: number, version: number): Buffer;
  /** Sends bytes; true if the broker closed the connection instead of answering. */
  sendRaw(frame: Buffer): Promise<boolean>;
  handshake(version: number, mechanism: string): Promise<SaslHandshakeResponse>;
  rawToken(token: Buffer): Promise<Buffer>;
  /** SaslAuthenticate; null if the broker closed the connection instead of answering. */
  authenticate(version: number, token: Buffer): Promise<SaslAuthenticateResponse | null>;
  /** Resolves once the broker has closed the connection. */
  closed(): Promise<void>;
  metadata(): Promise<MetadataResponse>;
  close(): void;
}

export async function bareConnection(port: number): Promise<BareConnection> {
  const socket: Socket = connect(port, '127.0.0.1');
  await new Promise<void>((resolve, reject) => {
    socket.once('connect', resolve);
    socket.once('error', reject);
  });
  socket.on('error', () => {});
  let buffered = Buffer.alloc(0);
  let closed = false;
  const waiters: (() => void)[] = [];
  const wake = () => {
    for (const w of waiters.splice(0)) w();
  };
  socket.on('data', (d) => {
    buffered = Buffer.concat([buffered, d]);
    wake();
  });
  socket.on('close', () => {
    closed = true;
    wake();
  });
  /** The next size-prefixed frame, or null if the connection closed first. */
  const nextFrame = async (): Promise<Buffer | null> => {
    const deadline = Date.now() + scaled(20_000);
    for (;;) {
      if (buffered.length >= 4 && buffered.length >= 4 + buffered.readInt32BE(0)) {
        const size = buffered.readInt32BE(0);
        const frame = buffered.subarray(4, 4 + size);
        buffered = buffered.subarray(4 + size);
        return frame;
      }
      if (closed) return null;
      if (Date.now() > deadline) throw new Error('timed out waiting for the broker');
      await new Promise<void>((r) => {
        waiters.push(r);
        setTimeout(r, 200);
      });
    }
  };
  const concat = (chunks: Buffer[]) => Buffer.concat(chunks);
  return {
    header(key, version) {
      const body = Buffer.alloc(10);
      body.writeInt16BE(key, 0);
      body.writeInt16BE(version, 2);
      body.writeInt32BE(7, 4);
      body.writeInt16BE(-1, 8); // null client id
      const size = Buffer.alloc(4);
      size.writeInt32BE(body.length);
      return Buffer.concat([size, body]);
    },
    async sendRaw(frame) {
      socket.write(frame);
      return (await nextFrame()) === null;
    },
    async handshake(version, mechanism) {
      socket.write(concat(encodeClientRequest(saslHandshakeApi, version, 1, 'bare', { mechanism })));
      const f = await nextFrame();
      if (f === null) throw new Error('connection closed');
      const r = new Reader(f);
      r.int32();
      return saslHandshakeApi.readResponse(r, version);
    },
    async rawToken(token) {
      const size = Buffer.alloc(4);
      size.writeInt32BE(token.length);
      socket.write(Buffer.concat([size, token]));
      const f = await nextFrame();
      if (f === null) throw new Error('connection closed');
      return f;
    },
    async authenticate(version, token) {
      socket.write(
        concat(encodeClientRequest(saslAuthenticateApi, version, 3, 'bare', { authBytes: token })),
      );
      const f = await nextFrame();
      if (f === null) return null;
      const r = new Reader(f);
      r.int32();
      if (version >= 2) r.skipTaggedFields();
      return saslAuthenticateApi.readResponse(r, version);
    },
    async closed() {
      while ((await nextFrame()) !== null);
    },
    async metadata() {
      socket.write(concat(encodeClientRequest(metadataApi, 1, 2, 'bare', metadataRequest())));
      const f = await nextFrame();
      if (f === null) throw new Error('connection closed');
      const r = new Reader(f);
      r.int32();
      return metadataApi.readResponse(r, 1);
    },
    close() {
      socket.destroy();
    },
  };
}
