// Retry and reconnect delays, shared by the client and the broker's outbound links.

/**
 * Exponential backoff with ±20% jitter, as Kafka's ExponentialBackoff (multiplier 2, jitter 0.2).
 * `attempts` counts failures so far (0 → the base backoff).
 */
export function backoffMs(base: number, max: number, attempts: number): number {
  if (base <= 0) return 0;
  const exp = Math.min(max, base * 2 ** Math.min(attempts, 30));
  const jitter = 1 + (Math.random() * 0.4 - 0.2);
  return Math.max(0, Math.round(Math.min(max, exp) * jitter));
}
