// JSON.stringify of what the client returns: bigint offsets and Buffer values print with the
// exported replacer.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { jsonReplacer } from '../../src/client/index.js';

test('jsonReplacer prints bigint offsets as exact decimal strings and Buffers as text', () => {
  const record = {
    topic: 'orders',
    partition: 0,
    offset: 9007199254740993n,
    key: Buffer.from('k1'),
    value: null,
    headers: [{ key: 'h', value: Buffer.from('v') }],
  };
  assert.throws(() => JSON.stringify(record), /BigInt/);
  assert.equal(
    JSON.stringify(record, jsonReplacer),
    '{"topic":"orders","partition":0,"offset":"9007199254740993","key":"k1","value":null,"headers":[{"key":"h","value":"v"}]}',
  );
});
