// A test reporter that writes, per test file, the summed duration of its top-level tests (the
// tests of one file run one after another), slowest first: what to look at when the suite is slow.
// run-tests.mjs adds it when SAMSA_TEST_TIMINGS names an output file.
export default async function* fileTimings(source) {
  const perFile = new Map();
  for await (const event of source) {
    if (event.type !== 'test:pass' && event.type !== 'test:fail') continue;
    const { file, nesting, details } = event.data;
    if (nesting !== 0 || !file) continue;
    const entry = perFile.get(file) ?? { ms: 0, tests: 0, failed: 0 };
    entry.ms += details?.duration_ms ?? 0;
    entry.tests += 1;
    if (event.type === 'test:fail') entry.failed += 1;
    perFile.set(file, entry);
  }
  const rows = [...perFile].sort((a, b) => b[1].ms - a[1].ms);
  const total = rows.reduce((sum, [, e]) => sum + e.ms, 0);
  yield `total of the files' top-level tests: ${(total / 1000).toFixed(1)} s in ${rows.length} files\n`;
  for (const [file, e] of rows) {
    const name = file.replace(`${process.cwd()}/`, '');
    yield `${(e.ms / 1000).toFixed(1).padStart(8)} s  ${String(e.tests).padStart(3)} tests${e.failed ? ` (${e.failed} failed)` : ''}  ${name}\n`;
  }
}
