// ErrorsPerSec's cost per answer (request-stats.ts `countErrors`, called by the dispatcher for
// every answer): Produce and Fetch answers read by their known shape, against the generic walk
// every other API gets (the baseline, measured in the same run on the same answers).
// Run: npx tsx bench/metrics-error-counts.ts
import { ApiRequestStats } from '../src/broker/metrics/request-stats.js';
import { fetchAnswer, produceAnswer } from './answers.js';

/** An API key the shape readers do not know: the generic walk. */
const OTHER_API = 19;

function nsPerAnswer(answer: object, apiKey: number, n: number): number {
  const stats = new ApiRequestStats();
  let best = Number.POSITIVE_INFINITY;
  for (let round = 0; round < 5; round++) {
    const t0 = performance.now();
    for (let i = 0; i < n; i++) stats.countErrors(answer, apiKey);
    best = Math.min(best, ((performance.now() - t0) * 1e6) / n);
  }
  return best;
}

const cases = [
  ['Produce, 1 partition', produceAnswer(1, 1), 0, 1_000_000],
  ['Fetch, 100 partitions', fetchAnswer(1, 100, 100), 1, 20_000],
] as const;
console.log('| answer | by shape | generic walk (baseline) | shape / generic |');
console.log('| --- | --- | --- | --- |');
for (const [name, answer, key, n] of cases) {
  const shape = nsPerAnswer(answer, key, n);
  const generic = nsPerAnswer(answer, OTHER_API, n);
  console.log(
    `| ${name} | ${shape.toFixed(0)} ns | ${generic.toFixed(0)} ns | ${(shape / generic).toFixed(3)} |`,
  );
}
