// Topics: search, sort, internal filter over every topic, done by the server, which sends one page
// (10,000 table rows take a browser seconds to lay out; a page of 100 renders at once); messages
// per second from the console's sampling, refreshed with each sample; create (partitions, RF,
// configs) and delete (the name is typed again to confirm), both hidden in read-only mode.
import { useEffect, useRef, useState } from 'preact/hooks';
import { api, enc, fmtBytes, fmtInt, fmtRate, html, Loading, useApi, useLiveEvent, useSort } from '../lib.js';

function parseConfigs(text) {
  const configs = {};
  for (const line of text.split('\n')) {
    const l = line.trim();
    if (l === '') continue;
    const eq = l.indexOf('=');
    if (eq <= 0) throw new Error(`"${l}" is not key=value`);
    configs[l.slice(0, eq).trim()] = l.slice(eq + 1).trim();
  }
  return configs;
}

function CreateTopic({ onDone }) {
  const [msg, setMsg] = useState(null);
  const submit = async (e) => {
    e.preventDefault();
    const f = new FormData(e.target);
    try {
      const body = {
        name: f.get('name'),
        partitions: f.get('partitions'),
        replicationFactor: f.get('replicationFactor'),
        configs: parseConfigs(f.get('configs')),
      };
      if (!confirm(`Create topic ${body.name}?`)) return;
      const t = await api.post('/topics', body);
      setMsg({
        ok: true,
        text: `Created ${t.name} (${t.numPartitions} partitions, RF ${t.replicationFactor})`,
      });
      e.target.reset();
      onDone();
    } catch (err) {
      setMsg({ ok: false, text: err.message });
    }
  };
  return html`<details class="panel">
    <summary>Create a topic</summary>
    <form onSubmit=${submit} aria-label="Create a topic">
      <label>Name <input name="name" required pattern="[a-zA-Z0-9._\\-]+" autocomplete="off" /></label>
      <label>Partitions <input name="partitions" type="number" min="1" placeholder="broker default" /></label>
      <label>Replication factor <input name="replicationFactor" type="number" min="1" placeholder="broker default" /></label>
      <label class="wide">Configs (key=value per line) <textarea name="configs" rows="3" placeholder="cleanup.policy=compact"></textarea></label>
      <button type="submit">Create topic</button>
    </form>
    ${msg ? html`<p class=${msg.ok ? 'ok' : 'error'} role="status">${msg.text}</p>` : null}
  </details>`;
}

export async function deleteTopic(name) {
  const typed = prompt(`Delete topic ${name} and all its records? Type the topic name to confirm.`);
  if (typed === null) return false;
  if (typed !== name) {
    alert('The name did not match; nothing was deleted.');
    return false;
  }
  await api.del(`/topics/${enc(name)}`, { confirm: name });
  return true;
}

const PAGE_SIZES = [100, 500, 1000];

function Pager({ page, pages, from, to, total, pageSize, setPage, setPageSize }) {
  return html`<div class="toolbar pager">
    <p class="count" data-testid="topic-count">${total === 0 ? 0 : `${fmtInt(from + 1)}–${fmtInt(to)}`} of ${fmtInt(total)} topics</p>
    ${
      pages > 1
        ? html`<button type="button" disabled=${page === 0} onClick=${() => setPage(page - 1)}>Previous</button>
      <span>Page ${page + 1} of ${pages}</span>
      <button type="button" disabled=${page >= pages - 1} onClick=${() => setPage(page + 1)}>Next</button>`
        : null
    }
    <label>Per page <select value=${pageSize} onChange=${(e) => {
      setPageSize(Number(e.target.value));
      setPage(0);
    }}>${PAGE_SIZES.map((n) => html`<option value=${n}>${n}</option>`)}</select></label>
  </div>`;
}

/** `value`, once it has not changed for `ms` (a search box asks the server once per pause). */
function useSettled(value, ms) {
  const [settled, setSettled] = useState(value);
  useEffect(() => {
    const t = setTimeout(() => setSettled(value), ms);
    return () => clearTimeout(t);
  }, [value]);
  return settled;
}

