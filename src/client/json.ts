// Offsets are int64 in Kafka, so the client gives them as `bigint` — which `JSON.stringify`
// refuses ("Do not know how to serialize a BigInt"). Pass `jsonReplacer` as its second argument
// to print records, metadata and offsets: bigints become decimal strings (exact, unlike
// numbers past 2^53) and Buffers their UTF-8 text.
export function jsonReplacer(this: unknown, key: string, value: unknown): unknown {
  if (typeof value === 'bigint') return value.toString();
  // Buffer#toJSON has already run by now: `{ type: 'Buffer', data: [...] }`.
  const holder = this as Record<string, unknown> | undefined;
  const raw = holder?.[key];
  if (Buffer.isBuffer(raw)) return raw.toString('utf8');
  return value;
}
