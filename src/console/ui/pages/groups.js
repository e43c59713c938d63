// Consumer groups: state, protocol type, members and total lag; updated live.
import { useState } from 'preact/hooks';
import { enc, fmtInt, html, Loading, useApi, useLiveEvent, useSort } from '../lib.js';

export function GroupsPage() {
  const state = useApi('/groups');
  const live = useLiveEvent('groups');
  const [q, setQ] = useState('');
  const { apply, Th } = useSort('groupId');
  const shown = live ? { data: live.groups, error: null } : state;
  return html`
    <h1 tabindex="-1">Consumer groups</h1>
    <div class="toolbar">
      <label>Search <input type="search" value=${q} onInput=${(e) => setQ(e.target.value)} placeholder="group id" /></label>
      <button type="button" onClick=${state.reload}>Refresh</button>
      ${live ? html`<small class="live">live · updated ${new Date(live.t).toLocaleTimeString()}</small>` : null}
    </div>
    <${Loading} state=${shown}>${(rows) => {
      const list = apply(rows.filter((g) => g.groupId.toLowerCase().includes(q.toLowerCase())));
      return html`<div class="scroll"><table>
        <thead><tr><${Th} k="groupId">Group<//><${Th} k="state">State<//><${Th} k="protocolType">Type<//>
          <${Th} k="members" num>Members<//><${Th} k="lag" num>Lag<//></tr></thead>
        <tbody>${list.map(
          (g) => html`<tr>
            <td><a href=${`#/groups/${enc(g.groupId)}`}>${g.groupId}</a></td>
            <td><span class=${`state ${g.state}`}>${g.state}</span></td><td>${g.protocolType || '–'}</td>
            <td class="num">${g.members}</td><td class="num" data-testid=${`lag-${g.groupId}`}>${fmtInt(g.lag)}</td>
          </tr>`,
        )}</tbody>
      </table></div>
      ${rows.length === 0 ? html`<p>No consumer group.</p>` : null}`;
    }}<//>`;
}
