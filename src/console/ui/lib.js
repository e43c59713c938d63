// Shared pieces of the console's pages: htm bound to preact, the API calls, formatting, and the
// decoding of record bytes (the API sends keys, values and headers as base64).
import htm from 'htm';
import { h } from 'preact';
import { useEffect, useState } from 'preact/hooks';

export const html = htm.bind(h);

export class ApiFailure extends Error {
  constructor(status, message) {
    super(message);
    this.status = status;
  }
}

async function call(method, path, body) {
  const init = { method, headers: { Accept: 'application/json' } };
  if (body !== undefined) {
    init.headers['Content-Type'] = 'application/json';
    init.body = JSON.stringify(body);
  }
  const res = await fetch(`/api${path}`, init);
  const data = await res.json().catch(() => ({}));
  if (!res.ok) throw new ApiFailure(res.status, data.error ?? `${res.status} ${res.statusText}`);
  return data;
}

export const api = {
  get: (path) => call('GET', path),
  post: (path, body) => call('POST', path, body ?? {}),
  del: (path, body) => call('DELETE', path, body ?? {}),
};

export const enc = encodeURIComponent;

/** Loads `path` (again whenever `deps` change); `reload()` fetches it anew. */
export function useApi(path, deps = []) {
  const [state, setState] = useState({ data: null, error: null, loading: true });
  const [n, setN] = useState(0);
  useEffect(() => {
    let live = true;
    setState((s) => ({ ...s, loading: true }));
    api.get(path).then(
      (data) => live && setState({ data, error: null, loading: false }),
      (error) => live && setState({ data: null, error, loading: false }),
    );
    return () => {
      live = false;
    };
  }, [path, n, ...deps]);
  return { ...state, reload: () => setN((x) => x + 1) };
}

/** The latest event of `name` on the console's event stream (one EventSource per page). */
let source = null;
const listeners = new Map();
export function useLiveEvent(name) {
  const [value, setValue] = useState(null);
  useEffect(() => {
    source ??= new EventSource('/api/events');
    const fn = (e) => setValue(JSON.parse(e.data));
    source.addEventListener(name, fn);
    listeners.set(fn, name);
    return () => {
      source.removeEventListener(name, fn);
      listeners.delete(fn);
    };
  }, [name]);
  return value;
}

export function Loading({ state, children }) {
  if (state.error) return html`<p class="error" role="alert">${state.error.message}</p>`;
  if (state.data === null) return html`<p class="loading">Loading…</p>`;
  return children(state.data);
}

// One formatter and one collator: toLocaleString and localeCompare build ICU objects per call,
// which costs seconds over a 10,000-topic table.
const numbers = new Intl.NumberFormat('en-US');
const collator = new Intl.Collator('en-US');
export const fmtInt = (n) => (n === null || n === undefined ? '–' : numbers.format(Number(n)));

export function fmtBytes(n) {
  if (n === null || n === undefined) return '–';
  const units = ['B', 'KiB', 'MiB', 'GiB', 'TiB'];
  let i = 0;
  let v = n;
  while (v >= 1024 && i < units.length - 1) {
    v /= 1024;
    i++;
  }
  return `${i === 0 ? v : v.toFixed(1)} ${units[i]}`;
}

export function fmtSeconds(s) {
  if (s === null || s === undefined) return '–';
  if (s < 1) return s === 0 ? '0 s' : `${Math.round(s * 1000)} ms`;
  if (s < 120) return `${s.toFixed(1)} s`;
  if (s < 7200) return `${Math.floor(s / 60)} min ${Math.round(s % 60)} s`;
  return `${Math.floor(s / 3600)} h ${Math.round((s % 3600) / 60)} min`;
}

export const fmtTime = (ms) => (ms === null || ms === undefined || ms < 0 ? '–' : new Date(ms).toISOString());

export function bytesOf(b64) {
  if (b64 === null || b64 === undefined) return null;
  const s = atob(b64);
  const out = new Uint8Array(s.length);
  for (let i = 0; i < s.length; i++) out[i] = s.charCodeAt(i);
  return out;
}

const utf8 = new TextDecoder('utf-8', { fatal: true });

/** Bytes shown as 'string' (UTF-8, or hex when not UTF-8), 'json' (pretty, or the string) or 'hex'. */
export function showBytes(b64, as) {
  const bytes = bytesOf(b64);
  if (bytes === null) return 'null';
  const hex = () => [...bytes].map((x) => x.toString(16).padStart(2, '0')).join(' ');
  if (as === 'hex') return hex();
  let text;
  try {
    text = utf8.decode(bytes);
  } catch {
    return hex();
  }
  if (as === 'json') {
    try {
      return JSON.stringify(JSON.parse(text), null, 2);
    } catch {
      return text;
    }
  }
  return text;
}

/** A table whose columns sort when their header button is pressed. */
export function useSort(initial) {
  const [sort, setSort] = useState({ key: initial, dir: 1 });
  const by = (key) => setSort((s) => ({ key, dir: s.key === key ? -s.dir : 1 }));
  const apply = (rows) =>
    [...rows].sort((a, b) => {
      const x = a[sort.key];
      const y = b[sort.key];
      const c = typeof x === 'string' ? collator.compare(x, y) : (x ?? -1) - (y ?? -1);
      return c * sort.dir;
    });
  const Th = ({ k, children, num }) =>
    html`<th scope="col" class=${num ? 'num' : ''} aria-sort=${sort.key === k ? (sort.dir > 0 ? 'ascending' : 'descending') : 'none'}>
      <button type="button" class="sort" onClick=${() => by(k)}>${children}${sort.key === k ? (sort.dir > 0 ? ' ▲' : ' ▼') : ''}</button>
    </th>`;
  return { apply, Th };
}
