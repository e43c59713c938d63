// KIP-848 fencing with our consumer: a member process paused (SIGSTOP) for longer than
// group.consumer.session.timeout.ms is removed by the coordinator and its partitions go to the
// other member; when it resumes, its next heartbeat is refused, so it reports the partitions
// lost (onPartitionsLost, not revoked: it can no longer commit) and rejoins with epoch 0,
// getting a share again. The member that stayed never loses anything.
import assert from 'node:assert/strict';
import { type ChildProcess, spawn } from 'node:child_process';
import { after, before, test } from 'node:test';
import type { TopicPartition } from '../../../src/client/consumer/index.js';
import type { TestBroker } from '../../../src/testkit/index.js';
import { LOADER_FLAGS, moduleFile } from '../../support/repo.js';
import { scaled } from '../../support/timeouts.js';
import { key, until } from './group-worker.js';
import { broker, consumer, createTopic } from './support.js';

const CHILD = moduleFile('test/client/consumer/consumer-protocol-child.ts');

interface ChildEvent {
  kind: string;
  partitions: string[];
  error?: string;
}

let b: TestBroker;
before(async () => {
  b = await broker({
    'group.consumer.session.timeout.ms': scaled(3000),
    'group.consumer.heartbeat.interval.ms': 200,
  });
});
after(async () => {
  await b?.close();
});

function startChild(topic: string, group: string): { child: ChildProcess; events: ChildEvent[] } {
  const child = spawn(process.execPath, [...LOADER_FLAGS, CHILD, b.bootstrap, topic, group], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const events: ChildEvent[] = [];
  let buf = '';
  child.stdout!.on('data', (d: Buffer) => {
    buf += d.toString();
    for (let i = buf.indexOf('\n'); i >= 0; i = buf.indexOf('\n')) {
      const line = buf.slice(0, i);
      buf = buf.slice(i + 1);
      if (line.startsWith('{')) events.push(JSON.parse(line) as ChildEvent);
    }
  });
  return { child, events };
}

function exited(child: ChildProcess): Promise<unknown> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((r) => child.once('exit', r));
}

test('a member paused past the session timeout: partitions lost, then it rejoins', {
  timeout: scaled(240_000),
}, async () => {
  const topic = 'cp-fence';
  const group = 'cp-fence-group';
  await createTopic(b, topic, 4);
  const { child, events } = startChild(topic, group);
  const c2 = consumer(b, { groupId: group, groupProtocol: 'consumer', clientId: 'stayer' });
  let stop = false;
  let loop: Promise<void> = Promise.resolve();
  try {
    const owned = () => events.filter((e) => e.kind === 'assigned').flatMap((e) => e.partitions).length;
    await until(() => owned() === 4, 60000, 'the child owns all 4 partitions');

    const log: string[] = [];
    c2.subscribe([topic], {
      onPartitionsAssigned: (tps: TopicPartition[]) => void log.push(`assigned ${tps.map(key).join(',')}`),
      onPartitionsLost: (tps: TopicPartition[]) => void log.push(`lost ${tps.map(key).join(',')}`),
    });
    loop = (async () => {
      while (!stop) await c2.poll(100);
    })();
    await until(() => c2.assignment().length === 2, 30000, 'the stayer gets half');

    child.kill('SIGSTOP');
    await until(() => c2.assignment().length === 4, 60000, 'the coordinator fences the paused member');
    child.kill('SIGCONT');
    const pausedAt = events.length;
    await until(
      () => events.slice(pausedAt).some((e) => e.kind === 'lost'),
      30000,
      'the resumed member reports its partitions lost',
    );
    const rejoined = () => {
      const lostAt = events.findIndex((e, i) => i >= pausedAt && e.kind === 'lost');
      return events.slice(lostAt + 1).some((e) => e.kind === 'assigned' && e.partitions.length > 0);
    };
    await until(rejoined, 30000, 'the resumed member rejoins and gets a share');
    await until(() => c2.assignment().length === 2, 30000, 'the stayer gives a share back');
    const after = events.slice(pausedAt);
    const lostAt = after.findIndex((e) => e.kind === 'lost');
    assert.equal(after[lostAt]!.partitions.length, 2, JSON.stringify(after));
    assert.ok(
      after.slice(lostAt + 1).some((e) => e.kind === 'assigned' && e.partitions.length > 0),
      `assigned again after the loss: ${JSON.stringify(after)}`,
    );
    assert.ok(!after.slice(0, lostAt).some((e) => e.kind === 'revoked'), 'lost, not revoked');
    assert.ok(!events.some((e) => e.kind === 'error'), JSON.stringify(events));
    assert.ok(!log.some((l) => l.startsWith('lost')), `the stayer lost nothing: ${log.join(' | ')}`);
  } finally {
    stop = true;
    await loop;
    await c2.close();
    child.kill('SIGCONT');
    child.kill('SIGTERM');
    await exited(child);
  }
});
