// Child of close-long-poll.test.ts: consumes a topic's 5 records in a group, lets the next Fetch
// long-poll, closes, prints how long close() took, and ends without process.exit(): the process
// exits when nothing is left open.
import { Consumer } from '../../../src/client/consumer/index.js';

const [bootstrap, topic, fetchMaxWaitMs] = process.argv.slice(2);
const c = new Consumer({
  bootstrapServers: bootstrap!,
  groupId: `${topic}-group`,
  fetchMaxWaitMs: Number(fetchMaxWaitMs),
  autoOffsetReset: 'earliest',
});
c.subscribe([topic!]);
let consumed = 0;
while (consumed < 5) consumed += (await c.poll(200)).length;
await c.poll(500);
const started = Date.now();
await c.close();
console.log(`closed ${Date.now() - started}`);
