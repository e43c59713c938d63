// Child process of delay-scheduler.test.ts: runs a delay queue's scheduler until SIGTERM (clean
// stop, exit 0) or SIGKILL (the test's crash). Prints "ready" once it has fenced any previous
// scheduler of the group and taken its partitions.
//   node --import tsx delay-scheduler-child.ts BOOTSTRAP NAME LEVELS_MS(comma-separated) GROUP
import { DelayQueue } from '../../../src/client/patterns/delay-queue.js';
import { startDelayScheduler } from '../../../src/client/patterns/delay-scheduler.js';

const [bootstrap, name, levels, group] = process.argv.slice(2) as [string, string, string, string];
const queue = new DelayQueue({ name, levels: levels.split(',').map(Number) });
const scheduler = await startDelayScheduler(queue, {
  bootstrapServers: bootstrap,
  group,
  clientId: `child-${process.pid}`,
});
process.stdout.write('ready\n');
process.once('SIGTERM', () => {
  void scheduler.stop();
});
scheduler.done.then(
  () => process.exit(0),
  (err: unknown) => {
    process.stderr.write(`scheduler failed: ${String(err)}\n`);
    process.exit(1);
  },
);