export function TopicsPage({ session }) {
  const [q, setQ] = useState('');
  const [internal, setInternal] = useState(false);
  const [error, setError] = useState(null);
  const [page, setPage] = useState(0);
  const [pageSize, setPageSize] = useState(PAGE_SIZES[0]);
  const { Th, sort } = useSort('name', () => setPage(0));
  const search = useSettled(q, 200);
  const query = new URLSearchParams({
    q: search,
    internal: internal ? '1' : '0',
    sort: sort.key,
    dir: sort.dir > 0 ? 'asc' : 'desc',
    offset: String(page * pageSize),
    limit: String(pageSize),
  });
  const state = useApi(`/topics?${query}`);
  // Each new sample of the console brings new rates and counts: the page asks for its rows again
  // (not for the last sample, which the stream repeats on opening: the rows just loaded have it).
  const live = useLiveEvent('cluster');
  const seen = useRef(null);
  useEffect(() => {
    if (live && seen.current !== null) state.reload();
    seen.current = live?.t ?? null;
  }, [live?.t]);
  const del = async (name) => {
    try {
      if (await deleteTopic(name)) state.reload();
    } catch (e) {
      setError(e.message);
    }
  };
  return html`
    <h1 tabindex="-1">Topics</h1>
    ${session.readOnly ? null : html`<${CreateTopic} onDone=${() => state.reload('fresh=1')} />`}
    <div class="toolbar">
      <label>Search <input type="search" value=${q} onInput=${(e) => {
        setQ(e.target.value);
        setPage(0);
      }} placeholder="topic name" /></label>
      <label class="check"><input type="checkbox" checked=${internal} onChange=${(e) => {
        setInternal(e.target.checked);
        setPage(0);
      }} /> Show internal topics</label>
      <button type="button" onClick=${() => state.reload('fresh=1')}>Refresh</button>
    </div>
    ${error ? html`<p class="error" role="alert">${error}</p>` : null}
    <${Loading} state=${state}>${(d) => {
      const pages = Math.max(1, Math.ceil(d.matching / pageSize));
      const at = Math.min(page, pages - 1);
      return html`<${Pager} page=${at} pages=${pages} from=${d.offset} to=${d.offset + d.rows.length}
        total=${d.matching} pageSize=${pageSize} setPage=${setPage} setPageSize=${setPageSize} />
      ${d.matching < d.total ? html`<p class="note">${fmtInt(d.total - d.matching)} of ${fmtInt(d.total)} topics filtered out.</p>` : null}
      <div class="scroll"><table>
        <thead><tr>
          <${Th} k="name">Name<//><${Th} k="partitions" num>Partitions<//><${Th} k="replicationFactor" num>RF<//>
          <${Th} k="underReplicated" num>Under-replicated<//><${Th} k="messages" num>Messages<//>
          <${Th} k="messagesPerSec" num><span title="High-watermark growth over the console's throughput window">In, msg/s</span><//><${Th} k="sizeBytes" num>Size<//>
          ${session.readOnly ? null : html`<th scope="col"><span class="sr">Actions</span></th>`}
        </tr></thead>
        <tbody>${d.rows.map(
          (t) => html`<tr data-topic=${t.name}>
            <td><a href=${`#/topics/${enc(t.name)}`}>${t.name}</a>${t.internal ? html` <span class="badge">internal</span>` : null}</td>
            <td class="num">${t.partitions}</td><td class="num">${t.replicationFactor}</td>
            <td class=${`num ${t.underReplicated + t.offline > 0 ? 'warn' : ''}`}>${t.underReplicated}${t.offline ? ` (+${t.offline} offline)` : ''}</td>
            <td class="num">${fmtInt(t.messages)}</td><td class="num" data-testid=${`rate-${t.name}`}>${fmtRate(t.messagesPerSec)}</td><td class="num">${fmtBytes(t.sizeBytes)}</td>
            ${session.readOnly ? null : html`<td><button type="button" class="danger" onClick=${() => del(t.name)} aria-label=${`Delete topic ${t.name}`}>Delete</button></td>`}
          </tr>`,
        )}</tbody>
      </table></div>`;
    }}<//>`;
}
