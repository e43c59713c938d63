// Consumer groups: type (classic, or consumer for KIP-848), state, protocol type, members and
// total lag; filtered by name, type and state; updated live.
import { useState } from 'preact/hooks';
import { enc, fmtInt, html, Loading, useApi, useLiveEvent, useSort } from '../lib.js';

const TYPES = ['classic', 'consumer'];

/** A filter's select: every value of `options`, plus `value` itself (a state no group is in now). */
function Choice({ label, value, options, set }) {
  const all = value === '' || options.includes(value) ? options : [...options, value];
  return html`<label>${label} <select value=${value} onChange=${(e) => set(e.target.value)}>
    <option value="">any</option>${all.map((o) => html`<option value=${o}>${o}</option>`)}
  </select></label>`;
}

export function GroupsPage() {
  const state = useApi('/groups');
  const live = useLiveEvent('groups');
  const [q, setQ] = useState('');
  const [type, setType] = useState('');
  const [groupState, setGroupState] = useState('');
  const { apply, Th } = useSort('groupId');
  const shown = live ? { data: live.groups, error: null } : state;
  const rows = shown.data ?? [];
  const states = [...new Set(rows.map((g) => g.state))].sort();
  return html`
    <h1 tabindex="-1">Consumer groups</h1>
    <div class="toolbar">
      <label>Search <input type="search" value=${q} onInput=${(e) => setQ(e.target.value)} placeholder="group id" /></label>
      <${Choice} label="Type" value=${type} options=${TYPES} set=${setType} />
      <${Choice} label="State" value=${groupState} options=${states} set=${setGroupState} />
      <button type="button" onClick=${state.reload}>Refresh</button>
      ${live ? html`<small class="live">live · updated ${new Date(live.t).toLocaleTimeString()}</small>` : null}
    </div>
    <${Loading} state=${shown}>${() => {
      const needle = q.toLowerCase();
      const list = apply(
        rows.filter(
          (g) =>
            g.groupId.toLowerCase().includes(needle) &&
            (type === '' || g.type === type) &&
            (groupState === '' || g.state === groupState),
        ),
      );
      return html`${list.length < rows.length ? html`<p class="count" data-testid="group-count">${fmtInt(list.length)} of ${fmtInt(rows.length)} groups</p>` : null}
      <div class="scroll"><table>
        <thead><tr><${Th} k="groupId">Group<//><${Th} k="type">Type<//><${Th} k="state">State<//><${Th} k="protocolType">Protocol<//>
          <${Th} k="members" num>Members<//><${Th} k="lag" num>Lag<//></tr></thead>
        <tbody>${list.map(
          (g) => html`<tr data-group=${g.groupId}>
            <td><a href=${`#/groups/${enc(g.groupId)}`}>${g.groupId}</a></td><td class="type">${g.type}</td>
            <td><span class=${`state ${g.state}`}>${g.state}</span></td><td>${g.protocolType || '–'}</td>
            <td class="num">${g.members}</td><td class="num" data-testid=${`lag-${g.groupId}`}>${fmtInt(g.lag)}</td>
          </tr>`,
        )}</tbody>
      </table></div>
      ${rows.length === 0 ? html`<p>No consumer group.</p>` : null}`;
    }}<//>`;
}
