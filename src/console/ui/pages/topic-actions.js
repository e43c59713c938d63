// CMAK's cluster actions on a topic page: preferred leader election (one partition or the whole
// topic) and partition reassignment (edit a partition's replica list, cancel a move, watch the
// progress: target replicas, those being added and removed). Each asks for confirmation.
import { useEffect, useState } from 'preact/hooks';
import { api, enc, html } from '../lib.js';

function ElectLeaders({ t, onDone }) {
  const [msg, setMsg] = useState(null);
  const notPreferred = t.partitions.filter((p) => p.leader !== p.preferredLeader);
  const submit = async (e) => {
    e.preventDefault();
    const which = new FormData(e.target).get('partition');
    const partitions = which === 'all' ? null : [Number(which)];
    const what = partitions === null ? `every partition of ${t.name}` : `${t.name}-${which}`;
    if (!confirm(`Elect the preferred leader (first replica) of ${what}?`)) return;
    try {
      const r = await api.post(`/topics/${enc(t.name)}/elect-leaders`, { partitions });
      const moved = r.results.filter((x) => x.error === null).map((x) => x.partition);
      const failed = r.results.filter((x) => x.error !== null && x.error !== 'ELECTION_NOT_NEEDED');
      setMsg({
        ok: failed.length === 0,
        text: [
          moved.length ? `Preferred leader elected on partitions ${moved.join(', ')}.` : 'No leader changed.',
          ...failed.map((x) => `Partition ${x.partition}: ${x.error}${x.message ? ` (${x.message})` : ''}`),
        ].join(' '),
      });
      // Brokers learn the new leaders from the controller a moment later.
      onDone();
      setTimeout(onDone, 1500);
    } catch (err) {
      setMsg({ ok: false, text: err.message });
    }
  };
  return html`<details class="panel"><summary>Preferred leader election</summary>
    <p class="note">${
      notPreferred.length === 0
        ? 'Every partition is led by its preferred replica (the first in its list).'
        : `Not led by their preferred replica: partitions ${notPreferred.map((p) => p.partition).join(', ')}.`
    }</p>
    <form onSubmit=${submit} aria-label="Preferred leader election">
      <label>Partition <select name="partition">
        <option value="all">all partitions</option>
        ${t.partitions.map((p) => html`<option value=${p.partition}>${p.partition}</option>`)}</select></label>
      <button type="submit">Elect preferred leader</button>
    </form>
    ${msg ? html`<p class=${msg.ok ? 'ok' : 'error'} role="status" data-testid="elect-result">${msg.text}</p>` : null}
  </details>`;
}

const ids = (text) =>
  text
    .split(/[\s,]+/)
    .filter((s) => s !== '')
    .map(Number);

function Reassign({ t, onDone, onStarted }) {
  const [partition, setPartition] = useState(String(t.partitions[0]?.partition ?? 0));
  const current = t.partitions.find((p) => String(p.partition) === partition);
  const [replicas, setReplicas] = useState(current ? current.replicas.join(', ') : '');
  const [msg, setMsg] = useState(null);
  const moving = t.reassignments ?? [];
  // Opened by the user or by a move in progress; it stays open once the move is done.
  const [open, setOpen] = useState(false);
  const pick = (e) => {
    setPartition(e.target.value);
    const p = t.partitions.find((x) => String(x.partition) === e.target.value);
    setReplicas(p ? p.replicas.join(', ') : '');
  };
  const send = async (body, question) => {
    if (!confirm(question)) return;
    try {
      await api.post(`/topics/${enc(t.name)}/reassignments`, body);
      setMsg({ ok: true, text: 'Reassignment started.' });
      onStarted(body.partitions);
      onDone();
    } catch (err) {
      setMsg({ ok: false, text: err.message });
    }
  };
  const submit = (e) => {
    e.preventDefault();
    const list = ids(replicas);
    if (list.length === 0 || list.some((b) => !Number.isInteger(b) || b < 0)) {
      setMsg({ ok: false, text: 'Replicas are broker ids separated by commas, e.g. 1, 2, 3.' });
      return;
    }
    void send(
      { partitions: [{ partition: Number(partition), replicas: list }] },
      `Move ${t.name}-${partition} from replicas [${current?.replicas.join(', ')}] to [${list.join(', ')}]? Data is copied to new replicas.`,
    );
  };
  const cancel = (p) =>
    send({ partitions: [{ partition: p, replicas: null }] }, `Cancel the reassignment of ${t.name}-${p}?`);
  return html`<details class="panel" open=${open || moving.length > 0} onToggle=${(e) => setOpen(e.target.open)}>
    <summary>Partition reassignment</summary>
    <form onSubmit=${submit} aria-label="Reassign a partition">
      <label>Partition <select name="partition" value=${partition} onChange=${pick}>
        ${t.partitions.map((p) => html`<option value=${p.partition}>${p.partition}</option>`)}</select></label>
      <label>Replicas (broker ids, preferred leader first) <input name="replicas" value=${replicas} onInput=${(e) => setReplicas(e.target.value)} required autocomplete="off" /></label>
      <button type="submit">Start reassignment</button>
    </form>
    ${msg ? html`<p class=${msg.ok ? 'ok' : 'error'} role="status" data-testid="reassign-result">${msg.text}</p>` : null}
    ${
      t.reassignments === null
        ? html`<p class="note">The cluster did not list its ongoing reassignments.</p>`
        : moving.length === 0
          ? html`<p class="note" data-testid="reassign-progress">No reassignment in progress on this topic.</p>`
          : html`<div class="scroll"><table data-testid="reassign-progress"><caption>In progress (refreshed every 2 s)</caption>
        <thead><tr><th scope="col">Partition</th><th scope="col">Replicas</th><th scope="col">Adding</th><th scope="col">Removing</th><th scope="col"><span class="sr">Actions</span></th></tr></thead>
        <tbody>${moving.map(
          (
            r,
          ) => html`<tr><td>${r.partition}</td><td>${r.replicas.join(', ')}</td><td>${r.addingReplicas.join(', ') || '–'}</td>
            <td>${r.removingReplicas.join(', ') || '–'}</td>
            <td><button type="button" onClick=${() => cancel(r.partition)}>Cancel</button></td></tr>`,
        )}</tbody></table></div>`
    }
  </details>`;
}

const sameList = (a, b) => a.length === b.length && a.every((x, i) => x === b[i]);

/**
 * Both actions. While a move is listed, or a started one is not yet seen in the metadata (a quick
 * move can finish before the brokers' metadata shows it), the topic is reloaded every 2 s.
 */
export function ClusterActions({ t, onDone }) {
  const [started, setStarted] = useState([]);
  const waiting = started.filter((m) => {
    const p = t.partitions.find((x) => x.partition === m.partition);
    return p && m.replicas !== null && !sameList(p.replicas, m.replicas);
  });
  const moving = (t.reassignments ?? []).length > 0 || waiting.length > 0;
  useEffect(() => {
    if (!moving) return;
    const timer = setInterval(onDone, 2000);
    return () => clearInterval(timer);
  }, [moving]);
  return html`<${ElectLeaders} t=${t} onDone=${onDone} />
    <${Reassign} t=${t} onDone=${onDone} onStarted=${(list) => setStarted(list)} />`;
}
