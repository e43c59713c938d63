// Summarises V8 .cpuprofile files (from `node --cpu-prof`, bench/replication.ts --profile or
// bench/metrics-overhead.ts --profile): self time by function (top N) and by where the code lives
// (our src/ files, node: internals, node_modules, V8's (garbage collector)/(program)/(idle)), as
// shares of the profiles' samples. Several files are summed (many short phases of one run).
//
// With `--against` the files after it are a second set, and each line compares the two as shares
// of their busy (not idle) time, per place and per function, largest difference first: where one
// configuration spends what the other does not (metrics on vs off, before vs after a change).
// Shares, not times: on a loaded machine the sampled time of the same work varies from phase to
// phase, its share of the profile much less. `--under REGEX` adds the inclusive share of the
// frames matching REGEX (`function url:line`), with everything they call. `--samples` counts
// samples instead of summing their time: a thread descheduled for 100 ms on a loaded machine
// gives its next sample 100 ms of weight, wherever it was preempted, and one such sample can
// outweigh a whole phase's worth of a small function; counted, it weighs one.
//
//   npx tsx bench/cpuprofile-summary.ts FILE.cpuprofile… [--top 30] [--against FILE…] [--under REGEX]
//     [--samples]

import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  children?: number[];
}
interface Profile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
  startTime: number;
  endTime: number;
}

const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: {
    top: { type: 'string', default: '30' },
    against: { type: 'boolean', default: false },
    under: { type: 'string' },
    samples: { type: 'boolean', default: false },
  },
});
// `--against` is a flag between the sets: FILES… --against FILES…
const split = process.argv.indexOf('--against');
const isFile = (a: string) => positionals.includes(a);
const setA = values.against ? process.argv.slice(2, split).filter(isFile) : positionals;
const setB = values.against ? process.argv.slice(split + 1).filter(isFile) : [];
if (setA.length === 0)
  throw new Error(
    'usage: cpuprofile-summary.ts FILE… [--top N] [--against FILE…] [--under REGEX] [--samples]',
  );
const under = values.under === undefined ? null : new RegExp(values.under);

interface Summary {
  files: number;
  wall: number;
  total: number;
  idle: number;
  fns: Map<string, number>;
  places: Map<string, number>;
  under: number;
}

const where = (url: string, name: string): string => {
  if (url === '') return name.startsWith('(') ? name : '(native/builtin)';
  if (url.startsWith('node:')) return 'node: internals';
  if (url.includes('/node_modules/'))
    return `node_modules/${/node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(url)![1]}`;
  const m = /\/(src|bench|test)\/(.*)$/.exec(url);
  return m ? `${m[1]}/${m[2]!.split('/').slice(0, -1).join('/') || '.'}` : url;
};

function summarise(files: readonly string[]): Summary {
  const s: Summary = {
    files: files.length,
    wall: 0,
    total: 0,
    idle: 0,
    fns: new Map(),
    places: new Map(),
    under: 0,
  };
  const add = (m: Map<string, number>, k: string, us: number) => m.set(k, (m.get(k) ?? 0) + us);
  for (const file of files) {
    const prof = JSON.parse(readFileSync(file, 'utf8')) as Profile;
    s.wall += (prof.endTime - prof.startTime) / 1e6;
    const byId = new Map(prof.nodes.map((n) => [n.id, n]));
    const parent = new Map<number, number>();
    for (const n of prof.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
    const key = (n: ProfileNode) => {
      const { functionName, url, lineNumber } = n.callFrame;
      const short = url.replace(/^.*\/(src|bench|node_modules)\//, '$1/');
      return `${functionName || '(anonymous)'} ${short ? `${short}:${lineNumber + 1}` : ''}`.trim();
    };
    // Each sample's delta goes to the node sampled (self time).
    for (let i = 0; i < prof.samples.length; i++) {
      const us = values.samples ? 1 : (prof.timeDeltas[i] ?? 0);
      const n = byId.get(prof.samples[i]!)!;
      s.total += us;
      if (n.callFrame.functionName === '(idle)') s.idle += us;
      add(s.fns, key(n), us);
      add(s.places, where(n.callFrame.url, n.callFrame.functionName), us);
      if (under === null) continue;
      for (let id: number | undefined = n.id; id !== undefined; id = parent.get(id))
        if (under.test(key(byId.get(id)!))) {
          s.under += us;
          break;
        }
    }
  }
  return s;
}

const a = summarise(setA);
const busy = (s: Summary) => s.total - s.idle;
const pct = (us: number, s: Summary) => `${((100 * us) / busy(s)).toFixed(2).padStart(6)}%`;
const describe = (s: Summary, files: readonly string[]) =>
  `${files.length === 1 ? files[0] : `${files.length} profiles`}: ${s.wall.toFixed(1)} s sampled, busy ${values.samples ? `${busy(s)} samples` : `${(busy(s) / 1e6).toFixed(1)} s`} (${((100 * busy(s)) / s.total).toFixed(1)}%)`;
const top = Number(values.top);

if (setB.length === 0) {
  console.log(describe(a, setA));
  if (under) console.log(`\nunder /${under.source}/ (inclusive): ${pct(a.under, a).trim()} of busy time`);
  console.log('\nby place (self time, share of busy time):');
  for (const [k, v] of [...a.places].sort((x, y) => y[1] - x[1]).slice(0, 25))
    console.log(`${pct(v, a)}  ${k}`);
  console.log(`\ntop ${top} functions (self time, share of busy time):`);
  for (const [k, v] of [...a.fns].sort((x, y) => y[1] - x[1]).slice(0, top))
    console.log(`${pct(v, a)}  ${k}`);
} else {
  const b = summarise(setB);
  console.log(`A: ${describe(a, setA)}\nB: ${describe(b, setB)}`);
  if (under)
    console.log(
      `\nunder /${under.source}/ (inclusive): A ${pct(a.under, a).trim()}, B ${pct(b.under, b).trim()}`,
    );
  const compare = (title: string, ma: Map<string, number>, mb: Map<string, number>, n: number) => {
    console.log(`\n${title} (share of busy time: A, B, A − B; largest difference first):`);
    const rows = [...new Set([...ma.keys(), ...mb.keys()])]
      .filter((k) => !k.startsWith('(idle)'))
      .map((k) => [k, (ma.get(k) ?? 0) / busy(a), (mb.get(k) ?? 0) / busy(b)] as const)
      .sort((x, y) => Math.abs(y[1] - y[2]) - Math.abs(x[1] - x[2]))
      .slice(0, n);
    const p = (x: number) => `${(100 * x).toFixed(2).padStart(6)}%`;
    for (const [k, x, y] of rows) console.log(`${p(x)} ${p(y)} ${p(x - y)}  ${k}`);
  };
  compare('by place', a.places, b.places, 25);
  compare(`top ${top} functions`, a.fns, b.fns, top);
}
