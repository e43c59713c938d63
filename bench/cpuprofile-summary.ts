// Summarises a V8 .cpuprofile (from `node --cpu-prof`, or bench/replication.ts --profile): self
// time by function (top N) and by where the code lives (our src/ files, node: internals,
// node_modules, V8's (garbage collector)/(program)/(idle)), as shares of the profile's samples.
//
//   npx tsx bench/cpuprofile-summary.ts FILE.cpuprofile [--top 30]

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
  options: { top: { type: 'string', default: '30' } },
});
const file = positionals[0];
if (!file) throw new Error('usage: cpuprofile-summary.ts FILE.cpuprofile [--top N]');
const prof = JSON.parse(readFileSync(file, 'utf8')) as Profile;
const byId = new Map(prof.nodes.map((n) => [n.id, n]));
// Self time per node: each sample's delta goes to the node sampled.
const self = new Map<number, number>();
for (let i = 0; i < prof.samples.length; i++)
  self.set(prof.samples[i]!, (self.get(prof.samples[i]!) ?? 0) + (prof.timeDeltas[i] ?? 0));
const total = [...self.values()].reduce((a, b) => a + b, 0);

const where = (url: string, name: string): string => {
  if (url === '') return name.startsWith('(') ? name : '(native/builtin)';
  if (url.startsWith('node:')) return 'node: internals';
  if (url.includes('/node_modules/'))
    return `node_modules/${/node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(url)![1]}`;
  const m = /\/(src|bench|test)\/(.*)$/.exec(url);
  return m ? `${m[1]}/${m[2]!.split('/').slice(0, -1).join('/') || '.'}` : url;
};

const fns = new Map<string, number>();
const places = new Map<string, number>();
for (const [id, us] of self) {
  const n = byId.get(id)!;
  const { functionName, url, lineNumber } = n.callFrame;
  const short = url.replace(/^.*\/(src|bench|node_modules)\//, '$1/');
  const key = `${functionName || '(anonymous)'} ${short ? `${short}:${lineNumber + 1}` : ''}`.trim();
  fns.set(key, (fns.get(key) ?? 0) + us);
  const w = where(url, functionName);
  places.set(w, (places.get(w) ?? 0) + us);
}
const pct = (us: number) => `${((100 * us) / total).toFixed(1).padStart(5)}%`;
const wall = (prof.endTime - prof.startTime) / 1e6;
const idle = [...fns].filter(([k]) => k.startsWith('(idle)')).reduce((a, [, v]) => a + v, 0);
console.log(
  `${file}: ${wall.toFixed(1)} s sampled, busy ${((total - idle) / 1e6).toFixed(1)} s (${pct(total - idle).trim()})`,
);
console.log('\nby place (self time):');
for (const [k, v] of [...places].sort((a, b) => b[1] - a[1]).slice(0, 25)) console.log(`${pct(v)}  ${k}`);
console.log(`\ntop ${values.top} functions (self time):`);
for (const [k, v] of [...fns].sort((a, b) => b[1] - a[1]).slice(0, Number(values.top)))
  console.log(`${pct(v)}  ${k}`);
