// A consumer group: its type; a consumer group's (KIP-848) group and assignment epochs and
// assignor; members and assignments (group-members.js), per partition committed offset, log end,
// lag and lag in seconds, the lag history chart (sampled by the console), reset offsets with a dry-run
// preview, delete.
import { useEffect, useState } from 'preact/hooks';
import { api, enc, fmtInt, fmtSeconds, html, Loading, useApi, useLiveEvent } from '../lib.js';
import { GroupMembers } from './group-members.js';

function LagChart({ samples }) {
  if (samples.length < 2)
    return html`<p class="note">The lag history fills in as the console samples the group.</p>`;
  const w = 600;
  const h = 120;
  const t0 = samples[0].t;
  const t1 = samples[samples.length - 1].t;
  const max = Math.max(1, ...samples.map((s) => s.lag));
  const pts = samples.map(
    (s) => `${(((s.t - t0) / Math.max(1, t1 - t0)) * w).toFixed(1)},${(h - (s.lag / max) * h).toFixed(1)}`,
  );
  return html`<figure class="chart">
    <svg viewBox=${`0 0 ${w} ${h}`} preserveAspectRatio="none" role="img" aria-label=${`Lag from ${new Date(t0).toLocaleTimeString()} to ${new Date(t1).toLocaleTimeString()}, at most ${max}`}>
      <polyline points=${pts.join(' ')} fill="none" stroke="currentColor" stroke-width="2" vector-effect="non-scaling-stroke" />
    </svg>
    <figcaption>Total lag, ${new Date(t0).toLocaleTimeString()} – ${new Date(t1).toLocaleTimeString()} (max ${fmtInt(max)})</figcaption>
  </figure>`;
}

function Reset({ g, onDone }) {
  const topics = [...new Set(g.offsets.map((o) => o.topic))];
  const [form, setForm] = useState({ topic: '', mode: 'to-earliest', value: '' });
  const [plan, setPlan] = useState(null);
  const [msg, setMsg] = useState(null);
  const [open, setOpen] = useState(false);
  const body = () => ({
    topic: form.topic,
    mode: form.mode,
    value: form.mode === 'to-datetime' ? new Date(form.value).getTime() : form.value,
  });
  const preview = async (e) => {
    e.preventDefault();
    try {
      setPlan(await api.post(`/groups/${enc(g.groupId)}/reset`, body()));
      setMsg(null);
    } catch (err) {
      setPlan(null);
      setMsg({ ok: false, text: err.message });
    }
  };
  const execute = async () => {
    if (!confirm(`Reset the offsets of ${g.groupId} as previewed?`)) return;
    try {
      const r = await api.post(`/groups/${enc(g.groupId)}/reset`, { ...body(), execute: true });
      setPlan(r);
      setMsg({ ok: true, text: `Offsets reset on ${r.plan.length} partitions.` });
      onDone();
    } catch (err) {
      setMsg({ ok: false, text: err.message });
    }
  };
  const set = (k) => (e) => {
    setForm({ ...form, [k]: e.target.value });
    setPlan(null);
  };
  // Opened by the user or by a plan; editing the form after a preview must not close it.
  return html`<details class="panel" open=${open || plan !== null} onToggle=${(e) => setOpen(e.target.open)}>
    <summary>Reset offsets</summary>
    <form onSubmit=${preview} aria-label="Reset offsets">
      <label>Topic <select name="topic" value=${form.topic} onChange=${set('topic')}>
        <option value="">every committed partition</option>${topics.map((t) => html`<option value=${t}>${t}</option>`)}</select></label>
      <label>Mode <select name="mode" value=${form.mode} onChange=${set('mode')}>
        ${['to-earliest', 'to-latest', 'to-offset', 'to-datetime', 'shift-by'].map((m) => html`<option value=${m}>${m}</option>`)}</select></label>
      ${
        form.mode === 'to-offset' || form.mode === 'shift-by'
          ? html`<label>${form.mode === 'shift-by' ? 'Shift by' : 'Offset'} <input name="value" type="number" required value=${form.value} onInput=${set('value')} /></label>`
          : form.mode === 'to-datetime'
            ? html`<label>Time (local) <input name="value" type="datetime-local" step="0.001" required value=${form.value} onInput=${set('value')} /></label>`
            : null
      }
      <button type="submit">Preview (dry run)</button>
    </form>
    ${
      plan
        ? html`<div class="scroll"><table data-testid="reset-plan"><caption>${plan.executed ? 'Applied' : 'Dry run: nothing changed yet'}</caption>
        <thead><tr><th scope="col">Topic</th><th scope="col">Partition</th><th scope="col" class="num">Current</th><th scope="col" class="num">New offset</th></tr></thead>
        <tbody>${plan.plan.map((p) => html`<tr><td>${p.topic}</td><td>${p.partition}</td><td class="num">${fmtInt(p.current)}</td><td class="num">${fmtInt(p.target)}</td></tr>`)}</tbody>
      </table></div>
      ${
        plan.executed
          ? null
          : html`<button type="button" class="danger" onClick=${execute}>Execute reset</button>
        ${g.state !== 'Empty' ? html`<p class="note">The group is ${g.state}: Kafka resets offsets only while a group has no members.</p>` : null}`
      }`
        : null
    }
    ${msg ? html`<p class=${msg.ok ? 'ok' : 'error'} role="status">${msg.text}</p>` : null}
  </details>`;
}

