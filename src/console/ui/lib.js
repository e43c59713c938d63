// Shared pieces of the console's pages: htm bound to preact, the API calls, formatting, and the
// decoding of record bytes (the API sends keys, values and headers as base64).
import htm from 'htm';
import { h } from 'preact';
import { useEffect, useRef, useState } from 'preact/hooks';

export const html = htm.bind(h);

export class ApiFailure extends Error {
  constructor(status, message) {
    super(message);
    this.status = status;
  }
}

// A login session's CSRF token (sent with every write), and who to tell when the session is gone.
let csrf = null;
let onLoggedOut = () => {};
export function setSession(session, loggedOut) {
  csrf = session?.csrf ?? null;
  if (loggedOut) onLoggedOut = loggedOut;
}

async function call(method, path, body) {
  const init = { method, headers: { Accept: 'application/json' } };
  if (body !== undefined) {
    init.headers['Content-Type'] = 'application/json';
    init.body = JSON.stringify(body);
  }
  if (method !== 'GET' && csrf !== null) init.headers['X-Samsa-CSRF'] = csrf;
  const res = await fetch(`/api${path}`, init);
  const data = await res.json().catch(() => ({}));
  if (res.status === 401 && data.login) onLoggedOut();
  if (!res.ok) throw new ApiFailure(res.status, data.error ?? `${res.status} ${res.statusText}`);
  return data;
}

export const api = {
  get: (path) => call('GET', path),
  post: (path, body) => call('POST', path, body ?? {}),
  del: (path, body) => call('DELETE', path, body ?? {}),
};

export const enc = encodeURIComponent;

/**
 * Loads `path` (again whenever `deps` change); `reload()` fetches it anew, `reload('fresh=1')`
 * once with that query added.
 */
export function useApi(path, deps = []) {
  const [state, setState] = useState({ data: null, error: null, loading: true });
  const [n, setN] = useState(0);
  const extra = useRef('');
  useEffect(() => {
    let live = true;
    setState((s) => ({ ...s, loading: true }));
    const q = extra.current;
    extra.current = '';
    api.get(q === '' ? path : `${path}${path.includes('?') ? '&' : '?'}${q}`).then(
      (data) => live && setState({ data, error: null, loading: false }),
      (error) => live && setState({ data: null, error, loading: false }),
    );
    return () => {
      live = false;
    };
  }, [path, n, ...deps]);
  return {
    ...state,
    reload: (q = '') => {
      extra.current = typeof q === 'string' ? q : '';
      setN((x) => x + 1);
    },
  };
}

/** The latest event of `name` on the console's event stream (one EventSource per page). */
let source = null;
export function useLiveEvent(name) {
  const [value, setValue] = useState(null);
  useEffect(() => {
    source ??= new EventSource('/api/events');
    const s = source;
    const fn = (e) => setValue(JSON.parse(e.data));
    s.addEventListener(name, fn);
    return () => s.removeEventListener(name, fn);
  }, [name]);
  return value;
}

/** Closes the event stream (logout); the next page that listens opens a new one. */
export function closeLive() {
  source?.close();
  source = null;
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

/** A rate: `1,234/s`, `12.5/s` below 100, `<0.1/s` for a trickle; `–` when unknown. */
export function fmtRate(n) {
  if (n === null || n === undefined) return '–';
  if (n > 0 && n < 0.1) return '<0.1/s';
  return `${n < 100 && n !== 0 ? n.toFixed(1) : numbers.format(Math.round(n))}/s`;
}

export const fmtByteRate = (n) =>
  n === null || n === undefined ? '–' : `${fmtBytes(n < 1024 ? Math.round(n) : n)}/s`;

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

/**
 * A table whose columns sort when their header button is pressed; `apply` sorts rows here,
 * `sort` ({key, dir}) is for tables sorted by the server.
 */
export function useSort(initial, onChange = () => {}) {
  const [sort, setSort] = useState({ key: initial, dir: 1 });
  const by = (key) => {
    setSort((s) => ({ key, dir: s.key === key ? -s.dir : 1 }));
    onChange();
  };
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
  return { apply, Th, sort };
}
