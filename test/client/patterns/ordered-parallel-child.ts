// Child process of ordered-parallel-crash.test.ts: runs an OrderedParallelConsumer and appends
// "partition offset key" to the log file after each record's processing finished (a synchronous
// write, so a SIGKILL cannot lose a line the handler completed). SIGTERM closes it cleanly.
//   node --import tsx ordered-parallel-child.ts BOOTSTRAP TOPIC GROUP LOGFILE
import { closeSync, openSync, writeSync } from 'node:fs';
import { OrderedParallelConsumer } from '../../../src/client/patterns/ordered-parallel-consumer.js';

const [bootstrap, topic, group, logFile] = process.argv.slice(2) as [string, string, string, string];
const fd = openSync(logFile, 'a');
const opc = new OrderedParallelConsumer({
  consumer: {
    bootstrapServers: bootstrap,
    groupId: group,
    clientId: `child-${process.pid}`,
    autoOffsetReset: 'earliest',
    sessionTimeoutMs: 6000,
    heartbeatIntervalMs: 500,
    fetchMaxWaitMs: 100,
    retryBackoffMs: 50,
  },
  topics: [topic],
  maxConcurrency: 16,
  maxInFlightRecords: 200,
  commitIntervalMs: 100,
  handler: async (r) => {
    await new Promise((res) => setTimeout(res, Math.random() * 4));
    writeSync(fd, `${r.partition} ${r.offset} ${r.key!.toString()}\n`);
  },
});
process.once('SIGTERM', () => {
  void opc.close();
});
opc
  .run()
  .then(() => {
    closeSync(fd);
    process.exit(0);
  })
  .catch((err: unknown) => {
    process.stderr.write(`child failed: ${String(err)}\n`);
    process.exit(1);
  });
