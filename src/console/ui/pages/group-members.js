// A group's members. A classic group: client id, host, member id and assignment. A consumer group
// (KIP-848): also each member's epoch and, next to what it owns, the target assignment the
// coordinator is moving it to — what differs is still being revoked from it (−) or waits until
// another member releases it (+) —, and while a classic group is being migrated, which members
// still speak the classic protocol.
import { html } from '../lib.js';

const tpName = (tp) => `${tp.topic}-${tp.partition}`;
const partitions = (tps) => tps.map(tpName).join(', ') || '–';

function Target({ m }) {
  const owned = new Set(m.assignment.map(tpName));
  const target = new Set(m.targetAssignment.map(tpName));
  const adding = [...target].filter((p) => !owned.has(p));
  const revoking = [...owned].filter((p) => !target.has(p));
  return html`${partitions(m.targetAssignment)}
    ${adding.length > 0 ? html` <span class="badge pending" title="in the target, not yet owned">+${adding.join(', +')}</span>` : null}
    ${revoking.length > 0 ? html` <span class="badge pending" title="owned, no longer in the target">−${revoking.join(', −')}</span>` : null}`;
}

function ClassicMembers({ members }) {
  return html`<div class="scroll"><table data-testid="group-members">
    <thead><tr><th scope="col">Client id</th><th scope="col">Host</th><th scope="col">Member id</th><th scope="col">Assignment</th></tr></thead>
    <tbody>${members.map(
      (
        m,
      ) => html`<tr data-member=${m.memberId}><td>${m.clientId}</td><td>${m.host}</td><td><code>${m.memberId}</code></td>
        <td class="assigned">${partitions(m.assignment)}</td></tr>`,
    )}</tbody></table></div>`;
}

function ConsumerMembers({ g }) {
  // A group in migration (classic and consumer members at once): say who is which, as Kafka 4's
  // UPGRADED column does.
  const mixed = g.members.some((m) => m.upgraded === false);
  return html`<div class="scroll"><table data-testid="group-members">
    <thead><tr><th scope="col">Member id</th><th scope="col">Client id</th><th scope="col">Host</th>
      ${mixed ? html`<th scope="col">Protocol</th>` : null}
      <th scope="col" class="num" title="The member's epoch; the group is at ${g.groupEpoch}">Epoch</th>
      <th scope="col">Assigned</th><th scope="col">Target (epoch ${g.assignmentEpoch})</th></tr></thead>
    <tbody>${g.members.map(
      (m) => html`<tr data-member=${m.memberId} class=${m.memberEpoch === g.assignmentEpoch ? '' : 'warn'}>
        <td><code>${m.memberId}</code></td><td>${m.clientId}</td><td>${m.host}</td>
        ${mixed ? html`<td class="protocol">${m.upgraded ? 'consumer' : 'classic'}</td>` : null}
        <td class="num epoch" title=${m.memberEpoch === g.assignmentEpoch ? 'at the target assignment' : 'behind the assignment epoch: still reconciling'}>${m.memberEpoch}</td>
        <td class="assigned">${partitions(m.assignment)}</td><td class="target"><${Target} m=${m} /></td></tr>`,
    )}</tbody></table></div>`;
}

export function GroupMembers({ g }) {
  if (g.members.length === 0) return html`<p>No member: the group is ${g.state}.</p>`;
  return g.type === 'consumer'
    ? html`<${ConsumerMembers} g=${g} />`
    : html`<${ClassicMembers} members=${g.members} />`;
}