export function GroupPage({ id, session }) {
  const state = useApi(`/groups/${enc(id)}`);
  const history = useApi(`/groups/${enc(id)}/lag-history`);
  const live = useLiveEvent('groups');
  const [error, setError] = useState(null);
  useEffect(() => {
    if (live) history.reload();
  }, [live?.t]);
  const del = async () => {
    if (prompt(`Delete group ${id} and its committed offsets? Type the group id to confirm.`) !== id) return;
    try {
      await api.del(`/groups/${enc(id)}`, { confirm: id });
      location.hash = '#/groups';
    } catch (e) {
      setError(e.message);
    }
  };
  return html`
    <p class="crumbs"><a href="#/groups">Consumer groups</a> /</p>
    <h1 tabindex="-1">${id}</h1>
    <div class="toolbar">
      <button type="button" onClick=${state.reload}>Refresh</button>
      ${session.readOnly ? null : html`<button type="button" class="danger" onClick=${del}>Delete group</button>`}
    </div>
    ${error ? html`<p class="error" role="alert">${error}</p>` : null}
    <${Loading} state=${state}>${(g) => html`
      <dl class="stats">
        <div><dt>Type</dt><dd data-testid="group-type">${g.type}</dd></div>
        <div><dt>State</dt><dd data-testid="group-state">${g.state}</dd></div>
        ${
          g.type === 'consumer'
            ? html`<div><dt>Group epoch</dt><dd data-testid="group-epoch">${g.groupEpoch}</dd></div>
        <div><dt title="The group epoch the target assignment was computed for">Assignment epoch</dt><dd data-testid="assignment-epoch">${g.assignmentEpoch}</dd></div>
        <div><dt>Assignor</dt><dd data-testid="assignor">${g.protocol || '–'}</dd></div>`
            : html`<div><dt>Protocol</dt><dd>${g.protocolType || '–'} ${g.protocol ? `(${g.protocol})` : ''}</dd></div>`
        }
        <div><dt>Coordinator</dt><dd>broker ${g.coordinator.nodeId}</dd></div>
        <div><dt>Members</dt><dd>${g.members.length}</dd></div>
        <div><dt>Total lag</dt><dd data-testid="total-lag">${fmtInt(g.totalLag)}</dd></div>
      </dl>
      <h2>Lag history</h2>
      ${history.data ? html`<${LagChart} samples=${history.data.samples} />` : null}
      <h2>Partitions</h2>
      <div class="scroll"><table data-testid="group-offsets">
        <thead><tr><th scope="col">Topic</th><th scope="col">Partition</th><th scope="col" class="num">Committed</th>
          <th scope="col" class="num">Log end</th><th scope="col" class="num">Lag</th><th scope="col" class="num">Lag (time)</th><th scope="col">Member</th></tr></thead>
        <tbody>${g.offsets.map(
          (o) => html`<tr data-tp=${`${o.topic}-${o.partition}`}>
            <td><a href=${`#/topics/${enc(o.topic)}`}>${o.topic}</a></td><td>${o.partition}</td>
            <td class="num committed">${fmtInt(o.committed)}</td><td class="num">${fmtInt(o.logEndOffset)}</td>
            <td class="num lag">${fmtInt(o.lag)}</td><td class="num">${fmtSeconds(o.lagSeconds)}</td>
            <td>${o.clientId ? html`${o.clientId} <small>${o.host}</small>` : '–'}</td></tr>`,
        )}</tbody>
      </table></div>
      <p class="note">Lag = log end offset (high watermark) − committed offset. Lag (time) = age of the record at the committed offset.</p>
      <h2>Members</h2>
      <${GroupMembers} g=${g} />
      ${session.readOnly ? null : html`<${Reset} g=${g} onDone=${state.reload} />`}`}
    <//>`;
}
