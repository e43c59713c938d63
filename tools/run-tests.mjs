#!/usr/bin/env node
import { spawnSync } from 'node:child_process';
// Runs every test file under test/ with Node's own test runner, TypeScript loaded through tsx.
// Node 20's runner neither expands globs nor finds .ts files by itself, so we list them here.
// Usage: node tools/run-tests.mjs [--compiled] [substring-filter ...]
// --compiled runs the tsc output under dist/ (build first: `npm test` does) instead of the sources
// through tsx: a test process then loads plain JavaScript, about 2 s less CPU per file here.
import { existsSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';

function find(dir) {
  const out = [];
  for (const name of readdirSync(dir)) {
    const p = join(dir, name);
    if (statSync(p).isDirectory()) out.push(...find(p));
    else if (name.endsWith('.test.ts')) out.push(p);
  }
  return out;
}

const args = process.argv.slice(2);
const compiled = args.includes('--compiled');
const filters = args.filter((a) => a !== '--compiled');
const sources = find('test')
  .sort()
  .filter((f) => filters.length === 0 || filters.some((s) => f.includes(s)));
if (sources.length === 0) {
  console.error('no test files matched');
  process.exit(1);
}
const files = compiled ? sources.map((f) => join('dist', f.replace(/\.ts$/, '.js'))) : sources;
const unbuilt = files.filter((f) => !existsSync(f));
if (unbuilt.length > 0) {
  console.error(`not built: ${unbuilt[0]} (run \`npm run build\` first)`);
  process.exit(1);
}
const concurrency = process.env.TEST_CONCURRENCY ?? '2';
// A hung test must fail the run, not stall CI: every test gets at most this long unless it sets
// its own timeout. SAMSA_TEST_TIMEOUT_SCALE (slow machines; test/support/timeouts.ts) scales it.
const scale = Number(process.env.SAMSA_TEST_TIMEOUT_SCALE?.trim() || '1');
if (!(scale > 0)) {
  console.error('SAMSA_TEST_TIMEOUT_SCALE must be a positive number');
  process.exit(1);
}
// Node 20's runner applies it to each test file as a whole too: the cluster files run several
// multi-broker tests each, minutes apiece on a loaded 2-core machine.
const testTimeoutMs = process.env.TEST_TIMEOUT_MS ?? String(Math.round(900_000 * scale));
const r = spawnSync(
  process.execPath,
  [
    ...(compiled ? ['--enable-source-maps'] : ['--import', 'tsx']),
    '--test',
    `--test-concurrency=${concurrency}`,
    `--test-timeout=${testTimeoutMs}`,
    '--test-reporter=spec',
    '--test-reporter-destination=stdout',
    // SAMSA_TEST_TIMINGS=FILE also writes each file's time there, slowest first.
    ...(process.env.SAMSA_TEST_TIMINGS
      ? [
          '--test-reporter=./tools/file-timings.mjs',
          `--test-reporter-destination=${process.env.SAMSA_TEST_TIMINGS}`,
        ]
      : []),
    ...files,
  ],
  { stdio: 'inherit' },
);
process.exit(r.status ?? 1);
