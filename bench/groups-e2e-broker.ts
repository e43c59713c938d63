// Child process of bench/groups-e2e.ts: a real broker (startBroker on an ephemeral port,
// throw-away data directory). A process of its own, so that the load generator does not steal
// its event loop and its CPU time (all threads, the fs pool included) can be read on its own.
// IPC: → 'sample' (since the last sample: event-loop utilization, CPU µs, coordinator appends
// and their records), → { profile: 'start' } / { profile: 'stop', file } (a V8 CPU profile of
// the broker written to `file`), → 'close'; ← { port }, ← sample, ← 'profiled', ← 'closed'.
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { Session } from 'node:inspector/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { startBroker } from '../src/broker/broker.js';
import { LogPartitionWriter } from '../src/broker/coordinator/runtime/log-partition-writer.js';

const send = (m: unknown) => process.send?.(m);

// Counts coordinator appends (bench instrumentation, this process only): records per append
// shows how well the runtime batches the operations of concurrent requests.
let appends = 0;
let appended = 0;
const append = LogPartitionWriter.prototype.append;
LogPartitionWriter.prototype.append = function (this: LogPartitionWriter, ...args) {
  appends++;
  appended += args[1].length;
  return append.apply(this, args);
};

const dataDir = await mkdtemp(join(tmpdir(), 'samsa-bench-groups-'));
const broker = await startBroker({
  host: '127.0.0.1',
  port: 0,
  dataDir,
  overrides: { 'group.initial.rebalance.delay.ms': 0 },
});
let lastElu = performance.eventLoopUtilization();
let lastCpu = process.cpuUsage();
let profiler: Session | null = null;
async function profile(m: { profile: string; file?: string }): Promise<void> {
  if (m.profile === 'start') {
    profiler = new Session();
    profiler.connect();
    await profiler.post('Profiler.enable');
    // PROFILE_US: the sampling interval (V8's default, 1000 µs, leaves few samples per phase).
    await profiler.post('Profiler.setSamplingInterval', { interval: Number(process.env.PROFILE_US ?? 200) });
    await profiler.post('Profiler.start');
  } else if (profiler !== null) {
    const { profile: p } = await profiler.post('Profiler.stop');
    await writeFile(m.file as string, JSON.stringify(p));
    profiler.disconnect();
    profiler = null;
  }
  send('profiled');
}

process.on('message', (m: unknown) => {
  if (typeof m === 'object' && m !== null && 'profile' in m) {
    void profile(m as { profile: string; file?: string });
  } else if (m === 'sample') {
    const elu = performance.eventLoopUtilization();
    const cpu = process.cpuUsage(lastCpu);
    send({
      elu: performance.eventLoopUtilization(elu, lastElu).utilization,
      cpuUs: cpu.user + cpu.system,
      appends,
      appended,
    });
    lastElu = elu;
    lastCpu = process.cpuUsage();
    appends = 0;
    appended = 0;
  } else if (m === 'close') {
    void broker
      .close()
      .then(() => rm(dataDir, { recursive: true, force: true }))
      .then(() => {
        send('closed');
        process.disconnect();
      });
  }
});
send({ port: broker.port });
