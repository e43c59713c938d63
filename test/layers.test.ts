// Layer guard (docs/design.md, "Layer contracts"): scans every import under src/ and
// fails when a layer imports one it must not. Type-only imports count: a type from a forbidden
// layer is still a dependency on it. Dynamic `import()` and `require()` of relative paths count
// too. A new top-level folder under src/ needs a rule here before it can have any imports.
import assert from 'node:assert/strict';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { test } from 'node:test';
import { REPO } from './support/repo.js';

const ROOT = REPO;
const SRC = join(ROOT, 'src');

/** Layer → the other layers it may import (its own files are always allowed). */
const ALLOWED: Record<string, readonly string[] | 'any'> = {
  protocol: [],
  storage: ['protocol'],
  net: ['protocol'],
  broker: ['protocol', 'storage', 'net'],
  client: ['protocol', 'net'],
  console: ['protocol', 'net', 'client'],
  cli: 'any',
  testkit: 'any',
  // Files directly in src/ (the package entry point).
  '.': 'any',
};

function sourceFiles(dir: string): string[] {
  const out: string[] = [];
  for (const name of readdirSync(dir)) {
    const p = join(dir, name);
    if (statSync(p).isDirectory()) out.push(...sourceFiles(p));
    else if (/\.(ts|mts|cts|js|mjs)$/.test(name) && !name.endsWith('.d.ts')) out.push(p);
  }
  return out;
}

/** Module specifiers of static imports/re-exports, side-effect imports, import() and require(). */
function importSpecifiers(text: string): string[] {
  const out: string[] = [];
  const patterns = [
    // `import … from '…'` / `export … from '…'`, possibly over several lines.
    /^[ \t]*(?:import|export)\b[^;]*?\bfrom\s*(['"])([^'"\n]+)\1/gm,
    // `import '…'` (side effects only).
    /^[ \t]*import\s*(['"])([^'"\n]+)\1/gm,
    // `import('…')`, `require('…')`.
    /\b(?:import|require)\s*\(\s*(['"])([^'"\n]+)\1\s*\)/g,
  ];
  for (const re of patterns) for (const m of text.matchAll(re)) out.push(m[2]!);
  return out;
}

/** `src/<layer>/…` → layer; a file directly in src/ → '.'; outside src/ → null. */
function layerOf(absPath: string): string | null {
  const rel = relative(SRC, absPath);
  if (rel.startsWith('..') || rel === '') return null;
  const parts = rel.split(sep);
  return parts.length === 1 ? '.' : parts[0]!;
}

interface Violation {
  file: string;
  specifier: string;
  reason: string;
}

function checkImport(fromFile: string, specifier: string): Violation | null {
  if (!specifier.startsWith('.')) return null; // node: builtins and npm packages
  const from = layerOf(fromFile)!;
  const target = resolve(dirname(fromFile), specifier);
  const file = relative(ROOT, fromFile);
  const to = layerOf(target);
  const rule = ALLOWED[from];
  if (rule === undefined) {
    return { file, specifier, reason: `src/${from} has no layer rule (add one to test/layers.test.ts)` };
  }
  if (to === null) return { file, specifier, reason: 'imports a file outside src/' };
  if (rule === 'any' || to === from) return null;
  if (rule.includes(to)) return null;
  return {
    file,
    specifier,
    reason: `${from} may import ${rule.length === 0 ? 'nothing else of ours' : rule.join(', ')}, not ${to}`,
  };
}

test('every import under src/ respects the layer rules', () => {
  const files = sourceFiles(SRC);
  assert.ok(files.length > 100, `scanned only ${files.length} files`);
  const violations: Violation[] = [];
  let edges = 0;
  for (const f of files) {
    for (const spec of importSpecifiers(readFileSync(f, 'utf8'))) {
      edges++;
      const v = checkImport(f, spec);
      if (v) violations.push(v);
    }
  }
  assert.ok(edges > files.length, `found only ${edges} imports in ${files.length} files`);
  assert.deepEqual(
    violations.map((v) => `${v.file}: '${v.specifier}' — ${v.reason}`),
    [],
    'layer violations',
  );
});

test('the scanner sees the imports it must judge (no vacuous pass)', () => {
  const text = [
    "import { a } from '../client/a.js';",
    'import {',
    '  type B,',
    '  c,',
    "} from '../broker/b.js';",
    "export { d } from './d.js';",
    "export * from '../storage/e.js';",
    "import '../broker/side-effect.js';",
    'const x = 1;',
    "  const m = await import('../client/lazy.js');",
    "const n = require('../cli/native.js');",
    "import net from 'node:net';",
  ].join('\n');
  assert.deepEqual(importSpecifiers(text).sort(), [
    '../broker/b.js',
    '../broker/side-effect.js',
    '../cli/native.js',
    '../client/a.js',
    '../client/lazy.js',
    '../storage/e.js',
    './d.js',
    'node:net',
  ]);
  // The scan of the real tree finds a known cross-layer edge.
  const pool = join(SRC, 'client', 'broker-pool.ts');
  assert.ok(importSpecifiers(readFileSync(pool, 'utf8')).includes('../net/broker-link.js'));
});

test('the rules reject what they must and allow what they may', () => {
  const f = (layer: string) => join(SRC, layer, 'x.ts');
  const bad: [string, string][] = [
    [f('protocol'), '../storage/a.js'],
    [f('protocol'), '../net/a.js'],
    [f('storage'), '../net/a.js'],
    [f('storage'), '../broker/a.js'],
    [f('net'), '../client/errors.js'],
    [f('net'), '../storage/a.js'],
    [f('net'), '../broker/a.js'],
    [f('client'), '../broker/a.js'],
    [f('client'), '../storage/a.js'],
    [f('broker'), '../client/index.js'],
    [join(SRC, 'broker', 'replica', 'x.ts'), '../../client/broker-link.js'],
    [f('broker'), '../cli/a.js'],
    [f('client'), '../../test/a.js'],
    [f('new-layer'), '../protocol/a.js'],
  ];
  for (const [file, spec] of bad) assert.notEqual(checkImport(file, spec), null, `${file} → ${spec}`);
  const good: [string, string][] = [
    [f('protocol'), './a.js'],
    [f('storage'), '../protocol/a.js'],
    [f('net'), '../protocol/a.js'],
    [f('client'), '../net/a.js'],
    [f('client'), '../protocol/a.js'],
    [join(SRC, 'broker', 'replica', 'x.ts'), '../../net/broker-link.js'],
    [f('broker'), '../storage/a.js'],
    [f('cli'), '../broker/a.js'],
    [f('testkit'), '../client/a.js'],
    [join(SRC, 'index.ts'), './broker/broker.js'],
    [f('net'), 'node:net'],
  ];
  for (const [file, spec] of good) assert.equal(checkImport(file, spec), null, `${file} → ${spec}`);
});
