// The message browser and "produce a message". A browse never scans a log from its start to find
// a place: the start offset comes from the request (offset), ListOffsets (timestamp; log start /
// high watermark for oldest / newest), and the reading is bounded by `maxScan` records and a time
// budget. Search (key/value substring, on the raw bytes) only filters what that bounded read saw;
// the answer says how many records were scanned and whether it stopped early.
import type { Admin, ConsumerRecord, Producer, TopicPartition } from '../../client/index.js';
import { ApiError, intParam } from '../http-util.js';
import type { ConsoleClients } from './clients.js';
import { type PartitionRange, partitionRanges, tpKey } from './offsets.js';

export type BrowseMode = 'oldest' | 'newest' | 'offset' | 'timestamp';

export interface BrowseQuery {
  partition: number | null;
  mode: BrowseMode;
  offset: number;
  timestamp: number;
  limit: number;
  key: string;
  value: string;
  maxScan: number;
}

const MAX_LIMIT = 500;
const MAX_SCAN = 100_000;
const BROWSE_BUDGET_MS = 8000;

export function parseBrowseQuery(q: URLSearchParams): BrowseQuery {
  const mode = (q.get('mode') ?? 'oldest') as BrowseMode;
  if (!['oldest', 'newest', 'offset', 'timestamp'].includes(mode))
    throw new ApiError(400, 'mode is oldest, newest, offset or timestamp');
  const p = q.get('partition');
  const ts = q.get('timestamp') ?? '';
  const timestamp = mode !== 'timestamp' ? 0 : /^\d+$/.test(ts) ? Number(ts) : Date.parse(ts);
  if (Number.isNaN(timestamp))
    throw new ApiError(400, 'timestamp is milliseconds since the epoch or an ISO date-time');
  return {
    partition: p === null || p === '' || p === 'all' ? null : intParam(p, 'partition'),
    mode,
    offset: mode === 'offset' ? intParam(q.get('offset') ?? '', 'offset') : 0,
    timestamp,
    limit: Math.min(MAX_LIMIT, intParam(q.get('limit') ?? '50', 'limit', 1)),
    key: q.get('key') ?? '',
    value: q.get('value') ?? '',
    maxScan: Math.min(MAX_SCAN, intParam(q.get('maxScan') ?? '10000', 'maxScan', 1)),
  };
}

const b64 = (b: Buffer | null): string | null => (b === null ? null : b.toString('base64'));

function recordJson(r: ConsumerRecord) {
  return {
    partition: r.partition,
    offset: Number(r.offset),
    timestamp: r.timestamp,
    timestampType: r.timestampType,
    key: b64(r.key),
    value: b64(r.value),
    headers: r.headers.map((h) => ({ key: h.key, value: b64(h.value) })),
  };
}

async function startOffsets(
  admin: Admin,
  q: BrowseQuery,
  ranges: Map<string, PartitionRange>,
  tps: TopicPartition[],
) {
  const starts = new Map<string, number>();
  const filtering = q.key !== '' || q.value !== '';
  if (q.mode === 'timestamp') {
    const found = await admin.listOffsets(tps.map((tp) => ({ ...tp, spec: { timestamp: q.timestamp } })));
    for (const f of found) starts.set(tpKey(f), f.offset < 0n ? ranges.get(tpKey(f))!.end : Number(f.offset));
    return starts;
  }
  for (const tp of tps) {
    const r = ranges.get(tpKey(tp))!;
    const back = filtering ? Math.ceil(q.maxScan / tps.length) : q.limit;
    const at = q.mode === 'oldest' ? r.start : q.mode === 'newest' ? r.end - back : q.offset;
    starts.set(tpKey(tp), Math.min(r.end, Math.max(r.start, at)));
  }
  return starts;
}

