// One knob for slow machines, shared by the testkit and Samsa's own tests:
// SAMSA_TEST_TIMEOUT_SCALE multiplies every liveness limit — how long a broker or ZooKeeper may
// take to start here, how long a test helper waits for a response or a condition. These limits
// only decide when a wait that is not going to end is called a failure, so a loaded machine
// raises the knob (SAMSA_TEST_TIMEOUT_SCALE=3 npm test) instead of failing.

/** The factor in SAMSA_TEST_TIMEOUT_SCALE (1 when unset); throws on anything but a positive number. */
export function timeoutScale(env: NodeJS.ProcessEnv = process.env): number {
  const raw = env.SAMSA_TEST_TIMEOUT_SCALE;
  if (raw === undefined || raw.trim() === '') return 1;
  const n = Number(raw);
  if (!Number.isFinite(n) || n <= 0) {
    throw new Error(`SAMSA_TEST_TIMEOUT_SCALE must be a positive number, got ${JSON.stringify(raw)}`);
  }
  return n;
}

/** A liveness limit of `ms` at scale 1, scaled by SAMSA_TEST_TIMEOUT_SCALE. */
export function scaledLimit(ms: number): number {
  return Math.round(ms * timeoutScale());
}
