// ACLs: every binding the cluster holds (DescribeAcls), filterable; add one and remove one (both
// confirmed; hidden in read-only mode). A cluster without an authorizer says SECURITY_DISABLED.
import { useState } from 'preact/hooks';
import { api, html, Loading, useApi } from '../lib.js';

const KEYS = ['resourceType', 'name', 'patternType', 'principal', 'host', 'operation', 'permissionType'];
const describe = (a) =>
  `${a.permissionType} ${a.principal} ${a.operation} on ${a.resourceType} ${a.name} (${a.patternType}) from ${a.host}`;

function AddAcl({ choices, onDone }) {
  const [msg, setMsg] = useState(null);
  const submit = async (e) => {
    e.preventDefault();
    const body = Object.fromEntries(KEYS.map((k) => [k, String(new FormData(e.target).get(k) ?? '').trim()]));
    body.host ||= '*';
    if (body.resourceType === 'CLUSTER') body.name ||= 'kafka-cluster';
    if (!confirm(`Add the ACL: ${describe(body)}?`)) return;
    try {
      await api.post('/acls', body);
      setMsg({ ok: true, text: 'ACL added.' });
      onDone();
    } catch (err) {
      setMsg({ ok: false, text: err.message });
    }
  };
  const select = (name, label, list, dflt) =>
    html`<label>${label} <select name=${name}>${list.map((v) => html`<option value=${v} selected=${v === dflt}>${v}</option>`)}</select></label>`;
  return html`<details class="panel"><summary>Add an ACL</summary>
    <form onSubmit=${submit} aria-label="Add an ACL">
      <label>Principal <input name="principal" required placeholder="User:alice" autocomplete="off" /></label>
      ${select('permissionType', 'Permission', choices.permissionTypes, 'ALLOW')}
      ${select('operation', 'Operation', choices.operations, 'READ')}
      ${select('resourceType', 'Resource type', choices.resourceTypes, 'TOPIC')}
      <label>Resource name <input name="name" placeholder="orders, a prefix, * or kafka-cluster" autocomplete="off" /></label>
      ${select('patternType', 'Pattern', choices.patternTypes, 'LITERAL')}
      <label>Host <input name="host" placeholder="*" autocomplete="off" /></label>
      <button type="submit">Add ACL</button>
    </form>
    ${msg ? html`<p class=${msg.ok ? 'ok' : 'error'} role="status">${msg.text}</p>` : null}
  </details>`;
}

export function AclsPage({ session }) {
  const state = useApi('/acls');
  const [q, setQ] = useState('');
  const [error, setError] = useState(null);
  const remove = async (a) => {
    if (!confirm(`Remove the ACL: ${describe(a)}?`)) return;
    try {
      await api.del('/acls', { ...a, confirm: a.principal });
      setError(null);
      state.reload();
    } catch (err) {
      setError(err.message);
    }
  };
  return html`
    <h1 tabindex="-1">ACLs</h1>
    <${Loading} state=${state}>${(d) => {
      if (!d.enabled)
        return html`<p class="note" role="status" data-testid="security-disabled">
          The cluster has no authorizer (${d.error}): ${d.message}. Set <code>authorizer.class.name</code> on the brokers to use ACLs.</p>`;
      const needle = q.toLowerCase();
      const shown = d.acls.filter((a) => KEYS.some((k) => String(a[k]).toLowerCase().includes(needle)));
      return html`
        ${session.readOnly ? null : html`<${AddAcl} choices=${d.choices} onDone=${state.reload} />`}
        <div class="toolbar">
          <label>Search <input type="search" value=${q} onInput=${(e) => setQ(e.target.value)} placeholder="principal, resource, operation" /></label>
          <button type="button" onClick=${state.reload}>Refresh</button>
        </div>
        ${error ? html`<p class="error" role="alert">${error}</p>` : null}
        <p class="count">${shown.length} of ${d.acls.length} ACLs</p>
        <div class="scroll"><table class="acls">
          <thead><tr><th scope="col">Principal</th><th scope="col">Permission</th><th scope="col">Operation</th>
            <th scope="col">Resource</th><th scope="col">Name</th><th scope="col">Pattern</th><th scope="col">Host</th>
            ${session.readOnly ? null : html`<th scope="col"><span class="sr">Actions</span></th>`}</tr></thead>
          <tbody>${shown.map(
            (a) => html`<tr>
              <td>${a.principal}</td><td class=${a.permissionType === 'DENY' ? 'warn' : ''}>${a.permissionType}</td><td>${a.operation}</td>
              <td>${a.resourceType}</td><td><code>${a.name}</code></td><td>${a.patternType}</td><td>${a.host}</td>
              ${session.readOnly ? null : html`<td><button type="button" class="danger" onClick=${() => remove(a)} aria-label=${`Remove ${describe(a)}`}>Remove</button></td>`}
            </tr>`,
          )}</tbody>
        </table></div>`;
    }}<//>`;
}
