// Child process of consumer-protocol-fencing.test.ts: a groupProtocol 'consumer' member that
// polls forever and prints one JSON line per rebalance callback ({"kind","partitions"}) and a
// "ready" line once it polls. The parent pauses it with SIGSTOP (so its heartbeats stop, as in
// a long GC pause or a suspended VM) and resumes it with SIGCONT; SIGTERM closes it cleanly.
//   node --import tsx consumer-protocol-child.ts BOOTSTRAP TOPIC GROUP
import { Consumer, type TopicPartition } from '../../../src/client/consumer/index.js';

const [bootstrap, topic, group] = process.argv.slice(2) as [string, string, string];
const c = new Consumer({
  bootstrapServers: bootstrap,
  groupId: group,
  groupProtocol: 'consumer',
  clientId: `cp-child-${process.pid}`,
  autoOffsetReset: 'earliest',
  fetchMaxWaitMs: 100,
  retryBackoffMs: 50,
});
const emit = (kind: string) => (tps: TopicPartition[]) => {
  process.stdout.write(
    `${JSON.stringify({ kind, partitions: tps.map((t) => `${t.topic}-${t.partition}`).sort() })}\n`,
  );
};
c.subscribe([topic], {
  onPartitionsAssigned: emit('assigned'),
  onPartitionsRevoked: emit('revoked'),
  onPartitionsLost: emit('lost'),
});
let stop = false;
process.once('SIGTERM', () => {
  stop = true;
});
(async () => {
  process.stdout.write(`${JSON.stringify({ kind: 'ready', partitions: [] })}\n`);
  while (!stop) {
    try {
      await c.poll(100);
    } catch (err) {
      process.stdout.write(`${JSON.stringify({ kind: 'error', partitions: [], error: String(err) })}\n`);
    }
  }
  await c.close();
  process.exit(0);
})().catch((err: unknown) => {
  process.stderr.write(`child failed: ${String(err)}\n`);
  process.exit(1);
});
