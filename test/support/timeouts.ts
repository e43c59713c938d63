// One knob for slow machines: SAMSA_TEST_TIMEOUT_SCALE multiplies every liveness timeout of the
// test helpers (how long to wait for a response, a line of output, a condition, a process).
// Tests assert outcomes, not speed: these deadlines only decide when a wait that is not going to
// end is called a failure, so they are generous by default (a loaded 2-core machine passes) and
// can be raised further, e.g. SAMSA_TEST_TIMEOUT_SCALE=3 npm test. The testkit reads the same knob
// for its start limits (src/testkit/timeout-scale.ts).
import { timeoutScale } from '../../src/testkit/timeout-scale.js';

/** The factor applied by `scaled()` (1 unless SAMSA_TEST_TIMEOUT_SCALE is set). */
export const TIMEOUT_SCALE = timeoutScale();

/** A liveness timeout of `ms` milliseconds at the default scale, scaled for this machine. */
export function scaled(ms: number): number {
  return Math.round(ms * TIMEOUT_SCALE);
}

/** The error a timed-out wait throws: always says "timed out", how long, and waiting for what. */
export class TestTimeoutError extends Error {
  override name = 'TestTimeoutError';
  constructor(what: string, ms: number, detail = '') {
    super(`timed out after ${ms} ms waiting for ${what}${detail ? `\n${detail}` : ''}`);
  }
}
