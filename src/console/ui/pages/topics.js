// Topics: search, sort, internal filter over every topic, shown a page at a time (10,000 table rows
// take a browser seconds to lay out; a page of 100 renders at once); create (partitions, RF,
// configs) and delete (the name is typed again to confirm), both hidden in read-only mode.
import { useState } from 'preact/hooks';
import { api, enc, fmtBytes, fmtInt, html, Loading, useApi, useSort } from '../lib.js';

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

export function TopicsPage({ session }) {
  const state = useApi('/topics');
  const [q, setQ] = useState('');
  const [internal, setInternal] = useState(false);
  const [error, setError] = useState(null);
  const [page, setPage] = useState(0);
  const [pageSize, setPageSize] = useState(PAGE_SIZES[0]);
  const { apply, Th } = useSort('name');
  const del = async (name) => {
    try {
      if (await deleteTopic(name)) state.reload();
    } catch (e) {
      setError(e.message);
    }
  };
  return html`
    <h1 tabindex="-1">Topics</h1>
    ${session.readOnly ? null : html`<${CreateTopic} onDone=${state.reload} />`}
    <div class="toolbar">
      <label>Search <input type="search" value=${q} onInput=${(e) => {
        setQ(e.target.value);
        setPage(0);
      }} placeholder="topic name" /></label>
      <label class="check"><input type="checkbox" checked=${internal} onChange=${(e) => setInternal(e.target.checked)} /> Show internal topics</label>
      <button type="button" onClick=${state.reload}>Refresh</button>
    </div>
    ${error ? html`<p class="error" role="alert">${error}</p>` : null}
    <${Loading} state=${state}>${(rows) => {
      const matching = apply(
        rows.filter((t) => (internal || !t.internal) && t.name.toLowerCase().includes(q.toLowerCase())),
      );
      const pages = Math.max(1, Math.ceil(matching.length / pageSize));
      const at = Math.min(page, pages - 1);
      const shown = matching.slice(at * pageSize, (at + 1) * pageSize);
      return html`<${Pager} page=${at} pages=${pages} from=${at * pageSize} to=${at * pageSize + shown.length}
        total=${matching.length} pageSize=${pageSize} setPage=${setPage} setPageSize=${setPageSize} />
      ${matching.length < rows.length ? html`<p class="note">${fmtInt(rows.length - matching.length)} of ${fmtInt(rows.length)} topics filtered out.</p>` : null}
      <div class="scroll"><table>
        <thead><tr>
          <${Th} k="name">Name<//><${Th} k="partitions" num>Partitions<//><${Th} k="replicationFactor" num>RF<//>
          <${Th} k="underReplicated" num>Under-replicated<//><${Th} k="messages" num>Messages<//><${Th} k="sizeBytes" num>Size<//>
          ${session.readOnly ? null : html`<th scope="col"><span class="sr">Actions</span></th>`}
        </tr></thead>
        <tbody>${shown.map(
          (t) => html`<tr>
            <td><a href=${`#/topics/${enc(t.name)}`}>${t.name}</a>${t.internal ? html` <span class="badge">internal</span>` : null}</td>
            <td class="num">${t.partitions}</td><td class="num">${t.replicationFactor}</td>
            <td class=${`num ${t.underReplicated + t.offline > 0 ? 'warn' : ''}`}>${t.underReplicated}${t.offline ? ` (+${t.offline} offline)` : ''}</td>
            <td class="num">${fmtInt(t.messages)}</td><td class="num">${fmtBytes(t.sizeBytes)}</td>
            ${session.readOnly ? null : html`<td><button type="button" class="danger" onClick=${() => del(t.name)} aria-label=${`Delete topic ${t.name}`}>Delete</button></td>`}
          </tr>`,
        )}</tbody>
      </table></div>`;
    }}<//>`;
}
