// Client quotas (KIP-546): every entity with a quota (user, client-id, ip, or their defaults) and
// its values; set or remove a value (confirmed; hidden in read-only mode).
import { useState } from 'preact/hooks';
import { api, fmtInt, html, Loading, useApi } from '../lib.js';

function entityOf(form) {
  const entity = [];
  for (const type of ['user', 'client-id', 'ip']) {
    const v = String(form.get(type) ?? '').trim();
    if (v === '') continue;
    entity.push({ entityType: type, name: v === '<default>' ? null : v });
  }
  return entity;
}

const label = (entity) => entity.map((c) => `${c.entityType}=${c.name ?? '<default>'}`).join(',');

function SetQuota({ keys, onDone }) {
  const [msg, setMsg] = useState(null);
  const submit = async (e) => {
    e.preventDefault();
    const f = new FormData(e.target);
    const entity = entityOf(f);
    const key = String(f.get('key'));
    const remove = f.get('op') === 'remove';
    const value = remove ? null : Number(f.get('value'));
    if (entity.length === 0) {
      setMsg({ ok: false, text: 'Name a user, a client id or an ip (<default> for the default).' });
      return;
    }
    if (!remove && !(value >= 0)) {
      setMsg({ ok: false, text: 'The value is a number ≥ 0.' });
      return;
    }
    if (
      !confirm(remove ? `Remove ${key} from ${label(entity)}?` : `Set ${key}=${value} on ${label(entity)}?`)
    )
      return;
    try {
      await api.post('/quotas', { entity, values: { [key]: value } });
      setMsg({ ok: true, text: 'Quota saved.' });
      onDone();
    } catch (err) {
      setMsg({ ok: false, text: err.message });
    }
  };
  return html`<details class="panel"><summary>Set a quota</summary>
    <form onSubmit=${submit} aria-label="Set a quota">
      <label>User <input name="user" placeholder="alice or <default>" autocomplete="off" /></label>
      <label>Client id <input name="client-id" placeholder="optional" autocomplete="off" /></label>
      <label>IP <input name="ip" placeholder="optional (connection_creation_rate)" autocomplete="off" /></label>
      <label>Key <select name="key">${keys.map((k) => html`<option value=${k}>${k}</option>`)}</select></label>
      <label>Value <input name="value" type="number" min="0" step="any" /></label>
      <label>Action <select name="op"><option value="set">set</option><option value="remove">remove</option></select></label>
      <button type="submit">Apply</button>
    </form>
    ${msg ? html`<p class=${msg.ok ? 'ok' : 'error'} role="status">${msg.text}</p>` : null}
  </details>`;
}

export function QuotasPage({ session }) {
  const state = useApi('/quotas');
  return html`
    <h1 tabindex="-1">Client quotas</h1>
    <${Loading} state=${state}>${(d) => html`
      ${session.readOnly ? null : html`<${SetQuota} keys=${d.keys} onDone=${state.reload} />`}
      <div class="toolbar"><button type="button" onClick=${state.reload}>Refresh</button></div>
      ${
        d.quotas.length === 0
          ? html`<p>No client quota is set: clients are limited by nothing but the brokers' defaults.</p>`
          : html`<div class="scroll"><table class="quotas">
        <thead><tr><th scope="col">Entity</th>${d.keys.map((k) => html`<th scope="col" class="num"><code>${k}</code></th>`)}</tr></thead>
        <tbody>${d.quotas.map(
          (q) =>
            html`<tr data-entity=${q.label}><td>${q.label}</td>${d.keys.map(
              (k) => html`<td class="num">${q.values[k] === undefined ? '–' : fmtInt(q.values[k])}</td>`,
            )}</tr>`,
        )}</tbody></table></div>`
      }`}<//>`;
}
