// Test-side access to the JSON schemas the codecs were generated from. The schema loader is the
// generator's (parsing only); values, defaults and expectations below are computed independently
// of the generator's emitters so that a wrong emitter cannot hide behind a wrong expectation.

import { readdirSync } from 'node:fs';
import { loadMessage, type MessageSpec, versionsOf } from '../../../tools/gen-protocol/schema.js';
import { repoFile } from '../../support/repo.js';

/** The schemas `npm run gen` generated the codecs from, copied into the repository by it. */
export const SCHEMA_DIR = repoFile('test/fixtures/kafka-protocol/');

export interface ApiSchemas {
  name: string;
  key: number;
  request: MessageSpec;
  response: MessageSpec;
}

let cached: ApiSchemas[] | undefined;

export function loadApiSchemas(): ApiSchemas[] {
  if (cached !== undefined) return cached;
  const dir = `${SCHEMA_DIR}messages/`;
  const req = new Map<string, MessageSpec>();
  const res = new Map<string, MessageSpec>();
  for (const f of readdirSync(dir)) {
    if (!f.endsWith('.json')) continue;
    const m = loadMessage(dir + f);
    if (m.kind === 'request') req.set(m.name.slice(0, -'Request'.length), m);
    if (m.kind === 'response') res.set(m.name.slice(0, -'Response'.length), m);
  }
  cached = [...req].map(([name, request]) => ({
    name,
    key: request.apiKey!,
    request,
    response: res.get(name)!,
  }));
  cached.sort((a, b) => a.key - b.key);
  return cached;
}

export function loadDataSchema(file: string): MessageSpec {
  return loadMessage(`${SCHEMA_DIR}related/${file}`);
}

export function loadHeaderSchema(file: string): MessageSpec {
  return loadMessage(`${SCHEMA_DIR}messages/${file}`);
}

export { versionsOf };
