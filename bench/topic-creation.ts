// Sequential topic creation on one embedded broker (CreateTopics through our admin client, one
// topic of one partition per request, the way scripts and tests create topics), against the floor
// of a durable metadata change measured in the same run and the same directory: one appended line
// made durable by fdatasync. A creation needs two durable changes (the topic, then its leader), so
// two fdatasyncs are the least it can cost; the ratio shows what the rest adds.
//
//   npx tsx bench/topic-creation.ts [--topics N] [--root DIR]
//
// `--root` points at another checkout (its src/), for before/after comparisons in one run.

import { open } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { benchDir, table } from './storage-util.js';

const { values } = parseArgs({
  options: { topics: { type: 'string', default: '2000' }, root: { type: 'string', default: '.' } },
});
const N = Number(values.topics);
const root = resolve(values.root!);

async function fdatasyncFloorMs(dir: string, n: number): Promise<number> {
  const fh = await open(join(dir, 'floor.journal'), 'a');
  const line = Buffer.from(`${JSON.stringify({ topic: 'x'.repeat(40), partitions: [[1]] })}\n`);
  const t0 = performance.now();
  for (let i = 0; i < n; i++) {
    await fh.write(line);
    await fh.datasync();
  }
  const ms = (performance.now() - t0) / n;
  await fh.close();
  return ms;
}

async function createTopicsMs(dataDir: string): Promise<{ perTopic: number; last: number }> {
  const { startTestBroker } = await import(join(root, 'src/testkit/index.ts'));
  const { Admin } = await import(join(root, 'src/client/index.ts'));
  const broker = await startTestBroker({ dataDir });
  const admin = new Admin({ bootstrapServers: broker.bootstrap });
  try {
    const t0 = performance.now();
    let lastStart = t0;
    for (let i = 0; i < N; i++) {
      if (i === N - 100) lastStart = performance.now();
      await admin.createTopics([{ name: `topic-${i}`, numPartitions: 1, replicationFactor: 1 }]);
    }
    const end = performance.now();
    return { perTopic: (end - t0) / N, last: (end - lastStart) / 100 };
  } finally {
    await admin.close();
    await broker.close();
  }
}

const { dir, cleanup } = benchDir('topic-creation');
try {
  const floorBefore = await fdatasyncFloorMs(dir, 200);
  const created = await createTopicsMs(join(dir, 'broker'));
  const floorAfter = await fdatasyncFloorMs(dir, 200);
  const floor = (floorBefore + floorAfter) / 2;
  console.log(`${N} topics created one by one (${root})`);
  console.log(
    table(
      ['measure', 'ms', 'vs one fdatasync'],
      [
        ['one appended line + fdatasync (floor)', floor.toFixed(2), '1.0×'],
        [
          'CreateTopics, mean per topic',
          created.perTopic.toFixed(2),
          `${(created.perTopic / floor).toFixed(1)}×`,
        ],
        ['CreateTopics, last 100 (growth)', created.last.toFixed(2), `${(created.last / floor).toFixed(1)}×`],
      ],
    ),
  );
} finally {
  cleanup();
}
