// Cluster overview: id, controller, brokers, topic and partition counts, under-replicated and
// offline partitions, throughput in and out (sampled by the console from offsets and log sizes:
// the labels say what each number measures); refreshed live by the event stream.
import { useEffect, useState } from 'preact/hooks';
import { api, fmtByteRate, fmtBytes, fmtInt, fmtRate, html, Loading, useLiveEvent } from '../lib.js';

function Throughput({ t }) {
  if (!t)
    return html`<p class="note" data-testid="throughput-pending">Throughput appears after the console has sampled the cluster twice.</p>`;
  const secs = Math.round((t.to - t.from) / 1000);
  const stat = (id, label, title, value) =>
    html`<div title=${title}><dt>${label}</dt><dd data-testid=${`throughput-${id}`}>${value}</dd></div>`;
  return html`<dl class="stats" aria-label="Throughput">
      ${stat('messages-in', 'Messages in', 'Growth of the partitions’ high watermarks', fmtRate(t.messagesInPerSec))}
      ${stat('bytes-in', 'Bytes in', 'Growth of the leader replicas’ log size (DescribeLogDirs; needs Describe on the cluster)', fmtByteRate(t.bytesInPerSec))}
      ${stat('messages-out', 'Consumed by groups', 'Growth of consumer groups’ committed offsets; consumers outside a group are not seen', fmtRate(t.messagesOutPerSec))}
      ${stat('bytes-out', 'Consumed bytes (est.)', 'Committed records × the partition’s mean record size: an estimate', fmtByteRate(t.bytesOutPerSec))}
    </dl>
    <p class="note">Over the last ${secs} s, as of ${new Date(t.to).toLocaleTimeString()}. Out = what consumer groups committed; no public API shows other reads.</p>`;
}

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
      <h2>Throughput</h2>
      <${Throughput} t=${c.throughput} />
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
