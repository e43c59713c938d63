// Worker-thread entry of bench/groups-e2e.ts: a real broker (startBroker on an ephemeral port,
// throw-away data directory) on its own event loop, so the load generator in the main thread
// does not steal the broker's loop time. Messages: → 'elu' (event-loop utilization and
// coordinator appends since the last ask), → 'close'; ← { port }, ← { elu, appends, appended },
// ← 'closed'.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { parentPort, workerData } from 'node:worker_threads';
import { startBroker } from '../src/broker/broker.js';
import { LogPartitionWriter } from '../src/broker/coordinator/runtime/log-partition-writer.js';

// Counts coordinator appends (bench instrumentation, this thread only): records per append
// shows how well the runtime batches operations of concurrent requests.
let appends = 0;
let appended = 0;
const append = LogPartitionWriter.prototype.append;
LogPartitionWriter.prototype.append = function (this: LogPartitionWriter, ...args) {
  appends++;
  appended += args[1].length;
  return append.apply(this, args);
};

const port = parentPort;
if (port === null) throw new Error('run as a worker thread');
const overrides = (workerData as { overrides: Record<string, string | number> }).overrides;
const dataDir = await mkdtemp(join(tmpdir(), 'samsa-bench-groups-'));
const broker = await startBroker({ host: '127.0.0.1', port: 0, dataDir, overrides });
let last = performance.eventLoopUtilization();
port.on('message', (m: unknown) => {
  if (m === 'elu') {
    const now = performance.eventLoopUtilization();
    port.postMessage({ elu: performance.eventLoopUtilization(now, last).utilization, appends, appended });
    last = now;
    appends = 0;
    appended = 0;
  } else if (m === 'close') {
    void broker
      .close()
      .then(() => rm(dataDir, { recursive: true, force: true }))
      .then(() => port.postMessage('closed'));
  }
});
port.postMessage({ port: broker.port });
