// The controller killed with kill -9 ten times in a row on three broker processes over a real
// ZooKeeper, while another task keeps creating topics: always one controller per epoch (sampled
// from /controller and /controller_epoch all along), epochs strictly growing, every live broker
// agreeing on the successor, no partition left without a leader while one of its ISR replicas is
// alive, and every topic created meanwhile complete with leaders at the end.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { ZkClient } from '../../src/broker/metadata/zookeeper/zk-client.js';
import { Admin } from '../../src/client/index.js';
import { startTestCluster, type TestCluster } from '../../src/testkit/cluster.js';
import {
  type BrokerView,
  controllerZnodes,
  killAndRestart,
  sleep,
  waitFor,
  waitForViews,
} from './support.js';
import { scaled } from '../support/timeouts.js';

const SESSION_MS = 4000;
let cluster: TestCluster;

before(async () => {
  cluster = await startTestCluster({
    brokers: 3,
    sessionTimeoutMs: SESSION_MS,
    overrides: { 'auto.leader.rebalance.enable': false, 'auto.create.topics.enable': false },
  });
});
after(async () => {
  await cluster?.close();
});

const say = (s: string) => process.stdout.write(`# ${s}\n`);
const live = () => cluster.nodeIds.filter((id) => cluster.broker(id).running);

test('kill -9 of the controller ten times in a row while topics are created: one controller per epoch, epochs grow, leaders wherever an ISR replica lives', {
  timeout: scaled(900_000),
}, async () => {
  // Topic creation all along (RF 2: one broker is always down or restarting).
  const admin = new Admin({ bootstrapServers: cluster.bootstrap(), requestTimeoutMs: 10_000 });
  const created: string[] = [];
  const creationErrors: string[] = [];
  let stop = false;
  const creator = (async () => {
    for (let n = 0; !stop; ) {
      const name = `ct-${n}`;
      try {
        await admin.createTopics([{ name, numPartitions: 2, replicationFactor: 2 }]);
        created.push(name);
        n++;
        await sleep(250);
      } catch (e) {
        if (/TOPIC_ALREADY_EXISTS/.test(String(e))) {
          created.push(name);
          n++;
        } else {
          creationErrors.push(String(e));
          await sleep(200);
        }
      }
    }
  })();
  // /controller and /controller_epoch sampled all along.
  const watcher = await ZkClient.connect(cluster.zookeeperConnect, { sessionTimeoutMs: 10_000 });
  const controllersByEpoch = new Map<number, Set<number>>();
  const regressions: string[] = [];
  let lastEpoch = -1;
  const sampler = (async () => {
    while (!stop) {
      try {
        const epoch = Number((await watcher.getData('/controller_epoch')).data!.toString());
        if (epoch < lastEpoch) regressions.push(`${lastEpoch} → ${epoch}`);
        lastEpoch = Math.max(lastEpoch, epoch);
        const id = JSON.parse((await watcher.getData('/controller')).data!.toString()).brokerid as number;
        // Only if the epoch did not move between the two reads.
        if (Number((await watcher.getData('/controller_epoch')).data!.toString()) === epoch) {
          const set = controllersByEpoch.get(epoch) ?? new Set<number>();
          set.add(id);
          controllersByEpoch.set(epoch, set);
        }
      } catch {
        // No controller at this instant.
      }
      await sleep(100);
    }
  })();

  const epochs: number[] = [];
  const leaderless = (v: BrokerView, alive: readonly number[]) => {
    const out: string[] = [];
    for (const [t, parts] of v.topics)
      for (const p of parts)
        if (p.isr.some((r) => alive.includes(r)) && !(p.leader >= 0 && alive.includes(p.leader)))
          out.push(`${t}-${p.partition} leader ${p.leader} isr ${p.isr}`);
    return out;
  };
  try {
    for (let k = 0; k < 10; k++) {
      const { controllerId: old, epoch } = await controllerZnodes(cluster);
      assert.ok(old >= 1, 'a controller');
      await killAndRestart(cluster, old, SESSION_MS, async () => {
        const alive = live();
        // A successor every live broker agrees on, with a newer epoch than the killed one's.
        let now = { controllerId: -1, epoch: -1 };
        await waitFor(
          `a new controller after killing ${old}`,
          async () => {
            now = await controllerZnodes(cluster);
            if (now.controllerId < 1 || now.controllerId === old) return false;
            const views = await waitForViews(cluster, 'views', () => true, 60_000, alive);
            return [...views.values()].every((v) => v.controllerId === now.controllerId);
          },
          SESSION_MS + 60_000,
        );
        assert.ok(now.epoch > epoch, `epoch ${now.epoch} > ${epoch}`);
        epochs.push(now.epoch);
        // No partition left without a leader while one of its ISR replicas is alive.
        await waitForViews(
          cluster,
          'a live leader for every partition with a live ISR replica',
          (v) => leaderless(v, alive).length === 0,
          60_000,
          alive,
        );
      });
      await waitForViews(cluster, `broker ${old} back`, (v) => v.brokers.includes(old));
      say(
        `controller kill ${k + 1}: ${old} → epoch ${epochs.at(-1)}; ${created.length} topics created so far`,
      );
    }
  } finally {
    stop = true;
    await creator;
    await sampler;
    await watcher.close();
    await admin.close();
  }
  for (let k = 1; k < epochs.length; k++) assert.ok(epochs[k]! > epochs[k - 1]!, `epochs grow: ${epochs}`);
  assert.deepEqual(regressions, [], '/controller_epoch never went back');
  for (const [epoch, ids] of controllersByEpoch)
    assert.equal(ids.size, 1, `one controller in epoch ${epoch}: ${[...ids]}`);
  assert.ok(created.length > 0, `topics were created (errors: ${creationErrors.slice(0, 3)})`);
  const views = await waitForViews(cluster, 'every created topic with leaders everywhere', (v) =>
    created.every((t) => {
      const parts = v.topics.get(t);
      return parts !== undefined && parts.length === 2 && parts.every((p) => p.leader >= 0);
    }),
  );
  for (const v of views.values()) assert.deepEqual(leaderless(v, live()), []);
  say(
    `${created.length} topics created during the kills; ${creationErrors.length} attempts failed and were retried`,
  );
});
