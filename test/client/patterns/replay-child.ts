// Child process of replay.test.ts: the replay group of docs/patterns/replay.md. A partition the
// group has no offset for starts at the first record at or after FROM_MS (replayFrom); one it has
// an offset for continues there. It reads up to the end offsets taken at start, appends
// "partition offset value timestamp" to the log file for each record (a synchronous write: a
// SIGKILL cannot lose a line of a record it finished), commits after each poll, prints "done".
//   node --import tsx replay-child.ts BOOTSTRAP TOPIC GROUP FROM_MS LOGFILE
import { closeSync, openSync, writeSync } from 'node:fs';
import { Consumer } from '../../../src/client/consumer/consumer.js';

const [bootstrap, topic, group, fromMs, logFile] = process.argv.slice(2) as [
  string,
  string,
  string,
  string,
  string,
];
const fd = openSync(logFile, 'a');
const replay = new Consumer({
  bootstrapServers: bootstrap,
  groupId: group,
  clientId: `replay-child-${process.pid}`,
  enableAutoCommit: false,
  // Small polls and a little work per record: a run takes long enough to be killed mid-way.
  maxPollRecords: 20,
  sessionTimeoutMs: 6000,
  heartbeatIntervalMs: 500,
  fetchMaxWaitMs: 100,
  retryBackoffMs: 50,
});
replay.subscribe([topic], {
  async onPartitionsAssigned(partitions) {
    const committed = await replay.committed(partitions);
    const fresh = partitions.filter((_, i) => committed[i] === null);
    if (fresh.length > 0) await replay.replayFrom(new Date(Number(fromMs)), { partitions: fresh });
  },
});
const partitions = (await replay.partitionsFor(topic)).map((p) => ({ topic, partition: p.partition }));
const stopAt = new Map(
  (await replay.endOffsets(partitions)).map((end, i) => [partitions[i]!.partition, end]),
);
const finished = async (): Promise<boolean> => {
  const mine = replay.assignment();
  if (mine.length < partitions.length) return false;
  const positions = await Promise.all(mine.map((tp) => replay.position(tp)));
  return positions.every((p, i) => p >= stopAt.get(mine[i]!.partition)!);
};
while (!(await finished())) {
  for (const r of await replay.poll(200)) {
    if (r.offset >= stopAt.get(r.partition)!) continue;
    await new Promise((res) => setTimeout(res, 2));
    writeSync(fd, `${r.partition} ${r.offset} ${r.value!.toString()} ${r.timestamp}\n`);
  }
  await replay.commitSync();
}
await replay.close();
closeSync(fd);
process.stdout.write('done\n');