export async function browse(clients: ConsoleClients, topic: string, q: BrowseQuery) {
  const admin = clients.admin;
  const [desc] = await admin.describeTopics([topic]);
  if (desc === undefined) throw new ApiError(404, `no topic ${topic}`);
  const partitions = desc.partitions
    .filter((p) => q.partition === null || p.partition === q.partition)
    .map((p) => ({ topic, partition: p.partition }));
  if (partitions.length === 0) throw new ApiError(404, `topic ${topic} has no partition ${q.partition}`);
  const ranges = await partitionRanges(admin, partitions);
  const tps = partitions.filter((tp) => ranges.has(tpKey(tp)));
  const starts = await startOffsets(admin, q, ranges, tps);
  const keyNeedle = q.key === '' ? null : Buffer.from(q.key);
  const valueNeedle = q.value === '' ? null : Buffer.from(q.value);
  const matches: ConsumerRecord[] = [];
  const next = new Map(starts);
  let scanned = 0;
  let stoppedEarly = false;
  const pending = tps.filter((tp) => starts.get(tpKey(tp))! < ranges.get(tpKey(tp))!.end);
  if (pending.length > 0) {
    const consumer = clients.consumer();
    try {
      consumer.assign(pending);
      for (const tp of pending) consumer.seek(tp, BigInt(starts.get(tpKey(tp))!));
      const open = new Set(pending.map(tpKey));
      const deadline = Date.now() + BROWSE_BUDGET_MS;
      const keepAll = q.mode === 'newest';
      while (open.size > 0) {
        if (Date.now() >= deadline || scanned >= q.maxScan || (!keepAll && matches.length >= q.limit)) {
          stoppedEarly = true;
          break;
        }
        for (const r of await consumer.poll(Math.min(300, Math.max(1, deadline - Date.now())))) {
          const k = tpKey(r);
          const end = ranges.get(k)!.end;
          if (!open.has(k) || Number(r.offset) >= end) continue;
          if (scanned >= q.maxScan || (!keepAll && matches.length >= q.limit)) break;
          scanned++;
          next.set(k, Number(r.offset) + 1);
          if (Number(r.offset) + 1 >= end) {
            open.delete(k);
            consumer.pause([r]);
          }
          if (keyNeedle && !(r.key?.includes(keyNeedle) ?? false)) continue;
          if (valueNeedle && !(r.value?.includes(valueNeedle) ?? false)) continue;
          matches.push(r);
        }
        for (const tp of pending) {
          const k = tpKey(tp);
          if (open.has(k) && (await consumer.position(tp)) >= BigInt(ranges.get(k)!.end)) open.delete(k);
        }
      }
    } finally {
      await consumer.close({ timeoutMs: 1000 }).catch(() => {});
    }
  }
  const ordered = matches.sort(
    (a, b) => a.timestamp - b.timestamp || a.partition - b.partition || Number(a.offset - b.offset),
  );
  const records = q.mode === 'newest' ? ordered.slice(-q.limit) : ordered.slice(0, q.limit);
  return {
    topic,
    records: records.map(recordJson),
    scanned,
    stoppedEarly,
    partitions: tps.map((tp) => ({
      partition: tp.partition,
      ...ranges.get(tpKey(tp))!,
      from: starts.get(tpKey(tp))!,
      next: next.get(tpKey(tp))!,
    })),
  };
}

function optString(v: unknown, what: string): string | null {
  if (v === undefined || v === null) return null;
  if (typeof v !== 'string') throw new ApiError(400, `${what} must be a string or null`);
  return v;
}

export async function produce(producer: Producer, topic: string, body: Record<string, unknown>) {
  const headersIn = body.headers ?? [];
  if (!Array.isArray(headersIn)) throw new ApiError(400, 'headers must be a list of {key, value}');
  const headers = headersIn.map((h: unknown, i): [string, string | null] => {
    const o = (h ?? {}) as Record<string, unknown>;
    if (typeof o.key !== 'string' || o.key === '')
      throw new ApiError(400, `headers[${i}].key must be a non-empty string`);
    return [o.key, optString(o.value, `headers[${i}].value`)];
  });
  const partition =
    body.partition === undefined || body.partition === null || body.partition === ''
      ? undefined
      : intParam(body.partition, 'partition');
  const md = await producer.send({
    topic,
    key: optString(body.key, 'key'),
    value: optString(body.value, 'value'),
    headers,
    ...(partition !== undefined ? { partition } : {}),
  });
  return { topic, partition: md.partition, offset: Number(md.offset), timestamp: md.timestamp };
}

/**
 * The timestamp of the record at each offset (one bounded read; ListOffsets maps times to offsets,
 * never offsets to times). Offsets at the log end are left out; so is what is not read in time.
 */
export async function recordTimestamps(
  clients: ConsoleClients,
  queries: readonly (TopicPartition & { offset: number; end: number })[],
  budgetMs = 3000,
): Promise<Map<string, number>> {
  const out = new Map<string, number>();
  const pending = new Map(queries.filter((q) => q.offset < q.end).map((q) => [tpKey(q), q]));
  if (pending.size === 0) return out;
  const consumer = clients.consumer();
  try {
    const all = [...pending.values()];
    consumer.assign(all.map(({ topic, partition }) => ({ topic, partition })));
    for (const q of all) consumer.seek(q, BigInt(q.offset));
    const deadline = Date.now() + budgetMs;
    while (pending.size > 0 && Date.now() < deadline) {
      for (const r of await consumer.poll(Math.min(200, Math.max(1, deadline - Date.now())))) {
        if (!pending.delete(tpKey(r))) continue;
        out.set(tpKey(r), r.timestamp);
        consumer.pause([r]);
      }
    }
  } catch {
    // An age is an extra column: a read that fails leaves it unknown.
  } finally {
    await consumer.close({ timeoutMs: 1000 }).catch(() => {});
  }
  return out;
}
