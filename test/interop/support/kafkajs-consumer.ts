// Child process: one kafkajs consumer of a group. Prints `m <partition> <offset>` per message
// and `assigned <json>` on each group join; SIGTERM → graceful disconnect (commits, leaves).
import { Kafka, logLevel } from 'kafkajs';

const [bootstrap, groupId, topic, sessionTimeout] = process.argv.slice(2) as [string, string, string, string];
const kafka = new Kafka({ clientId: `c-${process.pid}`, brokers: [bootstrap], logLevel: logLevel.NOTHING });
const consumer = kafka.consumer({
  groupId,
  sessionTimeout: Number(sessionTimeout),
  heartbeatInterval: 500,
  rebalanceTimeout: 20_000,
});
consumer.on(consumer.events.GROUP_JOIN, (e) => {
  process.stdout.write(`assigned ${JSON.stringify(e.payload.memberAssignment[topic] ?? [])}\n`);
});
await consumer.connect();
await consumer.subscribe({ topic, fromBeginning: true });
await consumer.run({
  eachBatch: async ({ batch, resolveOffset, heartbeat }) => {
    let out = '';
    for (const m of batch.messages) {
      out += `m ${batch.partition} ${m.offset}\n`;
      resolveOffset(m.offset);
    }
    process.stdout.write(out);
    await heartbeat();
  },
});
process.on('SIGTERM', () => {
  consumer.disconnect().then(
    () => process.exit(0),
    () => process.exit(1),
  );
});
