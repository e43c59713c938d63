// Topic detail: partitions (leader, replicas, ISR, log start, high watermark, per-replica size and
// log end offset), configs (defaults vs overrides), the groups that consume it; add partitions,
// change configs, delete; preferred leader election and partition reassignment (topic-actions.js).
import { useState } from 'preact/hooks';
import { api, enc, fmtBytes, fmtInt, html, Loading, useApi } from '../lib.js';
import { ClusterActions } from './topic-actions.js';
import { deleteTopic } from './topics.js';

/**
 * LEO of a replica: asked of its broker (ListOffsets, replica id -2), else derived from
 * DescribeLogDirs' offsetLag = max(0, replica HW − replica LEO).
 */
function replicaLeo(p, r) {
  if (r.logEndOffset !== null) return fmtInt(r.logEndOffset);
  if (p.highWatermark === null || r.offsetLag === null) return '–';
  return r.offsetLag > 0 ? fmtInt(p.highWatermark - r.offsetLag) : `≥ ${fmtInt(p.highWatermark)}`;
}

function Partitions({ t }) {
  return html`<div class="scroll"><table class="partitions">
    <thead><tr><th scope="col">Partition</th><th scope="col">Leader</th><th scope="col">Preferred</th><th scope="col">Replicas</th><th scope="col">ISR</th>
      <th scope="col" class="num">Log start</th><th scope="col" class="num">High watermark</th>
      <th scope="col">Per replica: broker · size · log end offset</th></tr></thead>
    <tbody>${t.partitions.map(
      (
        p,
      ) => html`<tr class=${p.leader < 0 ? 'bad' : p.underReplicated ? 'warn' : ''} data-partition=${p.partition}>
        <td>${p.partition}</td><td>${p.leader >= 0 ? p.leader : 'none'}</td>
        <td>${p.preferredLeader}${p.leader === p.preferredLeader ? '' : html` <span class="badge" title="the first replica does not lead">not leading</span>`}</td>
        <td>${p.replicas.join(', ')}</td><td>${p.isr.join(', ')}</td>
        <td class="num">${fmtInt(p.logStartOffset)}</td><td class="num">${fmtInt(p.highWatermark)}</td>
        <td><ul class="replicas">${p.replicaLogs.map(
          (r) => html`<li data-testid=${`replica-${p.partition}-${r.broker}`}>
            <strong>${r.broker}</strong>${r.leader ? ' (leader)' : ''}${r.inIsr ? '' : ' (out of ISR)'}${r.offline ? ' (offline)' : ''}${' · '}${fmtBytes(r.sizeBytes)} · LEO ${replicaLeo(p, r)}</li>`,
        )}</ul></td>
      </tr>`,
    )}</tbody>
  </table></div>
  <p class="note">High watermark and log start come from the leader (ListOffsets). A replica's log end offset is
  asked of its own broker (ListOffsets with replica id -2). When that broker does not answer, it is derived from
  DescribeLogDirs' <code>offsetLag</code> (its high watermark minus its log end offset, at least 0): HW − offsetLag
  when the lag is positive, otherwise "≥ HW".</p>`;
}

