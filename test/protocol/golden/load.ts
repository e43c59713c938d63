// Loads captured request frames (test/fixtures/golden, written by tools/capture-golden) and
// decodes them with the generated codecs.

import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  API_BY_KEY,
  decodeRequestHeader,
  encodeRequest,
  type RequestHeader,
} from '../../../src/protocol/messages/index.js';
import { repoFile } from '../../support/repo.js';

const DIR = repoFile('test/fixtures/golden');

export function fixture(name: string): Buffer {
  return readFileSync(join(DIR, name));
}

export interface ManifestFrame {
  file: string;
  client: string;
  apiKey: number;
  apiVersion: number;
  correlationId: number;
  clientId: string | null;
  connection: number;
  firstRead: number;
  lastRead: number;
  codec?: string;
}

export interface Manifest {
  kafkaPython: { pipelinedInOneRead: boolean; pipelinedReadFile: string | null };
  frames: ManifestFrame[];
}

export function manifest(): Manifest {
  return JSON.parse(readFileSync(join(DIR, 'manifest.json'), 'utf8')) as Manifest;
}

export interface Decoded<T> {
  header: RequestHeader;
  body: T;
}

/**
 * Decodes a size-prefixed request frame and checks what every golden frame must satisfy: the
 * size prefix is exact, the body is consumed to the last byte, and re-encoding the decoded
 * request with our writers gives back the client's bytes.
 */
export function decodeFrame<T>(frame: Buffer, apiKey: number, apiVersion: number): Decoded<T> {
  assert.equal(frame.readInt32BE(0), frame.length - 4, 'size prefix');
  const { header, reader } = decodeRequestHeader(frame.subarray(4));
  assert.equal(header.requestApiKey, apiKey);
  assert.equal(header.requestApiVersion, apiVersion);
  const api = API_BY_KEY[apiKey];
  assert.ok(api !== undefined);
  const body = api.readRequest(reader, apiVersion) as T;
  assert.equal(reader.remaining, 0, 'body fully consumed');
  const again = encodeRequest(apiKey, apiVersion, header.correlationId, header.clientId, body);
  assert.deepEqual(Buffer.concat(again), frame, 're-encoded frame equals the original');
  return { header, body };
}

export function load<T>(file: string, apiKey: number, apiVersion: number): Decoded<T> {
  return decodeFrame<T>(fixture(file), apiKey, apiVersion);
}
