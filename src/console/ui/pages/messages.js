// Message browser: a partition (or all), a start (oldest, newest, an offset, a time), key/value
// substring search over a bounded read, values as string / pretty JSON / hex; produce a message.
import { useEffect, useState } from 'preact/hooks';
import { api, enc, fmtInt, fmtTime, html, showBytes, useApi } from '../lib.js';

/** datetime-local value (the browser's time zone) for epoch milliseconds. */
function localInput(ms) {
  const d = new Date(ms - new Date(ms).getTimezoneOffset() * 60_000);
  return d.toISOString().slice(0, 23);
}

function Produce({ topic, partitions, onProduced }) {
  const [msg, setMsg] = useState(null);
  const submit = async (e) => {
    e.preventDefault();
    const f = new FormData(e.target);
    const headers = String(f.get('headers'))
      .split('\n')
      .map((l) => l.trim())
      .filter((l) => l !== '')
      .map((l) => {
        const eq = l.indexOf('=');
        return eq < 0 ? { key: l, value: null } : { key: l.slice(0, eq).trim(), value: l.slice(eq + 1) };
      });
    const body = {
      key: f.get('nullKey') ? null : String(f.get('key')),
      value: String(f.get('value')),
      headers,
      partition: f.get('partition') === '' ? null : Number(f.get('partition')),
    };
    if (!confirm(`Produce this message to ${topic}?`)) return;
    try {
      const r = await api.post(`/topics/${enc(topic)}/messages`, body);
      setMsg({ ok: true, text: `Produced to partition ${r.partition} at offset ${r.offset}`, r });
      onProduced(r);
    } catch (err) {
      setMsg({ ok: false, text: err.message });
    }
  };
  return html`<details class="panel"><summary>Produce a message</summary>
    <form onSubmit=${submit} aria-label="Produce a message">
      <label>Key <input name="key" autocomplete="off" /></label>
      <label class="check"><input type="checkbox" name="nullKey" /> null key</label>
      <label>Partition <select name="partition"><option value="">by key (partitioner)</option>
        ${partitions.map((p) => html`<option value=${p}>${p}</option>`)}</select></label>
      <label class="wide">Value <textarea name="value" rows="4"></textarea></label>
      <label class="wide">Headers (key=value per line) <textarea name="headers" rows="2"></textarea></label>
      <button type="submit">Produce</button>
    </form>
    ${msg ? html`<p class=${msg.ok ? 'ok' : 'error'} role="status" data-testid="produce-result">${msg.text}</p>` : null}
  </details>`;
}

function Records({ result, as }) {
  if (result.records.length === 0) return html`<p>No record matched.</p>`;
  return html`<div class="scroll"><table class="records">
    <thead><tr><th scope="col">Partition</th><th scope="col" class="num">Offset</th><th scope="col">Timestamp</th>
      <th scope="col">Key</th><th scope="col">Value</th><th scope="col">Headers</th></tr></thead>
    <tbody>${result.records.map(
      (r) => html`<tr>
        <td>${r.partition}</td><td class="num">${r.offset}</td>
        <td><time datetime=${fmtTime(r.timestamp)}>${fmtTime(r.timestamp)}</time><br /><small>${r.timestampType}</small></td>
        <td><pre>${showBytes(r.key, as === 'json' ? 'string' : as)}</pre></td>
        <td><pre>${showBytes(r.value, as)}</pre></td>
        <td>${r.headers.map((h) => html`<div><code>${h.key}</code>: ${showBytes(h.value, as === 'json' ? 'string' : as)}</div>`)}</td>
      </tr>`,
    )}</tbody>
  </table></div>`;
}

export function MessagesPage({ topic, session }) {
  const detail = useApi(`/topics/${enc(topic)}`);
  const partitions = detail.data?.partitions.map((p) => p.partition) ?? [];
  const [query, setQuery] = useState({
    partition: 'all',
    mode: 'newest',
    offset: '',
    time: '',
    limit: '50',
    key: '',
    value: '',
  });
  const [result, setResult] = useState(null);
  const [error, setError] = useState(null);
  const [busy, setBusy] = useState(false);
  const [as, setAs] = useState('string');
  const run = async (q) => {
    const p = new URLSearchParams({
      partition: q.partition,
      mode: q.mode,
      limit: q.limit,
      key: q.key,
      value: q.value,
    });
    if (q.mode === 'offset') p.set('offset', q.offset || '0');
    if (q.mode === 'timestamp') p.set('timestamp', String(new Date(q.time).getTime()));
    setBusy(true);
    try {
      setResult(await api.get(`/topics/${enc(topic)}/messages?${p}`));
      setError(null);
    } catch (e) {
      setError(e.message);
    } finally {
      setBusy(false);
    }
  };
  useEffect(() => {
    run(query);
  }, []);
  const set = (k) => (e) => setQuery({ ...query, [k]: e.target.value });
  const submit = (e) => {
    e.preventDefault();
    run(query);
  };
  const showProduced = (r) => {
    const q = {
      ...query,
      partition: String(r.partition),
      mode: 'offset',
      offset: String(r.offset),
      key: '',
      value: '',
    };
    setQuery(q);
    run(q);
  };
  return html`
    <p class="crumbs"><a href="#/topics">Topics</a> / <a href=${`#/topics/${enc(topic)}`}>${topic}</a> /</p>
    <h1 tabindex="-1">Messages of ${topic}</h1>
    ${session.readOnly ? null : html`<${Produce} topic=${topic} partitions=${partitions} onProduced=${showProduced} />`}
    <form class="browse" onSubmit=${submit} aria-label="Find messages">
      <label>Partition <select name="partition" value=${query.partition} onChange=${set('partition')}>
        <option value="all">all</option>${partitions.map((p) => html`<option value=${String(p)}>${p}</option>`)}</select></label>
      <label>From <select name="mode" value=${query.mode} onChange=${set('mode')}>
        <option value="newest">newest</option><option value="oldest">oldest</option>
        <option value="offset">offset</option><option value="timestamp">timestamp</option></select></label>
      ${query.mode === 'offset' ? html`<label>Offset <input name="offset" type="number" min="0" value=${query.offset} onInput=${set('offset')} /></label>` : null}
      ${
        query.mode === 'timestamp'
          ? html`<label>Time (local) <input name="time" type="datetime-local" step="0.001" required value=${query.time || localInput(Date.now() - 3600_000)} onInput=${set('time')} /></label>`
          : null
      }
      <label>Limit <input name="limit" type="number" min="1" max="500" value=${query.limit} onInput=${set('limit')} /></label>
      <label>Key contains <input name="key" type="search" value=${query.key} onInput=${set('key')} /></label>
      <label>Value contains <input name="value" type="search" value=${query.value} onInput=${set('value')} /></label>
      <button type="submit" disabled=${busy}>${busy ? 'Reading…' : 'Find'}</button>
    </form>
    <div class="toolbar" role="group" aria-label="Show values as">
      ${['string', 'json', 'hex'].map(
        (x) =>
          html`<label class="check"><input type="radio" name="as" value=${x} checked=${as === x} onChange=${() => setAs(x)} /> ${x === 'json' ? 'JSON' : x}</label>`,
      )}
    </div>
    ${error ? html`<p class="error" role="alert">${error}</p>` : null}
    ${
      result
        ? html`<p class="count" data-testid="browse-summary">${result.records.length} records shown, ${fmtInt(result.scanned)} scanned${result.stoppedEarly ? ' (stopped at the scan limit; narrow the search or move the start)' : ''}.</p>
        <${Records} result=${result} as=${as} />`
        : null
    }`;
}
