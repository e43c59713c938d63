// Cluster overview: id, controller, brokers, topic and partition counts, under-replicated and
// offline partitions; refreshed live by the event stream.
import { useEffect, useState } from 'preact/hooks';
import { api, fmtBytes, fmtInt, html, Loading, useLiveEvent } from '../lib.js';

export function OverviewPage() {
  const [state, setState] = useState({ data: null, error: null });
  const live = useLiveEvent('cluster');
  useEffect(() => {
    api.get('/cluster').then(
      (data) => setState({ data, error: null }),
      (error) => setState({ data: null, error }),
    );
  }, []);
  const shown = live ? { data: live.cluster, error: null } : state;
  return html`
    <h1 tabindex="-1">Cluster</h1>
    <${Loading} state=${shown}>${(c) => html`
      <dl class="stats">
        <div><dt>Cluster id</dt><dd><code>${c.clusterId ?? '–'}</code></dd></div>
        <div><dt>Controller</dt><dd>${c.controller >= 0 ? `broker ${c.controller}` : 'none'}</dd></div>
        <div><dt>Brokers</dt><dd>${c.brokers.length}</dd></div>
        <div><dt>Topics</dt><dd>${fmtInt(c.topics)} <small>(${c.internalTopics} internal)</small></dd></div>
        <div><dt>Partitions</dt><dd>${fmtInt(c.partitions)}</dd></div>
        <div class=${c.underReplicated > 0 ? 'warn' : ''}><dt>Under-replicated</dt><dd data-testid="under-replicated">${fmtInt(c.underReplicated)}</dd></div>
        <div class=${c.offline > 0 ? 'bad' : ''}><dt>Offline partitions</dt><dd data-testid="offline">${fmtInt(c.offline)}</dd></div>
      </dl>
      <h2>Brokers</h2>
      <div class="scroll"><table>
        <thead><tr><th scope="col">Id</th><th scope="col">Host</th><th scope="col">Rack</th>
          <th scope="col" class="num">Partitions</th><th scope="col" class="num">Leaders</th><th scope="col" class="num">Log size</th></tr></thead>
        <tbody>${c.brokers.map(
          (b) => html`<tr>
            <td>${b.nodeId}${b.nodeId === c.controller ? html` <span class="badge">controller</span>` : null}</td>
            <td>${b.host}:${b.port}</td><td>${b.rack ?? '–'}</td>
            <td class="num">${fmtInt(b.partitions)}</td><td class="num">${fmtInt(b.leaders)}</td><td class="num">${fmtBytes(b.sizeBytes)}</td>
          </tr>`,
        )}</tbody>
      </table></div>`}
    <//>`;
}
