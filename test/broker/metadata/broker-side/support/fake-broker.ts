// A tiny Kafka-speaking socket server for the controller channel's tests: answers ApiVersions
// with configurable ranges and hands LeaderAndIsr / UpdateMetadata / StopReplica to a test
// function, which answers, delays, or closes the connection. Records what arrived.

import { createServer, type Server, type Socket } from 'node:net';
import { decodeRequestHeader, encodeResponse } from '../../../../../src/protocol/messages/frame.js';
import { apiVersionsApi } from '../../../../../src/protocol/messages/generated/api-versions.js';
import { leaderAndIsrApi } from '../../../../../src/protocol/messages/generated/leader-and-isr.js';
import { stopReplicaApi } from '../../../../../src/protocol/messages/generated/stop-replica.js';
import { updateMetadataApi } from '../../../../../src/protocol/messages/generated/update-metadata.js';
import type { ApiDescriptor } from '../../../../../src/protocol/messages/runtime.js';

const APIS = new Map<number, ApiDescriptor<unknown, unknown>>(
  [leaderAndIsrApi, stopReplicaApi, updateMetadataApi].map((a) => [
    a.key,
    a as ApiDescriptor<unknown, unknown>,
  ]),
);

export interface Received {
  readonly key: number;
  readonly version: number;
  readonly clientId: string | null;
  readonly body: unknown;
}

/** What a request gets: a response body, or 'close' to drop the connection unanswered, or 'hang'. */
export type Reply = unknown | 'close' | 'hang';

export class FakeBroker {
  readonly received: Received[] = [];
  /** Advertised ranges by key (ApiVersions itself is always advertised). */
  ranges = new Map<number, [number, number]>([
    [4, [0, 7]],
    [5, [0, 4]],
    [6, [0, 8]],
  ]);
  onRequest: (r: Received) => Reply | Promise<Reply> = (r) => defaultReply(r);
  connections = 0;
  readonly #server: Server;
  readonly #sockets = new Set<Socket>();

  private constructor(server: Server) {
    this.#server = server;
  }

  static async start(port = 0): Promise<FakeBroker> {
    const server = createServer();
    const b = new FakeBroker(server);
    server.on('connection', (s) => b.#accept(s));
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(port, '127.0.0.1', () => resolve());
    });
    return b;
  }

  get port(): number {
    const a = this.#server.address();
    return typeof a === 'object' && a !== null ? a.port : -1;
  }

  async close(): Promise<void> {
    for (const s of this.#sockets) s.destroy();
    await new Promise<void>((resolve) => this.#server.close(() => resolve()));
  }

  #accept(socket: Socket): void {
    this.connections++;
    this.#sockets.add(socket);
    socket.on('close', () => this.#sockets.delete(socket));
    socket.on('error', () => {});
    let buf = Buffer.alloc(0);
    // Requests of one connection are answered in order, one at a time (as a broker does).
    let chain: Promise<void> = Promise.resolve();
    socket.on('data', (d: Buffer) => {
      buf = Buffer.concat([buf, d]);
      while (buf.length >= 4) {
        const size = buf.readInt32BE(0);
        if (buf.length < 4 + size) break;
        const frame = buf.subarray(4, 4 + size);
        buf = buf.subarray(4 + size);
        chain = chain.then(() => this.#handle(socket, frame));
      }
    });
  }

  async #handle(socket: Socket, frame: Buffer): Promise<void> {
    if (socket.destroyed) return;
    const { header, reader } = decodeRequestHeader(frame);
    const { requestApiKey: key, requestApiVersion: version, correlationId } = header;
    if (key === apiVersionsApi.key) {
      const apiKeys = [{ apiKey: 18, minVersion: 0, maxVersion: 3 }];
      for (const [k, [min, max]] of this.ranges)
        apiKeys.push({ apiKey: k, minVersion: min, maxVersion: max });
      const v = Math.min(version, 3);
      socket.write(
        Buffer.concat(
          encodeResponse(apiVersionsApi, v, correlationId, {
            errorCode: 0,
            apiKeys,
            throttleTimeMs: 0,
            supportedFeatures: [],
            finalizedFeaturesEpoch: -1n,
            finalizedFeatures: [],
            zkMigrationReady: false,
          }),
        ),
      );
      return;
    }
    const api = APIS.get(key);
    if (api === undefined) {
      socket.destroy();
      return;
    }
    const r: Received = { key, version, clientId: header.clientId, body: api.readRequest(reader, version) };
    this.received.push(r);
    const reply = await this.onRequest(r);
    if (reply === 'hang') return new Promise(() => {});
    if (reply === 'close') {
      socket.destroy();
      return;
    }
    if (!socket.destroyed) socket.write(Buffer.concat(encodeResponse(api, version, correlationId, reply)));
  }
}

/** Success for everything: every partition with error 0. */
export function defaultReply(r: Received): unknown {
  if (r.key === 6) return { errorCode: 0 };
  if (r.key === 5) return { errorCode: 0, partitionErrors: [] };
  return { errorCode: 0, partitionErrors: [], topics: [] };
}