function Configs({ t, session, onDone }) {
  const [all, setAll] = useState(false);
  const [msg, setMsg] = useState(null);
  const shown = t.configs.filter((c) => all || !c.isDefault);
  const submit = async (e) => {
    e.preventDefault();
    const f = new FormData(e.target);
    const key = String(f.get('key')).trim();
    const value = String(f.get('value'));
    const remove = f.get('op') === 'delete';
    if (
      !confirm(remove ? `Remove the override of ${key} on ${t.name}?` : `Set ${key}=${value} on ${t.name}?`)
    )
      return;
    try {
      await api.post(
        `/topics/${enc(t.name)}/configs`,
        remove ? { delete: [key] } : { set: { [key]: value } },
      );
      setMsg({ ok: true, text: 'Saved.' });
      onDone();
    } catch (err) {
      setMsg({ ok: false, text: err.message });
    }
  };
  return html`
    <label class="check"><input type="checkbox" checked=${all} onChange=${(e) => setAll(e.target.checked)} /> Show defaults too</label>
    <div class="scroll"><table>
      <thead><tr><th scope="col">Config</th><th scope="col">Value</th><th scope="col">Source</th></tr></thead>
      <tbody>${shown.map(
        (c) => html`<tr class=${c.isDefault ? 'default' : 'override'} data-config=${c.name}>
          <td><code>${c.name}</code></td><td>${c.sensitive ? '(sensitive)' : (c.value ?? 'null')}</td>
          <td>${c.isDefault ? 'default' : html`<strong>override</strong>`} <small>${c.source}</small></td></tr>`,
      )}</tbody>
    </table></div>
    ${shown.length === 0 ? html`<p>No overrides: every config is the broker's default.</p>` : null}
    ${
      session.readOnly
        ? null
        : html`<details class="panel"><summary>Change a config</summary>
      <form onSubmit=${submit} aria-label="Change a config">
        <label>Key <input name="key" required list="config-keys" autocomplete="off" /></label>
        <datalist id="config-keys">${t.configs.map((c) => html`<option value=${c.name} />`)}</datalist>
        <label>Value <input name="value" /></label>
        <label>Action <select name="op"><option value="set">set</option><option value="delete">remove override</option></select></label>
        <button type="submit">Apply</button>
      </form>
      ${msg ? html`<p class=${msg.ok ? 'ok' : 'error'} role="status">${msg.text}</p>` : null}
    </details>`
    }`;
}

function AddPartitions({ t, onDone }) {
  const [msg, setMsg] = useState(null);
  const submit = async (e) => {
    e.preventDefault();
    const count = Number(new FormData(e.target).get('count'));
    if (
      !confirm(
        `Grow ${t.name} from ${t.partitions.length} to ${count} partitions? Keys will map to other partitions.`,
      )
    )
      return;
    try {
      await api.post(`/topics/${enc(t.name)}/partitions`, { count });
      onDone();
    } catch (err) {
      setMsg(err.message);
    }
  };
  return html`<details class="panel"><summary>Add partitions</summary>
    <form onSubmit=${submit} aria-label="Add partitions">
      <label>New partition count <input name="count" type="number" min=${t.partitions.length + 1} required /></label>
      <button type="submit">Add partitions</button>
    </form>${msg ? html`<p class="error" role="alert">${msg}</p>` : null}</details>`;
}

export function TopicPage({ name, session }) {
  const state = useApi(`/topics/${enc(name)}`);
  const [error, setError] = useState(null);
  const del = async () => {
    try {
      if (await deleteTopic(name)) location.hash = '#/topics';
    } catch (e) {
      setError(e.message);
    }
  };
  return html`
    <p class="crumbs"><a href="#/topics">Topics</a> /</p>
    <h1 tabindex="-1">${name}</h1>
    <div class="toolbar">
      <a class="button" href=${`#/topics/${enc(name)}/messages`}>Browse messages</a>
      <button type="button" onClick=${state.reload}>Refresh</button>
      ${session.readOnly ? null : html`<button type="button" class="danger" onClick=${del}>Delete topic</button>`}
    </div>
    ${error ? html`<p class="error" role="alert">${error}</p>` : null}
    <${Loading} state=${state}>${(t) => html`
      <p class="meta">Topic id <code>${t.topicId}</code>${t.internal ? ' · internal' : ''} · ${t.partitions.length} partitions</p>
      <h2>Partitions</h2>
      <${Partitions} t=${t} />
      ${session.readOnly ? null : html`<${AddPartitions} t=${t} onDone=${state.reload} /><${ClusterActions} t=${t} onDone=${state.reload} />`}
      <h2>Configs</h2>
      <${Configs} t=${t} session=${session} onDone=${state.reload} />
      <h2>Consumer groups</h2>
      ${
        t.groups.length === 0
          ? html`<p>No group has committed offsets on this topic.</p>`
          : html`<ul>${t.groups.map((g) => html`<li><a href=${`#/groups/${enc(g)}`}>${g}</a></li>`)}</ul>`
      }`}
    <//>`;
}
